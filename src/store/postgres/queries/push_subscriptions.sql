-- name: push_subscriptions_upsert
-- Registers a subscription, or updates it (a new target replaces the old; a deactivated one is active again).
-- params: $1 tenant_id, $2 recipient_id, $3 id, $4 type, $5 target, $6 target_hash, $7 now
INSERT INTO push_subscriptions (tenant_id, recipient_id, id, type, target, target_hash, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
ON CONFLICT (tenant_id, recipient_id, id) DO UPDATE SET
  type = excluded.type, target = excluded.target, target_hash = excluded.target_hash, updated_at = excluded.updated_at,
  deactivated_at = NULL, deactivated_reason = NULL, deactivated_code = NULL
RETURNING *;

-- name: push_subscriptions_get
-- params: $1 tenant_id, $2 recipient_id, $3 id
SELECT * FROM push_subscriptions WHERE tenant_id = $1 AND recipient_id = $2 AND id = $3;

-- name: push_subscriptions_remove
-- params: $1 tenant_id, $2 recipient_id, $3 id, $4 now
UPDATE push_subscriptions SET deactivated_at = $4, deactivated_reason = 'removed', deactivated_code = NULL, updated_at = $4
WHERE tenant_id = $1 AND recipient_id = $2 AND id = $3 AND deactivated_at IS NULL;

-- name: push_subscriptions_list
-- params: $1 tenant_id, $2 recipient_id
SELECT * FROM push_subscriptions WHERE tenant_id = $1 AND recipient_id = $2 ORDER BY created_at, id;

-- name: push_subscriptions_active
-- params: $1 tenant_id, $2 recipient_id
SELECT id, type, target FROM push_subscriptions
WHERE tenant_id = $1 AND recipient_id = $2 AND deactivated_at IS NULL
ORDER BY updated_at DESC, id;

-- name: push_subscriptions_deactivate
-- params: $1 tenant_id, $2 target_hash, $3 reason, $4 code, $5 now
UPDATE push_subscriptions SET deactivated_at = $5, deactivated_reason = $3, deactivated_code = $4, updated_at = $5
WHERE tenant_id = $1 AND target_hash = $2 AND deactivated_at IS NULL;

-- name: push_subscriptions_inactive
-- Of the given target hashes, those with subscriptions of the tenant but none active.
-- params: $1 tenant_id, $2 target_hashes[]
SELECT target_hash FROM push_subscriptions
WHERE tenant_id = $1 AND target_hash = ANY($2::text[])
GROUP BY target_hash HAVING bool_and(deactivated_at IS NOT NULL);
