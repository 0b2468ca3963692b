-- A tenant's scheduling policy and the sends its frequency caps count (migration 0024,
-- docs/scheduling.md). The same statement names as the SQLite driver's scheduling.sql.

-- name: scheduling_policy_get
-- params: $1 tenant_id
SELECT policy_json, updated_at FROM scheduling_policies WHERE tenant_id = $1;

-- name: scheduling_policy_put
-- params: $1 tenant_id, $2 policy_json, $3 now
INSERT INTO scheduling_policies (tenant_id, policy_json, updated_at) VALUES ($1, $2, $3)
ON CONFLICT (tenant_id) DO UPDATE SET policy_json = excluded.policy_json, updated_at = excluded.updated_at;

-- name: cap_locks
-- Serializes the takes of each (tenant, recipient, channel, purpose) until the transaction ends:
-- two workers taking the last slot of one recipient wait for each other, and the second sees the
-- first's row. The keys come sorted (every worker locks in one order: no deadlock cycle) and are
-- locked in the array's order.
-- params: $1 lock_keys
SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) AS locked FROM unnest($1::text[]) AS k;

-- name: cap_sends_of_keys
-- The counted sends of each key ($1..$4 zipped), each with its delivery.
-- params: $1 tenant_ids, $2 recipient_ids, $3 channels, $4 purposes
SELECT c.tenant_id, c.recipient_id, c.channel, c.purpose, c.delivery_id, c.sent_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS k(tenant_id, recipient_id, channel, purpose)
JOIN cap_sends c ON c.tenant_id = k.tenant_id AND c.recipient_id = k.recipient_id AND c.channel = k.channel AND c.purpose = k.purpose
ORDER BY c.sent_at;

-- name: cap_sends_prune
-- The key's sends older than every period: no cap counts them any more.
-- params: $1 tenant_id, $2 recipient_id, $3 channel, $4 purpose, $5 before
DELETE FROM cap_sends WHERE tenant_id = $1 AND recipient_id = $2 AND channel = $3 AND purpose = $4 AND sent_at <= $5;

-- name: cap_sends_insert
-- The batch's new slots ($1..$6 zipped).
-- params: $1 delivery_ids, $2 tenant_ids, $3 recipient_ids, $4 channels, $5 purposes, $6 sent_ats
INSERT INTO cap_sends (delivery_id, tenant_id, recipient_id, channel, purpose, sent_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]);

-- name: attempt_withdraw
-- A deferral is not an attempt: the claim's open attempt row goes (no call was made).
-- params: $1 delivery_id, $2 number
DELETE FROM attempts WHERE delivery_id = $1 AND number = $2 AND outcome IS NULL;

-- name: delivery_hold
-- The send-time check's reason on the delivery, and the claim's attempt count taken back when its
-- attempt was withdrawn ($3 1), so the next claim numbers its attempt the same.
-- params: $1 id, $2 hold_reason, $3 withdrawn
UPDATE deliveries SET hold_reason = $2, attempt_count = attempt_count - $3::int WHERE id = $1;
