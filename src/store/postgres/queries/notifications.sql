-- name: notification_insert
-- params: $1 id, $2 tenant_id, $3 recipient_id, $4 recipient_json, $5 purpose, $6 channels_json, $7 content_json,
--         $8 group_key, $9 generation, $10 metadata_json, $11 expires_at, $12 created_at
INSERT INTO notifications (id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json,
                           group_key, generation, metadata_json, expires_at, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);

-- name: notification_get
-- params: $1 tenant_id, $2 id
SELECT id, tenant_id, recipient_id, purpose, channels_json, group_key, generation, metadata_json, expires_at, created_at
FROM notifications WHERE id = $2 AND tenant_id = $1;

-- name: outbox_insert
-- params: $1 tenant_id, $2 notification_id, $3 delivery_id, $4 event_type, $5 payload_json, $6 now
INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
VALUES ($1, $2, $3, $4, $5, $6);

-- name: ready_notify
-- Wakes workers listening on the schema's ready channel; delivered when the transaction commits.
-- params: $1 channel, $2 provider_account
SELECT pg_notify($1, $2);
