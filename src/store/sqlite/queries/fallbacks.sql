-- Channel fallback: later channels wait in pending_fallbacks until their turn.

-- name: notification_set_fallback
-- params: @id, @fallback_after_ms, @fallback_evidence
UPDATE notifications SET fallback_after_ms = @fallback_after_ms, fallback_evidence = @fallback_evidence WHERE id = @id;

-- name: fallback_insert
-- params: @notification_id, @position, @delivery_id, @tenant_id, @channel, @provider_account, @destination,
--         @idempotency_key, @due_at
INSERT INTO pending_fallbacks (notification_id, position, delivery_id, tenant_id, channel, provider_account, destination,
                               idempotency_key, due_at)
VALUES (@notification_id, @position, @delivery_id, @tenant_id, @channel, @provider_account, @destination,
        @idempotency_key, @due_at);

-- name: fallbacks_due
-- Fallbacks whose deadline passed, or whose previous channel already ended (it can never get
-- through), with what the decision needs.
-- params: @now, @limit
SELECT f.notification_id, f.position, f.tenant_id, f.channel, f.provider_account, f.due_at,
       n.expires_at, n.fallback_evidence, n.fallback_after_ms,
       d.state AS previous_state, d.downstream_status AS previous_downstream
FROM pending_fallbacks f
JOIN notifications n ON n.id = f.notification_id
JOIN deliveries d ON d.notification_id = f.notification_id AND d.position = f.position - 1
WHERE f.due_at IS NOT NULL
  AND (f.due_at <= @now OR d.state = 'terminal' OR d.downstream_status IN ('bounced', 'failed'))
ORDER BY f.due_at
LIMIT @limit;

-- name: fallback_take
-- Removes one pending fallback and returns it; no row = another sweeper took it first.
-- params: @notification_id, @position
DELETE FROM pending_fallbacks WHERE notification_id = @notification_id AND position = @position
RETURNING delivery_id, tenant_id, channel, provider_account, destination, idempotency_key;

-- name: fallback_delivery_insert
-- The fallback becomes a ready delivery of its notification, with the notification's expiry.
-- params: @id, @notification_id, @tenant_id, @position, @channel, @provider_account, @destination, @idempotency_key, @now
INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination,
                        idempotency_key, state, next_attempt_at, expires_at, created_at, updated_at)
SELECT @id, n.id, @tenant_id, @position, @channel, n.purpose, @provider_account, @destination,
       @idempotency_key, 'ready', @now, n.expires_at, @now, @now
FROM notifications n WHERE n.id = @notification_id;

-- name: fallback_schedule_next
-- The channel after the one just created gets its deadline.
-- params: @notification_id, @position, @due_at
UPDATE pending_fallbacks SET due_at = @due_at WHERE notification_id = @notification_id AND position = @position;

-- name: fallbacks_drop
-- params: @notification_id
DELETE FROM pending_fallbacks WHERE notification_id = @notification_id;

-- name: fallbacks_drop_older
-- A newer generation supersedes the older ones' planned channels too.
-- params: @tenant_id, @group_key, @generation
DELETE FROM pending_fallbacks WHERE notification_id IN (
  SELECT id FROM notifications WHERE tenant_id = @tenant_id AND group_key = @group_key AND generation < @generation);

-- name: notification_set_ladder
-- params: @id, @retry_ladder
UPDATE notifications SET retry_ladder = @retry_ladder WHERE id = @id;

-- name: notification_set_pinned
-- The channels whose account the producer named (a JSON array): those deliveries never fail over.
-- params: @id, @pinned_channels
UPDATE notifications SET pinned_channels = @pinned_channels WHERE id = @id;
