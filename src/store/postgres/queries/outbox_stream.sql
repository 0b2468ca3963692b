-- name: outbox_stream_read
-- A tenant's events after a stream's last id (the primary key walks ids; the tenant is a filter).
-- params: $1 tenant_id, $2 after_id, $3 limit
SELECT id, event_type, notification_id, delivery_id, payload_json, created_at FROM outbox
WHERE id > $2 AND tenant_id = $1 ORDER BY id LIMIT $3;

-- name: outbox_stream_last_id
-- params: none
SELECT COALESCE(MAX(id), 0) AS id FROM outbox;
