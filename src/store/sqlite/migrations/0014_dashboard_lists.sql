-- 0014_dashboard_lists: what the dashboard's message list and its actions need.
--
-- The list (GET /v1/deliveries, queries/delivery_list.sql) walks one index per driving filter,
-- newest first; each index ends in id so a page is a range scan from the cursor. Four more
-- indexes on deliveries cost intake a little (bench/throughput.ts measures it); without them a
-- filter on a rare reason reads the tenant's whole list (docs/benchmarks.md, the list bench).
CREATE INDEX deliveries_list_terminal_reason ON deliveries (tenant_id, terminal_reason, id) WHERE terminal_reason IS NOT NULL;
CREATE INDEX deliveries_list_downstream ON deliveries (tenant_id, downstream_status, id) WHERE downstream_status IS NOT NULL;
CREATE INDEX deliveries_list_account ON deliveries (tenant_id, provider_account, id);
CREATE INDEX deliveries_list_campaign ON deliveries (campaign_id, id) WHERE campaign_id IS NOT NULL;
-- Search by recipient id (q); notification ids are the primary key, group keys have
-- notifications_group_generation.
CREATE INDEX notifications_recipient ON notifications (tenant_id, recipient_id);

-- The audit trail: who did each operator action (an API key, or a dashboard user), on what,
-- and with what detail. Never edited. A bulk retry writes one row per delivery it retried,
-- so each delivery's page shows it.
CREATE TABLE operator_actions (
  id               TEXT PRIMARY KEY,
  tenant_id        TEXT NOT NULL REFERENCES tenants (id),
  at               INTEGER NOT NULL,
  action           TEXT NOT NULL CHECK (action IN ('retry', 'bulk_retry', 'resend', 'cancel', 'device_retry_failed', 'device_retry', 'campaign_pause', 'campaign_resume', 'campaign_cancel')),
  actor_kind       TEXT NOT NULL CHECK (actor_kind IN ('api_key', 'user')),
  actor_id         TEXT NOT NULL,
  actor_name       TEXT,
  notification_id  TEXT,
  delivery_id      TEXT,
  campaign_id      TEXT,
  device_id        TEXT,
  detail_json      TEXT NOT NULL
);
CREATE INDEX operator_actions_delivery ON operator_actions (delivery_id, at) WHERE delivery_id IS NOT NULL;
CREATE INDEX operator_actions_notification ON operator_actions (notification_id, at) WHERE notification_id IS NOT NULL;
