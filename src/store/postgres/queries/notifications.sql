-- name: notification_get
-- params: $1 tenant_id, $2 id
SELECT id, tenant_id, recipient_id, purpose, channels_json, group_key, generation, metadata_json, expires_at, created_at
FROM notifications WHERE id = $2 AND tenant_id = $1;

-- name: notification_create
-- The whole intake write as one statement (one round trip): notification, deliveries, outbox
-- event and the idempotency completion when a key is given. `completed` says whether the key's
-- reservation was still ours; the driver runs the statement inside BEGIN … COMMIT when a key is
-- given and rolls back if not. Returns the provider accounts to wake.
-- params: $1 id, $2 tenant_id, $3 recipient_id, $4 recipient_json, $5 purpose, $6 channels_json, $7 content_json,
--         $8 group_key, $9 generation, $10 metadata_json, $11 expires_at, $12 created_at,
--         $13 delivery ids[], $14 positions[], $15 channels[], $16 provider_accounts[], $17 destinations[],
--         $18 idempotency_keys[], $19 outbox payload_json,
--         $20 idempotency key (NULL = none), $21 fingerprint, $22 response_status, $23 response_body, $24 key's tenant_id
WITH n AS (
  INSERT INTO notifications (id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json,
                             group_key, generation, metadata_json, expires_at, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
  RETURNING id
),
d AS (
  INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination,
                          idempotency_key, state, next_attempt_at, expires_at, created_at, updated_at)
  SELECT d.id, n.id, $2, d.position, d.channel, $5, d.provider_account, d.destination, d.idempotency_key,
         'ready', $12, $11, $12, $12
  FROM n, unnest($13::text[], $14::int[], $15::text[], $16::text[], $17::text[], $18::text[])
       AS d(id, position, channel, provider_account, destination, idempotency_key)
  RETURNING provider_account
),
o AS (
  INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
  SELECT $2, n.id, NULL, 'notification.created', $19, $12 FROM n
),
k AS (
  UPDATE idempotency_keys
  SET status = 'completed', response_status = $22, response_body = $23
  WHERE $20::text IS NOT NULL AND tenant_id = $24 AND key = $20 AND status = 'in_progress' AND fingerprint = $21
  RETURNING 1
)
SELECT ($20::text IS NULL OR EXISTS (SELECT 1 FROM k)) AS completed,
       (SELECT array_agg(DISTINCT provider_account) FROM d) AS accounts;

-- name: ready_notify
-- Wakes workers listening on the schema's ready channel. Sent after the intake commit, in its own
-- transaction: a transaction that NOTIFYs holds PostgreSQL's database-wide notify lock through its
-- commit, WAL flush included, so NOTIFY inside every intake transaction made intake commits take
-- turns instead of sharing flushes. This one does not wait for its flush (synchronous_commit off
-- for this transaction only): a wake-up lost to a crash costs a poll interval, never data.
-- params: $1 channel, $2 provider_account
SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2);
