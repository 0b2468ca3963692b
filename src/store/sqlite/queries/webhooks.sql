-- Customer webhooks: endpoints, the outbox relay's fan-out into messages, and the sender's
-- claim / heads / record statements. See src/store/webhook-store.ts for the contract.

-- name: webhook_endpoint_insert
-- params: @id, @tenant_id, @url, @description, @event_types_json, @secret, @now
INSERT INTO webhook_endpoints (id, tenant_id, url, description, event_types_json, secret, status, created_at, updated_at)
VALUES (@id, @tenant_id, @url, @description, @event_types_json, @secret, 'active', @now, @now);

-- name: webhook_endpoints_list
-- Every column but the secrets, with message counts.
-- params: @tenant_id, @id (NULL: every endpoint of the tenant)
SELECT e.id, e.tenant_id, e.url, e.description, e.event_types_json, e.status, e.disabled_reason, e.disabled_at,
       e.previous_secret_until, e.failure_count, e.failing_since, e.next_attempt_at, e.last_failure_at,
       e.last_failure_status, e.last_failure_error, e.last_success_at, e.created_at, e.updated_at,
       (SELECT COUNT(*) FROM webhook_messages m WHERE m.endpoint_id = e.id AND m.delivered_at IS NULL) AS pending,
       (SELECT COUNT(*) FROM webhook_messages m WHERE m.endpoint_id = e.id AND m.delivered_at IS NOT NULL) AS delivered
FROM webhook_endpoints e
WHERE e.tenant_id = @tenant_id AND (@id IS NULL OR e.id = @id)
ORDER BY e.id;

-- name: webhook_endpoint_delete
-- Its messages go with it (ON DELETE CASCADE).
-- params: @tenant_id, @id
DELETE FROM webhook_endpoints WHERE id = @id AND tenant_id = @tenant_id;

-- name: webhook_endpoint_rotate
-- params: @tenant_id, @id, @secret, @previous_until, @now
UPDATE webhook_endpoints
SET previous_secret = secret, previous_secret_until = @previous_until, secret = @secret, updated_at = @now
WHERE id = @id AND tenant_id = @tenant_id;

-- name: webhook_endpoint_enable
-- params: @tenant_id, @id, @now
UPDATE webhook_endpoints
SET status = 'active', disabled_reason = NULL, disabled_at = NULL, failure_count = 0, failing_since = NULL,
    next_attempt_at = NULL, updated_at = @now
WHERE id = @id AND tenant_id = @tenant_id;

-- name: webhook_messages_due_now
-- params: @endpoint_id, @now
UPDATE webhook_messages SET next_attempt_at = @now
WHERE endpoint_id = @endpoint_id AND delivered_at IS NULL AND next_attempt_at > @now;

