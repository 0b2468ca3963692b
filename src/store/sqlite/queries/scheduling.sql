-- A tenant's scheduling policy and the sends its frequency caps count (migration 0024,
-- docs/scheduling.md). The same statement names as the PostgreSQL driver's scheduling.sql.

-- name: scheduling_policy_get
-- params: @tenant_id
SELECT policy_json, updated_at FROM scheduling_policies WHERE tenant_id = @tenant_id;

-- name: scheduling_policy_put
-- params: @tenant_id, @policy_json, @now
INSERT INTO scheduling_policies (tenant_id, policy_json, updated_at) VALUES (@tenant_id, @policy_json, @now)
ON CONFLICT (tenant_id) DO UPDATE SET policy_json = excluded.policy_json, updated_at = excluded.updated_at;

-- name: cap_lock
-- Serializes the takes of one (tenant, recipient, channel, purpose). On SQLite the caller's
-- BEGIN IMMEDIATE already holds the one write lock, so this only names the key (PostgreSQL takes
-- a transaction-scoped advisory lock here).
-- params: @lock_key
SELECT @lock_key AS lock_key;

-- name: cap_send_of_delivery
-- params: @delivery_id
SELECT sent_at FROM cap_sends WHERE delivery_id = @delivery_id;

-- name: cap_sends_recent
-- The key's counted sends after @since (the longest period back).
-- params: @tenant_id, @recipient_id, @channel, @purpose, @since
SELECT sent_at FROM cap_sends
WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id AND channel = @channel AND purpose = @purpose AND sent_at > @since
ORDER BY sent_at;

-- name: cap_sends_prune
-- The key's sends older than every period: no cap counts them any more.
-- params: @tenant_id, @recipient_id, @channel, @purpose, @before
DELETE FROM cap_sends
WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id AND channel = @channel AND purpose = @purpose AND sent_at <= @before;

-- name: cap_send_insert
-- params: @delivery_id, @tenant_id, @recipient_id, @channel, @purpose, @now
INSERT INTO cap_sends (delivery_id, tenant_id, recipient_id, channel, purpose, sent_at)
VALUES (@delivery_id, @tenant_id, @recipient_id, @channel, @purpose, @now);
