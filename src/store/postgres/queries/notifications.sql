-- name: notification_get
-- params: $1 tenant_id, $2 id
SELECT id, tenant_id, recipient_id, purpose, channels_json, content_json, group_key, generation, metadata_json, expires_at, created_at
FROM notifications WHERE id = $2 AND tenant_id = $1;

-- name: notification_create
-- The whole intake write as one statement (one round trip): notification, deliveries, outbox
-- event and the idempotency completion when a key is given. `completed` says whether the key's
-- reservation was still ours; the driver runs the statement inside BEGIN … COMMIT when a key is
-- given and rolls back if not. Returns the provider accounts to wake.
-- params: $1 id, $2 tenant_id, $3 recipient_id, $4 recipient_json, $5 purpose, $6 channels_json, $7 content_json,
--         $8 group_key, $9 generation, $10 metadata_json, $11 expires_at, $12 created_at,
--         $13 delivery_ids[], $14 positions[], $15 channels[], $16 provider_accounts[], $17 destinations[],
--         $18 idempotency_keys[], $19 outbox_payload_json,
--         $20 key (NULL: no idempotency key), $21 fingerprint, $22 response_status, $23 response_body, $24 key_tenant_id,
--         $25 due_at (the deliveries' next_attempt_at: send_at, else created_at)
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
         'ready', $25, $11, $12, $12
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

-- name: notification_create_many
-- Many notifications in one statement (group commit): the same rows as notification_create for
-- each. `completed` counts the idempotency reservations completed (`completed_tenants` and
-- `completed_keys` name them, pairwise, so a batch can tell which reservation was taken over); the
-- driver runs the statement inside BEGIN … COMMIT when keys are given and rolls back unless every
-- one was still reserved.
-- params: $1 ids[], $2 tenant_ids[], $3 recipient_ids[], $4 recipient_jsons[], $5 purposes[], $6 channels_jsons[],
--         $7 content_jsons[], $8 group_keys[], $9 generations[], $10 metadata_jsons[], $11 expires_ats[], $12 created_ats[],
--         $13 delivery_ids[], $14 delivery_notification_ids[], $15 positions[], $16 channels[], $17 provider_accounts[],
--         $18 destinations[], $19 idempotency_keys[], $20 outbox_payloads[] (one per notification),
--         $21 key_tenant_ids[], $22 keys[], $23 fingerprints[], $24 response_statuses[], $25 response_bodies[],
--         $26 campaign_id (NULL: intake), $27 due_ats[] (one per notification: send_at, else created_at)
-- The campaign ($26) is one for every delivery: a campaign's fan-out names it here instead of
-- updating each delivery afterwards: that update rewrote every row and every one of its index
-- entries (campaign_id is indexed, so it was never a HOT update).
WITH nn AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                       $9::int[], $10::text[], $11::bigint[], $12::bigint[], $20::text[], $27::bigint[])
    AS nn(id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json, group_key,
          generation, metadata_json, expires_at, created_at, payload, due_at)
),
n AS (
  INSERT INTO notifications (id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json,
                             group_key, generation, metadata_json, expires_at, created_at)
  SELECT id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json,
         group_key, generation, metadata_json, expires_at, created_at
  FROM nn
),
d AS (
  INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination,
                          idempotency_key, state, next_attempt_at, expires_at, created_at, updated_at, campaign_id)
  SELECT d.id, nn.id, nn.tenant_id, d.position, d.channel, nn.purpose, d.provider_account, d.destination, d.idempotency_key,
         'ready', nn.due_at, nn.expires_at, nn.created_at, nn.created_at, $26::text
  FROM unnest($13::text[], $14::text[], $15::int[], $16::text[], $17::text[], $18::text[], $19::text[])
       AS d(id, notification_id, position, channel, provider_account, destination, idempotency_key)
  JOIN nn ON nn.id = d.notification_id
  RETURNING provider_account
),
o AS (
  INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
  SELECT tenant_id, id, NULL, 'notification.created', payload, created_at FROM nn
),
k AS (
  UPDATE idempotency_keys ik
  SET status = 'completed', response_status = w.response_status, response_body = w.response_body
  FROM unnest($21::text[], $22::text[], $23::text[], $24::int[], $25::text[])
       AS w(tenant_id, key, fingerprint, response_status, response_body)
  WHERE ik.tenant_id = w.tenant_id AND ik.key = w.key AND ik.status = 'in_progress' AND ik.fingerprint = w.fingerprint
  RETURNING ik.tenant_id, ik.key
)
SELECT (SELECT count(*) FROM k) AS completed,
       (SELECT array_agg(tenant_id) FROM k) AS completed_tenants,
       (SELECT array_agg(key) FROM k) AS completed_keys,
       (SELECT array_agg(DISTINCT provider_account) FROM d) AS accounts;

