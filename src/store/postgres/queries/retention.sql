-- Retention: erasing content, masking destinations, recording erasures, re-sealing content for
-- a key rotation (src/store/retention-store.ts). The same statement names as the SQLite
-- driver's retention.sql; batches are arrays here. "Settled": every delivery terminal or accepted.

-- name: retention_otp_due
-- params: $1 now, $2 limit
SELECT n.id FROM notifications n
WHERE n.purpose = 'otp' AND n.content_erased_at IS NULL AND n.expires_at <= $1
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id AND d.state NOT IN ('terminal', 'accepted'))
  AND NOT EXISTS (SELECT 1 FROM pending_fallbacks f WHERE f.notification_id = n.id)
ORDER BY n.expires_at LIMIT $2;

-- name: retention_content_due
-- params: $1 purpose, $2 before, $3 limit
SELECT n.id FROM notifications n
WHERE n.purpose = $1 AND n.content_erased_at IS NULL AND n.created_at < $2
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id AND d.state NOT IN ('terminal', 'accepted'))
  AND NOT EXISTS (SELECT 1 FROM pending_fallbacks f WHERE f.notification_id = n.id)
ORDER BY n.created_at LIMIT $3;

-- name: notification_content_erase
-- Returns the tenant of each erased notification (the erasure is recorded per tenant).
-- params: $1 ids[], $2 marker, $3 now
UPDATE notifications SET content_json = $2, content_erased_at = $3 WHERE id = ANY($1::text[]) AND content_erased_at IS NULL
RETURNING tenant_id;

-- name: retention_destinations_due
-- params: $1 before, $2 limit
SELECT d.id, d.notification_id, d.channel, d.destination FROM deliveries d
WHERE d.destination_hash IS NULL AND d.created_at < $1 AND d.state IN ('terminal', 'accepted')
ORDER BY d.created_at LIMIT $2;

-- name: delivery_destination_mask
-- params: $1 ids[], $2 hashes[]
UPDATE deliveries d SET destination = 'masked', destination_hash = m.hash
FROM unnest($1::text[], $2::text[]) AS m(id, hash)
WHERE d.id = m.id AND d.destination_hash IS NULL
RETURNING d.notification_id, d.tenant_id;

-- name: notification_recipient_mask
-- The recipient's addresses go; its id (the producer's) and locale stay.
-- params: $1 ids[]
UPDATE notifications SET recipient_json = json_build_object('id', recipient_id, 'locale', recipient_json::json ->> 'locale', 'masked', true)::text
WHERE id = ANY($1::text[]);

-- name: recipient_pending
-- params: $1 tenant_id, $2 recipient_id
SELECT d.id, d.state, d.attempt_count, d.lease_version, d.expires_at, d.next_attempt_at
FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE n.tenant_id = $1 AND n.recipient_id = $2 AND d.state IN ('ready', 'retryable');

-- name: recipient_destinations
-- params: $1 tenant_id, $2 recipient_id
SELECT d.id, d.notification_id, d.channel, d.destination FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE n.tenant_id = $1 AND n.recipient_id = $2 AND d.destination_hash IS NULL;

-- name: recipient_notifications
-- Each notification of the recipient with content, and whether a delivery is still in flight.
-- params: $1 tenant_id, $2 recipient_id
SELECT n.id, EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id AND d.state IN ('submitting', 'unknown', 'ready', 'retryable')) AS in_flight
FROM notifications n WHERE n.tenant_id = $1 AND n.recipient_id = $2 AND n.content_erased_at IS NULL
FOR UPDATE OF n;

-- name: recipient_profile_delete
-- params: $1 tenant_id, $2 recipient_id
DELETE FROM recipients WHERE tenant_id = $1 AND id = $2;

-- name: recipient_preferences_delete
-- params: $1 tenant_id, $2 recipient_id
DELETE FROM recipient_preferences WHERE tenant_id = $1 AND recipient_id = $2;

-- name: recipient_push_subscriptions_delete
-- params: $1 tenant_id, $2 recipient_id
DELETE FROM push_subscriptions WHERE tenant_id = $1 AND recipient_id = $2;

-- name: recipient_audience_clear
-- The row stays (audience positions and counts do not move); its addresses and template data go.
-- params: $1 tenant_id, $2 recipient_id
UPDATE audience_recipients SET email = NULL, phone = NULL, push_token = NULL, data_json = NULL
WHERE recipient_id = $2 AND (email IS NOT NULL OR phone IS NOT NULL OR push_token IS NOT NULL OR data_json IS NOT NULL)
  AND audience_id IN (SELECT id FROM audiences WHERE tenant_id = $1);

-- name: erasures_insert
-- params: $1 cause, $2 what, $3 tenant_id, $4 recipient_id, $5 count, $6 details_json, $7 now
INSERT INTO erasures (cause, what, tenant_id, recipient_id, count, details_json, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: erasures_list
-- One tenant's erasures, newest first; the cursor is the last id of the previous page (NULL: the first page).
-- params: $1 tenant_id, $2 before, $3 limit
SELECT * FROM erasures WHERE tenant_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3;

-- name: content_page_notifications
-- params: $1 after, $2 limit
SELECT id, content_json FROM notifications WHERE id > $1 ORDER BY id LIMIT $2;

-- name: content_page_campaigns
-- params: $1 after, $2 limit
SELECT id, content_json FROM campaigns WHERE id > $1 ORDER BY id LIMIT $2;

-- name: content_replace_notifications
-- params: $1 ids[], $2 expected[], $3 stored[]
UPDATE notifications n SET content_json = r.stored FROM unnest($1::text[], $2::text[], $3::text[]) AS r(id, expected, stored)
WHERE n.id = r.id AND n.content_json = r.expected;

-- name: content_replace_campaigns
-- params: $1 ids[], $2 expected[], $3 stored[]
UPDATE campaigns c SET content_json = r.stored FROM unnest($1::text[], $2::text[], $3::text[]) AS r(id, expected, stored)
WHERE c.id = r.id AND c.content_json = r.expected;

-- name: data_page_audience_recipients
-- Audience rows with template data, in key order after ($1, $2).
-- params: $1 after_audience, $2 after_position, $3 limit
SELECT audience_id, position, data_json FROM audience_recipients
WHERE data_json IS NOT NULL AND (audience_id, position) > ($1::text, $2::int)
ORDER BY audience_id, position LIMIT $3;

-- name: data_replace_audience_recipients
-- params: $1 audience_ids[], $2 positions[], $3 expected[], $4 stored[]
UPDATE audience_recipients a SET data_json = r.stored
FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS r(audience_id, position, expected, stored)
WHERE a.audience_id = r.audience_id AND a.position = r.position AND a.data_json = r.expected;
