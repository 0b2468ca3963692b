-- name: notification_reports_insert
-- Inserts only when the notification is the tenant's.
-- params: @id, @tenant_id, @notification_id, @kind, @channel, @note, @reported_by, @now
INSERT INTO notification_reports (id, tenant_id, notification_id, kind, channel, note, reported_by, created_at)
SELECT @id, @tenant_id, @notification_id, @kind, @channel, @note, @reported_by, @now
WHERE EXISTS (SELECT 1 FROM notifications WHERE id = @notification_id AND tenant_id = @tenant_id);

-- name: notification_reports_list
-- params: @tenant_id, @notification_id
SELECT id, notification_id, kind, channel, note, reported_by, created_at FROM notification_reports
WHERE tenant_id = @tenant_id AND notification_id = @notification_id ORDER BY created_at, id;
