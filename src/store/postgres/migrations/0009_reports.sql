-- 0009_reports: what a producer's support tooling says a person experienced with a notification
-- (a duplicate, or nothing received), kept beside the evidence so the two can be compared. Never
-- edited; one row per report.
CREATE TABLE notification_reports (
  id               TEXT PRIMARY KEY,
  tenant_id        TEXT NOT NULL,
  notification_id  TEXT NOT NULL REFERENCES notifications (id),
  kind             TEXT NOT NULL CHECK (kind IN ('duplicate', 'not_received')),
  channel          TEXT CHECK (channel IN ('email', 'sms', 'push')),
  note             TEXT,
  reported_by      TEXT NOT NULL,
  created_at       BIGINT NOT NULL
);
CREATE INDEX notification_reports_notification ON notification_reports (notification_id, created_at);
