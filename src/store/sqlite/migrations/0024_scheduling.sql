-- 0024_scheduling: a tenant's time-aware sending policy and the sends its frequency caps count
-- (docs/scheduling.md, issue 28).
--
-- scheduling_policies: one row per tenant that chose its own policy (PUT /v1/scheduling): the
-- choices as the API takes them (snake_case JSON); what it leaves out takes the install's defaults.
CREATE TABLE scheduling_policies (
  tenant_id    TEXT PRIMARY KEY,
  policy_json  TEXT NOT NULL,
  updated_at   INTEGER NOT NULL
);

-- cap_sends: one row per delivery a frequency cap counted (the slot it took just before its
-- provider call), per recipient, channel and purpose. A retry of the delivery keeps its one row.
-- Rows older than the longest period are pruned as a key is written.
CREATE TABLE cap_sends (
  delivery_id   TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL,
  recipient_id  TEXT NOT NULL,
  channel       TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  purpose       TEXT NOT NULL CHECK (purpose IN ('otp', 'transactional', 'conversational', 'marketing', 'alert')),
  sent_at       INTEGER NOT NULL
);
CREATE INDEX cap_sends_key ON cap_sends (tenant_id, recipient_id, channel, purpose, sent_at);
