-- 0011_alerts: operator alerts (src/observability/alerter.ts). alert_states holds one row per
-- (rule, subject) ever observed; `version` is the compare-and-set that lets only one process
-- commit an evaluation. alert_history is what was sent to whom: masked targets and error
-- classes only (any API key reads it), one row per announcement per target try, kept for
-- alerts.history_days.
CREATE TABLE alert_states (
  rule          TEXT NOT NULL,
  subject       TEXT NOT NULL,
  status        TEXT NOT NULL CHECK (status IN ('firing', 'clear')),
  since         INTEGER NOT NULL,
  clear_since   INTEGER,
  line          TEXT NOT NULL,
  value         INTEGER NOT NULL,
  announced     TEXT CHECK (announced IN ('firing', 'resolved')),
  announced_at  INTEGER,
  memory        TEXT,
  version       INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  PRIMARY KEY (rule, subject)
);
CREATE TABLE alert_history (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  sent_at          INTEGER NOT NULL,
  rule             TEXT,
  subject          TEXT,
  kind             TEXT NOT NULL CHECK (kind IN ('firing', 'resolved', 'test')),
  target_kind      TEXT NOT NULL CHECK (target_kind IN ('email', 'sms', 'webhook')),
  target           TEXT NOT NULL,
  provider_account TEXT,
  outcome          TEXT NOT NULL CHECK (outcome IN ('sent', 'failed')),
  error_class      TEXT
);
-- Retention (alerts.history_days) deletes by age.
CREATE INDEX alert_history_sent_at ON alert_history (sent_at);
