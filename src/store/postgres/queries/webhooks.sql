-- Customer webhooks: endpoints, the outbox relay's fan-out into messages, and the sender's
-- claim / heads / record statements. See src/store/webhook-store.ts for the contract.

-- name: webhook_endpoint_insert
-- params: $1 id, $2 tenant_id, $3 url, $4 description, $5 event_types_json, $6 secret, $7 now
INSERT INTO webhook_endpoints (id, tenant_id, url, description, event_types_json, secret, status, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $7);

-- name: webhook_endpoints_list
-- Every column but the secrets, with message counts.
-- params: $1 tenant_id, $2 id (NULL: every endpoint of the tenant)
SELECT e.id, e.tenant_id, e.url, e.description, e.event_types_json, e.status, e.disabled_reason, e.disabled_at,
       e.previous_secret_until, e.failure_count, e.failing_since, e.next_attempt_at, e.last_failure_at,
       e.last_failure_status, e.last_failure_error, e.last_success_at, e.created_at, e.updated_at,
       (SELECT COUNT(*) FROM webhook_messages m WHERE m.endpoint_id = e.id AND m.delivered_at IS NULL) AS pending,
       (SELECT COUNT(*) FROM webhook_messages m WHERE m.endpoint_id = e.id AND m.delivered_at IS NOT NULL) AS delivered
FROM webhook_endpoints e
WHERE e.tenant_id = $1 AND ($2::text IS NULL OR e.id = $2)
ORDER BY e.id;

-- name: webhook_endpoint_delete
-- Its messages go with it (ON DELETE CASCADE).
-- params: $1 tenant_id, $2 id
DELETE FROM webhook_endpoints WHERE id = $2 AND tenant_id = $1 RETURNING id;

-- name: webhook_endpoint_rotate
-- params: $1 tenant_id, $2 id, $3 secret, $4 previous_until, $5 now
UPDATE webhook_endpoints
SET previous_secret = secret, previous_secret_until = $4, secret = $3, updated_at = $5
WHERE id = $2 AND tenant_id = $1
RETURNING id;

-- name: webhook_endpoint_enable
-- params: $1 tenant_id, $2 id, $3 now
UPDATE webhook_endpoints
SET status = 'active', disabled_reason = NULL, disabled_at = NULL, failure_count = 0, failing_since = NULL,
    next_attempt_at = NULL, updated_at = $3
WHERE id = $2 AND tenant_id = $1
RETURNING id;

-- name: webhook_messages_due_now
-- params: $1 endpoint_id, $2 now
UPDATE webhook_messages SET next_attempt_at = $2
WHERE endpoint_id = $1 AND delivered_at IS NULL AND next_attempt_at > $2;

-- name: outbox_relay_lock
-- One relay at a time per schema, held to the end of the transaction: message seq order is
-- then publication order (see webhook-store.ts), and concurrent relays never interleave seqs.
-- params: none
SELECT pg_advisory_xact_lock(72616002, hashtext(current_schema()));

-- name: outbox_relay
-- The lowest unpublished ids (by published_at IS NULL, never "id > last seen": ids commit out
-- of order), one message per (row, active endpoint of its tenant subscribed to its type) in
-- outbox id order so seq follows it, and the rows marked published, in one statement.
-- params: $1 now, $2 limit
WITH batch AS (
  SELECT id, tenant_id, notification_id, delivery_id, event_type, payload_json, created_at
  FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $2 FOR UPDATE
),
fanned AS (
  INSERT INTO webhook_messages (id, endpoint_id, tenant_id, outbox_id, notification_id, delivery_id, event_type,
                                payload_json, event_at, next_attempt_at, created_at)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, b.tenant_id, b.id, b.notification_id, b.delivery_id,
         b.event_type, b.payload_json, b.created_at, $1::bigint, $1::bigint
  FROM batch b
  JOIN webhook_endpoints e ON e.tenant_id = b.tenant_id AND e.status = 'active'
  WHERE e.event_types_json::jsonb ?| ARRAY[b.event_type, '*']
  ORDER BY b.id, e.id
  ON CONFLICT (endpoint_id, outbox_id) DO NOTHING
  RETURNING 1
),
marked AS (
  UPDATE outbox o SET published_at = $1::bigint FROM batch WHERE o.id = batch.id RETURNING 1
)
SELECT (SELECT COUNT(*) FROM marked)::int AS published, (SELECT COUNT(*) FROM fanned)::int AS messages;

