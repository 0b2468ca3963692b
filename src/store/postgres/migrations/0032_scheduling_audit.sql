-- 0032_scheduling_audit: PUT /v1/scheduling is audited (`scheduling_edit`), and the unused
-- notifications.recipient_time_zone goes (docs/scheduling.md, issue 28).

-- The send-time check reads a notification's own zone from recipient_json (recipient.time_zone
-- at intake), so the column 0030 added was never written or read.
ALTER TABLE notifications DROP COLUMN recipient_time_zone;

ALTER TABLE operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE operator_actions ADD CONSTRAINT operator_actions_action_check CHECK (action IN ('retry', 'bulk_retry', 'resend', 'cancel', 'device_retry_failed', 'device_retry', 'campaign_pause', 'campaign_resume', 'campaign_cancel', 'key_create', 'key_revoke', 'key_rotate', 'tenant_create', 'account_assign', 'account_unassign', 'preferences_edit', 'suppression_add', 'suppression_remove', 'recipient_erase', 'scheduling_edit'));
