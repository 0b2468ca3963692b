-- 0032_scheduling_audit: PUT /v1/scheduling is audited (`scheduling_edit`), and the unused
-- notifications.recipient_time_zone goes (docs/scheduling.md, issue 28).

-- The send-time check reads a notification's own zone from recipient_json (recipient.time_zone
-- at intake), so the column 0030 added was never written or read.
ALTER TABLE notifications DROP COLUMN recipient_time_zone;

-- operator_actions takes `scheduling_edit` (a CHECK cannot be altered in SQLite: the table is
-- rebuilt as 0021 did; nothing references it).
CREATE TABLE operator_actions_0032 (
  id               TEXT PRIMARY KEY,
  tenant_id        TEXT NOT NULL REFERENCES tenants (id),
  at               INTEGER NOT NULL,
  action           TEXT NOT NULL CHECK (action IN ('retry', 'bulk_retry', 'resend', 'cancel', 'device_retry_failed', 'device_retry', 'campaign_pause', 'campaign_resume', 'campaign_cancel', 'key_create', 'key_revoke', 'key_rotate', 'tenant_create', 'account_assign', 'account_unassign', 'preferences_edit', 'suppression_add', 'suppression_remove', 'recipient_erase', 'scheduling_edit')),
  actor_kind       TEXT NOT NULL CHECK (actor_kind IN ('api_key', 'user', 'cli')),
  actor_id         TEXT NOT NULL,
  actor_name       TEXT,
  notification_id  TEXT,
  delivery_id      TEXT,
  campaign_id      TEXT,
  device_id        TEXT,
  detail_json      TEXT NOT NULL,
  subject_id       TEXT,
  ip               TEXT
);
INSERT INTO operator_actions_0032 (id, tenant_id, at, action, actor_kind, actor_id, actor_name, notification_id, delivery_id, campaign_id, device_id, detail_json, subject_id, ip)
SELECT id, tenant_id, at, action, actor_kind, actor_id, actor_name, notification_id, delivery_id, campaign_id, device_id, detail_json, subject_id, ip FROM operator_actions;
DROP TABLE operator_actions;
ALTER TABLE operator_actions_0032 RENAME TO operator_actions;
CREATE INDEX operator_actions_delivery ON operator_actions (delivery_id, at) WHERE delivery_id IS NOT NULL;
CREATE INDEX operator_actions_notification ON operator_actions (notification_id, at) WHERE notification_id IS NOT NULL;
CREATE INDEX operator_actions_campaign ON operator_actions (campaign_id, at) WHERE campaign_id IS NOT NULL;
CREATE INDEX operator_actions_device ON operator_actions (device_id, at) WHERE device_id IS NOT NULL;
-- GET /v1/audit: a tenant's actions newest first (ids are time-ordered), the cursor an id.
CREATE INDEX operator_actions_tenant ON operator_actions (tenant_id, id);
