-- Channel fallback: later channels wait in pending_fallbacks until their turn.

-- name: notification_set_fallback
-- params: $1 id, $2 fallback_after_ms, $3 fallback_evidence
UPDATE notifications SET fallback_after_ms = $2, fallback_evidence = $3 WHERE id = $1;

-- name: fallback_insert
-- params: $1 notification_id, $2 positions[], $3 delivery_ids[], $4 tenant_id, $5 channels[], $6 provider_accounts[],
--         $7 destinations[], $8 idempotency_keys[], $9 due_ats[]
INSERT INTO pending_fallbacks (notification_id, position, delivery_id, tenant_id, channel, provider_account, destination,
                               idempotency_key, due_at)
SELECT $1, f.position, f.delivery_id, $4, f.channel, f.provider_account, f.destination, f.idempotency_key, f.due_at
FROM unnest($2::int[], $3::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[])
     AS f(position, delivery_id, channel, provider_account, destination, idempotency_key, due_at);

-- name: fallbacks_due
-- params: $1 now, $2 limit
SELECT f.notification_id, f.position, f.tenant_id, f.channel, f.provider_account, f.due_at,
       n.expires_at, n.fallback_evidence, n.fallback_after_ms,
       d.state AS previous_state, d.downstream_status AS previous_downstream
FROM pending_fallbacks f
JOIN notifications n ON n.id = f.notification_id
JOIN deliveries d ON d.notification_id = f.notification_id AND d.position = f.position - 1
WHERE f.due_at IS NOT NULL
  AND (f.due_at <= $1 OR d.state = 'terminal' OR d.downstream_status IN ('bounced', 'failed'))
ORDER BY f.due_at
LIMIT $2;

-- name: fallback_take
-- params: $1 notification_id, $2 position
DELETE FROM pending_fallbacks WHERE notification_id = $1 AND position = $2
RETURNING delivery_id, tenant_id, channel, provider_account, destination, idempotency_key;

-- name: fallback_delivery_insert
-- params: $1 id, $2 notification_id, $3 tenant_id, $4 position, $5 channel, $6 provider_account, $7 destination,
--         $8 idempotency_key, $9 now
INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination,
                        idempotency_key, state, next_attempt_at, expires_at, created_at, updated_at)
SELECT $1, n.id, $3, $4, $5, n.purpose, $6, $7, $8, 'ready', $9, n.expires_at, $9, $9
FROM notifications n WHERE n.id = $2;

-- name: fallback_schedule_next
-- params: $1 notification_id, $2 position, $3 due_at
UPDATE pending_fallbacks SET due_at = $3 WHERE notification_id = $1 AND position = $2;

-- name: fallbacks_drop
-- params: $1 notification_id
DELETE FROM pending_fallbacks WHERE notification_id = $1;

-- name: fallbacks_drop_older
-- params: $1 tenant_id, $2 group_key, $3 generation
DELETE FROM pending_fallbacks WHERE notification_id IN (
  SELECT id FROM notifications WHERE tenant_id = $1 AND group_key = $2 AND generation < $3);

-- name: notification_set_ladder
-- params: $1 id, $2 retry_ladder
UPDATE notifications SET retry_ladder = $2 WHERE id = $1;

-- name: notification_set_pinned
-- The channels whose account the producer named (a JSON array): those deliveries never fail over.
-- params: $1 id, $2 pinned_channels
UPDATE notifications SET pinned_channels = $2 WHERE id = $1;
