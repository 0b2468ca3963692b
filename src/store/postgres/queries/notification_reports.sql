-- name: notification_reports_insert
-- Inserts only when the notification is the tenant's.
-- params: $1 id, $2 tenant_id, $3 notification_id, $4 kind, $5 channel, $6 note, $7 reported_by, $8 now
INSERT INTO notification_reports (id, tenant_id, notification_id, kind, channel, note, reported_by, created_at)
SELECT $1, $2, $3, $4, $5, $6, $7, $8
WHERE EXISTS (SELECT 1 FROM notifications WHERE id = $3 AND tenant_id = $2);

-- name: notification_reports_list
-- params: $1 tenant_id, $2 notification_id
SELECT id, notification_id, kind, channel, note, reported_by, created_at FROM notification_reports
WHERE tenant_id = $1 AND notification_id = $2 ORDER BY created_at, id;