-- name: outbox_relay_bounds
-- The relay's batch: the lowest unpublished ids. One writer at a time, so `id <= last_id AND
-- published_at IS NULL` names exactly these rows for the rest of the transaction.
-- params: @limit
SELECT COUNT(*) AS n, MAX(id) AS last_id
FROM (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT @limit);

-- name: outbox_relay
-- One message per (batch row, active endpoint of its tenant subscribed to its type), in
-- outbox id order so seq follows it.
-- params: @last_id, @now
INSERT INTO webhook_messages (id, endpoint_id, tenant_id, outbox_id, notification_id, delivery_id, event_type,
                              payload_json, event_at, next_attempt_at, created_at)
SELECT 'msg_' || lower(hex(randomblob(16))), e.id, o.tenant_id, o.id, o.notification_id, o.delivery_id, o.event_type,
       o.payload_json, o.created_at, @now, @now
FROM outbox o
JOIN webhook_endpoints e ON e.tenant_id = o.tenant_id AND e.status = 'active'
WHERE o.published_at IS NULL AND o.id <= @last_id
  AND EXISTS (SELECT 1 FROM json_each(e.event_types_json) t WHERE t.value IN (o.event_type, '*'))
ORDER BY o.id, e.id
ON CONFLICT (endpoint_id, outbox_id) DO NOTHING;

-- name: outbox_mark_published
-- params: @last_id, @now
UPDATE outbox SET published_at = @now WHERE published_at IS NULL AND id <= @last_id;

-- name: outbox_prune
-- params: @before, @limit
DELETE FROM outbox WHERE id IN (
  SELECT id FROM outbox WHERE published_at IS NOT NULL AND published_at < @before ORDER BY published_at LIMIT @limit
);

-- name: webhook_messages_prune
-- params: @before, @limit
DELETE FROM webhook_messages WHERE seq IN (
  SELECT seq FROM webhook_messages WHERE delivered_at IS NOT NULL AND delivered_at < @before ORDER BY delivered_at LIMIT @limit
);

-- name: webhook_endpoints_claim
-- params: @now, @owner, @lease_until, @limit
UPDATE webhook_endpoints SET lease_owner = @owner, lease_until = @lease_until
WHERE id IN (
  SELECT c.id FROM webhook_endpoints c
  WHERE c.status = 'active'
    AND (c.next_attempt_at IS NULL OR c.next_attempt_at <= @now)
    AND (c.lease_until IS NULL OR c.lease_until <= @now)
    AND EXISTS (SELECT 1 FROM webhook_messages m WHERE m.endpoint_id = c.id AND m.delivered_at IS NULL AND m.next_attempt_at <= @now)
  ORDER BY c.next_attempt_at, c.id
  LIMIT @limit
)
RETURNING id, tenant_id, url, secret, previous_secret, previous_secret_until, failure_count, failing_since;

-- name: webhook_heads_due
-- params: @endpoint_id, @now, @limit
SELECT m.id, m.endpoint_id, m.notification_id, m.delivery_id, m.event_type, m.payload_json, m.event_at, m.attempts
FROM webhook_messages m
WHERE m.endpoint_id = @endpoint_id AND m.delivered_at IS NULL AND m.next_attempt_at <= @now
  AND NOT EXISTS (
    SELECT 1 FROM webhook_messages p
    WHERE p.endpoint_id = m.endpoint_id AND p.notification_id = m.notification_id AND p.delivered_at IS NULL AND p.seq < m.seq
  )
ORDER BY m.seq
LIMIT @limit;

-- name: webhook_messages_record
-- params: @endpoint_id, @id, @now, @delivered (0/1), @status, @error, @next_attempt_at
UPDATE webhook_messages
SET attempts = attempts + 1, last_attempt_at = @now, last_status = @status, last_error = @error,
    delivered_at = CASE WHEN @delivered = 1 THEN @now ELSE NULL END,
    next_attempt_at = CASE WHEN @delivered = 1 THEN next_attempt_at ELSE COALESCE(@next_attempt_at, next_attempt_at) END
WHERE endpoint_id = @endpoint_id AND id = @id AND delivered_at IS NULL;

-- name: webhook_endpoint_healthy
-- params: @id, @owner, @now, @lease_until
UPDATE webhook_endpoints
SET failure_count = 0, failing_since = NULL, next_attempt_at = NULL, last_success_at = @now,
    lease_until = CASE WHEN lease_owner = @owner THEN @lease_until ELSE lease_until END
WHERE id = @id;

-- name: webhook_endpoint_failing
-- params: @id, @owner, @now, @lease_until, @next_attempt_at, @status, @error
UPDATE webhook_endpoints
SET failure_count = failure_count + 1, failing_since = COALESCE(failing_since, @now), next_attempt_at = @next_attempt_at,
    last_failure_at = @now, last_failure_status = @status, last_failure_error = @error,
    lease_until = CASE WHEN lease_owner = @owner THEN @lease_until ELSE lease_until END
WHERE id = @id AND status = 'active';

-- name: webhook_endpoint_disable
-- params: @id, @now, @reason, @status, @error
UPDATE webhook_endpoints
SET status = 'disabled', disabled_reason = @reason, disabled_at = @now,
    failure_count = failure_count + 1, failing_since = COALESCE(failing_since, @now),
    last_failure_at = @now, last_failure_status = @status, last_failure_error = @error,
    lease_owner = NULL, lease_until = NULL, updated_at = @now
WHERE id = @id AND status = 'active';

-- name: webhook_endpoint_release
-- params: @id, @owner
UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = @id AND lease_owner = @owner;
