-- name: outbox_stream_read
-- A tenant's events after a stream's last id (the primary key walks ids; the tenant is a filter).
-- params: @tenant_id, @after_id, @limit
SELECT id, event_type, notification_id, delivery_id, payload_json, created_at FROM outbox
WHERE id > @after_id AND tenant_id = @tenant_id ORDER BY id LIMIT @limit;

-- name: outbox_stream_last_id
-- params: none
SELECT COALESCE(MAX(id), 0) AS id FROM outbox;