-- name: outbox_prune
-- params: $1 before, $2 limit
DELETE FROM outbox WHERE id IN (
  SELECT id FROM outbox WHERE published_at IS NOT NULL AND published_at < $1 ORDER BY published_at LIMIT $2
);

-- name: webhook_messages_prune
-- params: $1 before, $2 limit
DELETE FROM webhook_messages WHERE seq IN (
  SELECT seq FROM webhook_messages WHERE delivered_at IS NOT NULL AND delivered_at < $1 ORDER BY delivered_at LIMIT $2
);

-- name: webhook_endpoints_claim
-- params: $1 now, $2 owner, $3 lease_until, $4 limit
UPDATE webhook_endpoints e SET lease_owner = $2, lease_until = $3
WHERE e.id IN (
  SELECT c.id FROM webhook_endpoints c
  WHERE c.status = 'active'
    AND (c.next_attempt_at IS NULL OR c.next_attempt_at <= $1)
    AND (c.lease_until IS NULL OR c.lease_until <= $1)
    AND EXISTS (SELECT 1 FROM webhook_messages m WHERE m.endpoint_id = c.id AND m.delivered_at IS NULL AND m.next_attempt_at <= $1)
  ORDER BY c.next_attempt_at NULLS FIRST, c.id
  LIMIT $4
  FOR UPDATE SKIP LOCKED
)
RETURNING e.id, e.tenant_id, e.url, e.secret, e.previous_secret, e.previous_secret_until, e.failure_count, e.failing_since;

-- name: webhook_heads_due
-- params: $1 endpoint_id, $2 now, $3 limit
SELECT m.id, m.endpoint_id, m.notification_id, m.delivery_id, m.event_type, m.payload_json, m.event_at, m.attempts
FROM webhook_messages m
WHERE m.endpoint_id = $1 AND m.delivered_at IS NULL AND m.next_attempt_at <= $2
  AND NOT EXISTS (
    SELECT 1 FROM webhook_messages p
    WHERE p.endpoint_id = m.endpoint_id AND p.notification_id = m.notification_id AND p.delivered_at IS NULL AND p.seq < m.seq
  )
ORDER BY m.seq
LIMIT $3;

-- name: webhook_messages_record
-- params: $1 endpoint_id, $2 now, $3 ids[], $4 delivered[], $5 statuses[], $6 errors[], $7 next_attempt_ats[]
UPDATE webhook_messages m
SET attempts = m.attempts + 1, last_attempt_at = $2::bigint, last_status = r.status, last_error = r.error,
    delivered_at = CASE WHEN r.delivered THEN $2::bigint ELSE NULL END,
    next_attempt_at = CASE WHEN r.delivered THEN m.next_attempt_at ELSE COALESCE(r.next_at, m.next_attempt_at) END
FROM unnest($3::text[], $4::boolean[], $5::int[], $6::text[], $7::bigint[]) AS r(id, delivered, status, error, next_at)
WHERE m.endpoint_id = $1 AND m.id = r.id AND m.delivered_at IS NULL;

-- name: webhook_endpoint_healthy
-- params: $1 id, $2 owner, $3 now, $4 lease_until
UPDATE webhook_endpoints
SET failure_count = 0, failing_since = NULL, next_attempt_at = NULL, last_success_at = $3,
    lease_until = CASE WHEN lease_owner = $2 THEN $4::bigint ELSE lease_until END
WHERE id = $1;

-- name: webhook_endpoint_failing
-- params: $1 id, $2 owner, $3 now, $4 lease_until, $5 next_attempt_at, $6 status, $7 error
UPDATE webhook_endpoints
SET failure_count = failure_count + 1, failing_since = COALESCE(failing_since, $3), next_attempt_at = $5,
    last_failure_at = $3, last_failure_status = $6, last_failure_error = $7,
    lease_until = CASE WHEN lease_owner = $2 THEN $4::bigint ELSE lease_until END
WHERE id = $1 AND status = 'active';

-- name: webhook_endpoint_disable
-- params: $1 id, $2 now, $3 reason, $4 status, $5 error
UPDATE webhook_endpoints
SET status = 'disabled', disabled_reason = $3, disabled_at = $2,
    failure_count = failure_count + 1, failing_since = COALESCE(failing_since, $2),
    last_failure_at = $2, last_failure_status = $4, last_failure_error = $5,
    lease_owner = NULL, lease_until = NULL, updated_at = $2
WHERE id = $1 AND status = 'active';

-- name: webhook_endpoint_release
-- params: $1 id, $2 owner
UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2;
