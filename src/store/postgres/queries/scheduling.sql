-- A tenant's scheduling policy and the sends its frequency caps count (migration 0024,
-- docs/scheduling.md). The same statement names as the SQLite driver's scheduling.sql.

-- name: scheduling_policy_get
-- params: $1 tenant_id
SELECT policy_json, updated_at FROM scheduling_policies WHERE tenant_id = $1;

-- name: scheduling_policy_put
-- params: $1 tenant_id, $2 policy_json, $3 now
INSERT INTO scheduling_policies (tenant_id, policy_json, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (tenant_id) DO UPDATE SET policy_json = excluded.policy_json, updated_at = excluded.updated_at;

-- name: cap_lock
-- Serializes the takes of one (tenant, recipient, channel, purpose) until the transaction ends:
-- two workers taking the last slot of one recipient wait for each other, and the second sees the
-- first's row.
-- params: $1 lock_key
SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) IS NULL AS lock_key;

-- name: cap_send_of_delivery
-- params: $1 delivery_id
SELECT sent_at FROM cap_sends WHERE delivery_id = $1;

-- name: cap_sends_recent
-- The key's counted sends after $5 (the longest period back).
-- params: $1 tenant_id, $2 recipient_id, $3 channel, $4 purpose, $5 since
SELECT sent_at FROM cap_sends
WHERE tenant_id = $1 AND recipient_id = $2 AND channel = $3 AND purpose = $4 AND sent_at > $5
ORDER BY sent_at;

-- name: cap_sends_prune
-- The key's sends older than every period: no cap counts them any more.
-- params: $1 tenant_id, $2 recipient_id, $3 channel, $4 purpose, $5 before
DELETE FROM cap_sends WHERE tenant_id = $1 AND recipient_id = $2 AND channel = $3 AND purpose = $4 AND sent_at <= $5;

-- name: cap_send_insert
-- params: $1 delivery_id, $2 tenant_id, $3 recipient_id, $4 channel, $5 purpose, $6 now
INSERT INTO cap_sends (delivery_id, tenant_id, recipient_id, channel, purpose, sent_at) VALUES ($1, $2, $3, $4, $5, $6);
