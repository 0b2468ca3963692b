-- 0010_rollout: the staged rollout of provider accounts (docs/operations.md#staged-rollout).
--
-- 1. A new terminal reason, `held`: a rollout stage gave a definite answer to a person instead of
--    acting on it. It is replayable, so replays.from_reason takes it too. SQLite cannot change a
--    CHECK in place, so both tables are rebuilt with SQLite's documented procedure
--    (https://www.sqlite.org/lang_altertable.html#otheralter: create the new table, copy, drop the
--    old, rename the new, recreate its indexes). The migration runner turns foreign keys off
--    around the transaction and runs `PRAGMA foreign_key_check` before it commits, so a rebuild
--    that broke a reference is rolled back. On a large database this copies every delivery once.
-- 2. On each attempt, the decision Herald took at the account's stage and the one the next stage
--    would take (src/domain/rollout.ts ROLLOUT_DECISIONS), with their retry times.

CREATE TABLE deliveries_rebuilt (
  id                   TEXT PRIMARY KEY,
  notification_id      TEXT NOT NULL REFERENCES notifications(id),
  tenant_id            TEXT NOT NULL,
  position             INTEGER NOT NULL,
  channel              TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  purpose              TEXT NOT NULL CHECK (purpose IN ('otp', 'transactional', 'conversational', 'marketing', 'alert')),
  provider_account     TEXT NOT NULL,
  destination          TEXT NOT NULL,
  idempotency_key      TEXT NOT NULL UNIQUE,
  state                TEXT NOT NULL CHECK (state IN ('ready', 'submitting', 'accepted', 'unknown', 'retryable', 'terminal')),
  terminal_reason      TEXT CHECK (terminal_reason IN ('expired', 'exhausted', 'rejected', 'superseded', 'suppressed', 'unsubscribed', 'unresolved', 'cancelled', 'held')),
  downstream_status    TEXT CHECK (downstream_status IN ('accepted', 'sent', 'delivered', 'read', 'bounced', 'failed', 'complained')),
  provider_message_id  TEXT,
  attempt_count        INTEGER NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  lease_version        INTEGER NOT NULL DEFAULT 0,
  lease_owner          TEXT,
  lease_until          INTEGER,
  next_attempt_at      INTEGER,
  expires_at           INTEGER NOT NULL,
  last_error_code      TEXT,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  reconcile_at         INTEGER,
  campaign_id          TEXT,
  held_next_attempt_at INTEGER,
  -- A terminal delivery always says why; nothing else carries a reason.
  CHECK ((state = 'terminal') = (terminal_reason IS NOT NULL)),
  -- Exactly the submitting deliveries hold a lease.
  CHECK ((state = 'submitting') = (lease_until IS NOT NULL AND lease_owner IS NOT NULL)),
  -- Claimable deliveries always have a time at which they are claimable.
  CHECK (state NOT IN ('ready', 'retryable') OR next_attempt_at IS NOT NULL)
);
INSERT INTO deliveries_rebuilt (
  id, notification_id, tenant_id, position, channel, purpose, provider_account, destination, idempotency_key, state,
  terminal_reason, downstream_status, provider_message_id, attempt_count, lease_version, lease_owner, lease_until,
  next_attempt_at, expires_at, last_error_code, created_at, updated_at, reconcile_at, campaign_id, held_next_attempt_at
)
SELECT
  id, notification_id, tenant_id, position, channel, purpose, provider_account, destination, idempotency_key, state,
  terminal_reason, downstream_status, provider_message_id, attempt_count, lease_version, lease_owner, lease_until,
  next_attempt_at, expires_at, last_error_code, created_at, updated_at, reconcile_at, campaign_id, held_next_attempt_at
FROM deliveries;
DROP TABLE deliveries;
ALTER TABLE deliveries_rebuilt RENAME TO deliveries;
CREATE INDEX deliveries_due ON deliveries (provider_account, next_attempt_at, id) WHERE state IN ('ready', 'retryable');
CREATE INDEX deliveries_pending_expiry ON deliveries (expires_at) WHERE state IN ('ready', 'retryable');
CREATE INDEX deliveries_lease ON deliveries (lease_until) WHERE state = 'submitting';
CREATE INDEX deliveries_notification ON deliveries (notification_id, position);
CREATE INDEX deliveries_tenant ON deliveries (tenant_id, id);
CREATE INDEX deliveries_tenant_state ON deliveries (tenant_id, state, id);
CREATE INDEX deliveries_provider_message ON deliveries (provider_account, provider_message_id) WHERE provider_message_id IS NOT NULL;
CREATE INDEX deliveries_unknown ON deliveries (updated_at) WHERE state = 'unknown';
CREATE INDEX deliveries_campaign ON deliveries (campaign_id, state, terminal_reason, downstream_status, held_next_attempt_at)
  WHERE campaign_id IS NOT NULL;
CREATE INDEX deliveries_due_purpose ON deliveries (provider_account, purpose, next_attempt_at, id) WHERE state IN ('ready', 'retryable');

CREATE TABLE replays_rebuilt (
  id                     INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id            TEXT NOT NULL REFERENCES deliveries(id),
  tenant_id              TEXT NOT NULL,
  requested_by           TEXT NOT NULL,
  from_state             TEXT NOT NULL CHECK (from_state IN ('unknown', 'retryable', 'terminal')),
  from_reason            TEXT CHECK (from_reason IN ('exhausted', 'rejected', 'unresolved', 'cancelled', 'held')),
  accept_duplicate_risk  BOOLEAN NOT NULL,
  note                   TEXT,
  created_at             INTEGER NOT NULL,
  -- A replay from terminal names the reason it ended; from any other state there is none.
  CHECK ((from_state = 'terminal') = (from_reason IS NOT NULL))
);
INSERT INTO replays_rebuilt (id, delivery_id, tenant_id, requested_by, from_state, from_reason, accept_duplicate_risk, note, created_at)
SELECT id, delivery_id, tenant_id, requested_by, from_state, from_reason, accept_duplicate_risk, note, created_at FROM replays;
DROP TABLE replays;
ALTER TABLE replays_rebuilt RENAME TO replays;
CREATE INDEX replays_delivery ON replays (delivery_id);

ALTER TABLE attempts ADD COLUMN decision TEXT CHECK (decision IN ('accept', 'retry_at', 'reject', 'exhaust', 'expire', 'review', 'reconcile_lookup', 'wait_for_evidence', 'resend_same_key', 'user_resend', 'accept_duplicate'));
ALTER TABLE attempts ADD COLUMN decision_retry_at INTEGER;
ALTER TABLE attempts ADD COLUMN next_stage_decision TEXT CHECK (next_stage_decision IN ('accept', 'retry_at', 'reject', 'exhaust', 'expire', 'review', 'reconcile_lookup', 'wait_for_evidence', 'resend_same_key', 'user_resend', 'accept_duplicate'));
ALTER TABLE attempts ADD COLUMN next_stage_retry_at INTEGER;
-- What a promotion would change (GET /v1/provider-accounts/:id/rollout): the decided attempts of a recent window.
CREATE INDEX attempts_decided ON attempts (finished_at) WHERE decision IS NOT NULL;