-- name: ready_notify
-- Wakes workers listening on the schema's ready channel. Sent after the intake commit, in its own
-- transaction: a transaction that NOTIFYs holds PostgreSQL's database-wide notify lock through its
-- commit, WAL flush included, so NOTIFY inside every intake transaction made intake commits take
-- turns instead of sharing flushes. This one does not wait for its flush (synchronous_commit off
-- for this transaction only): a wake-up lost to a crash costs a poll interval, never data.
-- params: $1 channel, $2 provider_account
SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2);

-- name: outbox_insert
-- One event (e.g. a fallback delivery created by the scheduler).
-- params: $1 tenant_id, $2 notification_id, $3 delivery_id, $4 event_type, $5 payload_json, $6 now
INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
VALUES ($1, $2, $3, $4, $5, $6);

-- name: notification_create_many_keyed
-- A batch's own-group notifications with their idempotency keys taken in the same statement (POST
-- /v1/notifications/batch; no reservation beforehand): each key is inserted already `completed`
-- with the item's response (one write of the key row, no commit of its own), and an item is
-- written only if its key was inserted here. A key that exists (a replay, another body, a request
-- in progress, an expired row) is left alone with its item, which the driver then decides on its
-- own. Run inside the batch's transaction; keys in (tenant, key) order, so two batches naming the
-- same keys wait for each other instead of deadlocking. Returns the keys taken and the accounts.
-- params: $1 ids[], $2 tenant_ids[], $3 recipient_ids[], $4 recipient_jsons[], $5 purposes[], $6 channels_jsons[],
--         $7 content_jsons[], $8 group_keys[], $9 generations[], $10 metadata_jsons[], $11 expires_ats[], $12 created_ats[],
--         $13 delivery_ids[], $14 delivery_notification_ids[], $15 positions[], $16 channels[], $17 provider_accounts[],
--         $18 destinations[], $19 idempotency_keys[], $20 outbox_payloads[] (one per notification),
--         $21 key_tenant_ids[] (one per notification, NULL: no key), $22 keys[], $23 fingerprints[],
--         $24 response_statuses[], $25 response_bodies[], $26 locked_until, $27 now, $28 key_expires_at,
--         $29 due_ats[] (one per notification: send_at, else created_at)
WITH w AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                       $9::int[], $10::text[], $11::bigint[], $12::bigint[], $20::text[],
                       $21::text[], $22::text[], $23::text[], $24::int[], $25::text[], $29::bigint[]) WITH ORDINALITY
    AS w(id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json, group_key,
         generation, metadata_json, expires_at, created_at, payload,
         key_tenant_id, key, fingerprint, response_status, response_body, due_at, ord)
),
k AS (
  INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status, response_status, response_body, locked_until, created_at, expires_at)
  SELECT key_tenant_id, key, fingerprint, 'completed', response_status, response_body, $26, $27, $28
  FROM w WHERE key IS NOT NULL ORDER BY ord
  ON CONFLICT (tenant_id, key) DO NOTHING
  RETURNING tenant_id, key
),
nn AS (
  SELECT w.* FROM w
  WHERE w.key IS NULL OR EXISTS (SELECT 1 FROM k WHERE k.tenant_id = w.key_tenant_id AND k.key = w.key)
),
n AS (
  INSERT INTO notifications (id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json,
                             group_key, generation, metadata_json, expires_at, created_at)
  SELECT id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json,
         group_key, generation, metadata_json, expires_at, created_at
  FROM nn
),
d AS (
  INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination,
                          idempotency_key, state, next_attempt_at, expires_at, created_at, updated_at)
  SELECT d.id, nn.id, nn.tenant_id, d.position, d.channel, nn.purpose, d.provider_account, d.destination, d.idempotency_key,
         'ready', nn.due_at, nn.expires_at, nn.created_at, nn.created_at
  FROM unnest($13::text[], $14::text[], $15::int[], $16::text[], $17::text[], $18::text[], $19::text[])
       AS d(id, notification_id, position, channel, provider_account, destination, idempotency_key)
  JOIN nn ON nn.id = d.notification_id
  RETURNING provider_account
),
o AS (
  INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
  SELECT tenant_id, id, NULL, 'notification.created', payload, created_at FROM nn
)
SELECT (SELECT array_agg(tenant_id) FROM k) AS taken_tenants,
       (SELECT array_agg(key) FROM k) AS taken_keys,
       (SELECT array_agg(DISTINCT provider_account) FROM d) AS accounts;
