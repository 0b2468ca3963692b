-- name: notification_insert
-- params: @id, @tenant_id, @recipient_id, @recipient_json, @purpose, @channels_json, @content_json,
--         @group_key, @generation, @metadata_json, @expires_at, @created_at
INSERT INTO notifications (id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json,
                           group_key, generation, metadata_json, expires_at, created_at)
VALUES (@id, @tenant_id, @recipient_id, @recipient_json, @purpose, @channels_json, @content_json,
        @group_key, @generation, @metadata_json, @expires_at, @created_at);

-- name: notification_get
-- params: @tenant_id, @id
SELECT id, tenant_id, recipient_id, purpose, channels_json, content_json, group_key, generation, metadata_json, expires_at, created_at
FROM notifications WHERE id = @id AND tenant_id = @tenant_id;

-- name: outbox_insert
-- params: @tenant_id, @notification_id, @delivery_id, @event_type, @payload_json, @now
INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
VALUES (@tenant_id, @notification_id, @delivery_id, @event_type, @payload_json, @now);
