-- A tenant's scheduling policy and the sends its frequency caps count (migration 0024,
-- docs/scheduling.md). The same statement names as the PostgreSQL driver's scheduling.sql.

-- name: scheduling_policy_get
-- params: @tenant_id
SELECT policy_json, updated_at FROM scheduling_policies WHERE tenant_id = @tenant_id;

-- name: scheduling_policy_put
-- params: @tenant_id, @policy_json, @now
INSERT INTO scheduling_policies (tenant_id, policy_json, updated_at) VALUES (@tenant_id, @policy_json, @now)
ON CONFLICT (tenant_id) DO UPDATE SET policy_json = excluded.policy_json, updated_at = excluded.updated_at;

-- name: cap_locks
-- Serializes the takes of each (tenant, recipient, channel, purpose). On SQLite the caller's
-- BEGIN IMMEDIATE already holds the one write lock, so this only counts the keys (PostgreSQL
-- takes a transaction-scoped advisory lock on each here).
-- params: @lock_keys
SELECT count(*) AS locked FROM json_each(@lock_keys);

-- name: cap_sends_of_keys
-- The counted sends of each key (@tenant_ids .. @purposes zipped by position), each with its delivery.
-- params: @tenant_ids, @recipient_ids, @channels, @purposes
SELECT c.tenant_id, c.recipient_id, c.channel, c.purpose, c.delivery_id, c.sent_at
FROM json_each(@tenant_ids) t
JOIN json_each(@recipient_ids) r ON r.key = t.key
JOIN json_each(@channels) ch ON ch.key = t.key
JOIN json_each(@purposes) p ON p.key = t.key
JOIN cap_sends c ON c.tenant_id = t.value AND c.recipient_id = r.value AND c.channel = ch.value AND c.purpose = p.value
ORDER BY c.sent_at;

-- name: cap_sends_prune
-- The key's sends older than every period: no cap counts them any more.
-- params: @tenant_id, @recipient_id, @channel, @purpose, @before
DELETE FROM cap_sends
WHERE tenant_id = @tenant_id AND recipient_id = @recipient_id AND channel = @channel AND purpose = @purpose AND sent_at <= @before;

-- name: cap_sends_insert
-- The batch's new slots (@delivery_ids .. @sent_ats zipped by position).
-- params: @delivery_ids, @tenant_ids, @recipient_ids, @channels, @purposes, @sent_ats
INSERT INTO cap_sends (delivery_id, tenant_id, recipient_id, channel, purpose, sent_at)
SELECT d.value, t.value, r.value, ch.value, p.value, a.value
FROM json_each(@delivery_ids) d
JOIN json_each(@tenant_ids) t ON t.key = d.key
JOIN json_each(@recipient_ids) r ON r.key = d.key
JOIN json_each(@channels) ch ON ch.key = d.key
JOIN json_each(@purposes) p ON p.key = d.key
JOIN json_each(@sent_ats) a ON a.key = d.key;

-- name: attempt_withdraw
-- A deferral is not an attempt: the claim's open attempt row goes (no call was made).
-- params: @delivery_id, @number
DELETE FROM attempts WHERE delivery_id = @delivery_id AND number = @number AND outcome IS NULL;

-- name: delivery_hold
-- The send-time check's reason on the delivery, and the claim's attempt count taken back when its
-- attempt was withdrawn (@withdrawn 1), so the next claim numbers its attempt the same.
-- params: @id, @hold_reason, @withdrawn
UPDATE deliveries SET hold_reason = @hold_reason, attempt_count = attempt_count - @withdrawn WHERE id = @id;
