-- Retention: erasing content, masking destinations, recording erasures, re-sealing content for
-- a key rotation (src/store/retention-store.ts). The same statement names as the PostgreSQL
-- driver's retention.sql. "Settled": every delivery terminal or accepted.

-- name: retention_otp_due
-- params: @now, @limit
SELECT n.id FROM notifications n
WHERE n.purpose = 'otp' AND n.content_erased_at IS NULL AND n.expires_at <= @now
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id AND d.state NOT IN ('terminal', 'accepted'))
  AND NOT EXISTS (SELECT 1 FROM pending_fallbacks f WHERE f.notification_id = n.id)
ORDER BY n.expires_at LIMIT @limit;

-- name: retention_content_due
-- params: @purpose, @before, @limit
SELECT n.id FROM notifications n
WHERE n.purpose = @purpose AND n.content_erased_at IS NULL AND n.created_at < @before
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id AND d.state NOT IN ('terminal', 'accepted'))
  AND NOT EXISTS (SELECT 1 FROM pending_fallbacks f WHERE f.notification_id = n.id)
ORDER BY n.created_at LIMIT @limit;

-- name: notification_content_erase
-- Returns the tenant of an erased notification (the erasure is recorded per tenant).
-- params: @id, @marker, @now
UPDATE notifications SET content_json = @marker, content_erased_at = @now WHERE id = @id AND content_erased_at IS NULL
RETURNING tenant_id;

-- name: retention_destinations_due
-- params: @before, @limit
SELECT d.id, d.notification_id, d.channel, d.destination FROM deliveries d
WHERE d.destination_hash IS NULL AND d.created_at < @before AND d.state IN ('terminal', 'accepted')
ORDER BY d.created_at LIMIT @limit;

-- name: delivery_destination_mask
-- params: @id, @hash
UPDATE deliveries SET destination = 'masked', destination_hash = @hash WHERE id = @id AND destination_hash IS NULL
RETURNING notification_id, tenant_id;

-- name: notification_recipient_mask
-- The recipient's addresses go; its id (the producer's) and locale stay.
-- params: @id
UPDATE notifications SET recipient_json = json_object('id', recipient_id, 'locale', json_extract(recipient_json, '$.locale'), 'masked', json('true'))
WHERE id = @id;

-- name: recipient_pending
-- params: @tenant_id, @recipient_id
SELECT d.id, d.state, d.attempt_count, d.lease_version, d.expires_at, d.next_attempt_at
FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE n.tenant_id = @tenant_id AND n.recipient_id = @recipient_id AND d.state IN ('ready', 'retryable');

-- name: recipient_destinations
-- params: @tenant_id, @recipient_id
SELECT d.id, d.notification_id, d.channel, d.destination FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE n.tenant_id = @tenant_id AND n.recipient_id = @recipient_id AND d.destination_hash IS NULL;

-- name: recipient_notifications
-- Each notification of the recipient with content, and whether a delivery is still in flight.
-- params: @tenant_id, @recipient_id
SELECT n.id, EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = n.id AND d.state IN ('submitting', 'unknown', 'ready', 'retryable')) AS in_flight
FROM notifications n WHERE n.tenant_id = @tenant_id AND n.recipient_id = @recipient_id AND n.content_erased_at IS NULL;

-- name: recipient_profile_delete
-- params: @tenant_id, @recipient_id
DELETE FROM recipients WHERE tenant_id = @tenant_id AND id = @recipient_id;

-- name: recipient_preferences_delete
-- params: @tenant_id, @recipient_id
DELETE FROM recipient_preferences WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id;

-- name: recipient_push_subscriptions_delete
-- params: @tenant_id, @recipient_id
DELETE FROM push_subscriptions WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id;

-- name: recipient_audience_clear
-- The row stays (audience positions and counts do not move); its addresses and template data go.
-- params: @tenant_id, @recipient_id
UPDATE audience_recipients SET email = NULL, phone = NULL, push_token = NULL, data_json = NULL
WHERE recipient_id = @recipient_id AND (email IS NOT NULL OR phone IS NOT NULL OR push_token IS NOT NULL OR data_json IS NOT NULL)
  AND audience_id IN (SELECT id FROM audiences WHERE tenant_id = @tenant_id);

-- name: erasures_insert
-- params: @cause, @what, @tenant_id, @recipient_id, @count, @details_json, @now
INSERT INTO erasures (cause, what, tenant_id, recipient_id, count, details_json, created_at)
VALUES (@cause, @what, @tenant_id, @recipient_id, @count, @details_json, @now);

-- name: erasures_list
-- One tenant's erasures, newest first; the cursor is the last id of the previous page (NULL: the first page).
-- params: @tenant_id, @before, @limit
SELECT * FROM erasures WHERE tenant_id = @tenant_id AND (@before IS NULL OR id < @before) ORDER BY id DESC LIMIT @limit;

-- name: content_page_notifications
-- params: @after, @limit
SELECT id, content_json FROM notifications WHERE id > @after ORDER BY id LIMIT @limit;

-- name: content_page_campaigns
-- params: @after, @limit
SELECT id, content_json FROM campaigns WHERE id > @after ORDER BY id LIMIT @limit;

-- name: content_replace_notifications
-- params: @id, @expected, @stored
UPDATE notifications SET content_json = @stored WHERE id = @id AND content_json = @expected;

-- name: content_replace_campaigns
-- params: @id, @expected, @stored
UPDATE campaigns SET content_json = @stored WHERE id = @id AND content_json = @expected;

-- name: data_page_audience_recipients
-- Audience rows with template data, in key order after (@after_audience, @after_position).
-- params: @after_audience, @after_position, @limit
SELECT audience_id, position, data_json FROM audience_recipients
WHERE data_json IS NOT NULL AND (audience_id > @after_audience OR (audience_id = @after_audience AND position > @after_position))
ORDER BY audience_id, position LIMIT @limit;

-- name: data_replace_audience_recipients
-- params: @audience_id, @position, @expected, @stored
UPDATE audience_recipients SET data_json = @stored WHERE audience_id = @audience_id AND position = @position AND data_json = @expected;
