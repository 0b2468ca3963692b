-- name: push_subscriptions_upsert
-- Registers a subscription, or updates it (a new target replaces the old; a deactivated one is active again).
-- Returns the row as stored.
-- params: @tenant_id, @recipient_id, @id, @type, @target, @target_hash, @now
INSERT INTO push_subscriptions (tenant_id, recipient_id, id, type, target, target_hash, created_at, updated_at)
VALUES (@tenant_id, @recipient_id, @id, @type, @target, @target_hash, @now, @now)
ON CONFLICT (tenant_id, recipient_id, id) DO UPDATE SET
  type = excluded.type, target = excluded.target, target_hash = excluded.target_hash, updated_at = excluded.updated_at,
  deactivated_at = NULL, deactivated_reason = NULL, deactivated_code = NULL
RETURNING *;

-- name: push_subscriptions_get
-- params: @tenant_id, @recipient_id, @id
SELECT * FROM push_subscriptions WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id AND id = @id;

-- name: push_subscriptions_remove
-- params: @tenant_id, @recipient_id, @id, @now
UPDATE push_subscriptions SET deactivated_at = @now, deactivated_reason = 'removed', deactivated_code = NULL, updated_at = @now
WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id AND id = @id AND deactivated_at IS NULL;

-- name: push_subscriptions_list
-- params: @tenant_id, @recipient_id
SELECT * FROM push_subscriptions WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id ORDER BY created_at, id;

-- name: push_subscriptions_active
-- params: @tenant_id, @recipient_id
SELECT id, type, target FROM push_subscriptions
WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id AND deactivated_at IS NULL
ORDER BY updated_at DESC, id;

-- name: push_subscriptions_deactivate
-- params: @tenant_id, @target_hash, @reason, @code, @now
UPDATE push_subscriptions SET deactivated_at = @now, deactivated_reason = @reason, deactivated_code = @code, updated_at = @now
WHERE tenant_id = @tenant_id AND target_hash = @target_hash AND deactivated_at IS NULL;

-- name: push_subscriptions_inactive
-- Of the given target hashes (a JSON array), those with subscriptions of the tenant but none active.
-- params: @tenant_id, @target_hashes
SELECT target_hash FROM push_subscriptions
WHERE tenant_id = @tenant_id AND target_hash IN (SELECT value FROM json_each(@target_hashes))
GROUP BY target_hash HAVING SUM(deactivated_at IS NULL) = 0;
