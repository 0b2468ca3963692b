-- 0001_initial: tenants, API keys, intake idempotency, notifications, deliveries, attempts, outbox, replays.
-- Times are epoch milliseconds (INTEGER). The state and reason lists match src/domain/vocabulary.ts;
-- test/store/schema-checks.test.ts compares them.

CREATE TABLE tenants (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);

CREATE TABLE api_keys (
  id          TEXT PRIMARY KEY,
  tenant_id   TEXT NOT NULL REFERENCES tenants(id),
  key_hash    TEXT NOT NULL UNIQUE,
  label       TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  revoked_at  INTEGER
);

CREATE TABLE idempotency_keys (
  tenant_id        TEXT NOT NULL,
  key              TEXT NOT NULL,
  fingerprint      TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('in_progress', 'completed')),
  response_status  INTEGER,
  response_body    TEXT,
  locked_until     INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, key),
  CHECK ((status = 'completed') = (response_status IS NOT NULL))
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

CREATE TABLE notifications (
  id              TEXT PRIMARY KEY,
  tenant_id       TEXT NOT NULL REFERENCES tenants(id),
  recipient_id    TEXT NOT NULL,
  recipient_json  TEXT NOT NULL,
  purpose         TEXT NOT NULL CHECK (purpose IN ('otp', 'transactional', 'conversational', 'marketing', 'alert')),
  channels_json   TEXT NOT NULL,
  content_json    TEXT NOT NULL,
  group_key       TEXT NOT NULL,
  generation      INTEGER NOT NULL CHECK (generation >= 1),
  metadata_json   TEXT,
  expires_at      INTEGER NOT NULL,
  created_at      INTEGER NOT NULL,
  -- Channel fallback: the next channel's delivery is created only if the previous one has not
  -- reached this evidence level fallback_after_ms after it was created.
  fallback_after_ms  INTEGER,
  fallback_evidence  TEXT CHECK (fallback_evidence IN ('accepted', 'sent', 'delivered')),
  -- The producer's choice of retry ladder; NULL: the provider account's choice for the purpose, else the purpose's.
  retry_ladder       TEXT CHECK (retry_ladder IN ('otp', 'transactional', 'conversational', 'marketing', 'alert')),
  CHECK ((fallback_after_ms IS NULL) = (fallback_evidence IS NULL))
);
-- latestGeneration (a resend takes the next generation of a challenge group).
-- Unique: one notification per challenge generation (a newer one supersedes the older ones).
CREATE UNIQUE INDEX notifications_group_generation ON notifications (tenant_id, group_key, generation);

CREATE TABLE deliveries (
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
  terminal_reason      TEXT CHECK (terminal_reason IN ('expired', 'exhausted', 'rejected', 'superseded', 'suppressed', 'unsubscribed', 'unresolved', 'cancelled')),
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
  -- A terminal delivery always says why; nothing else carries a reason.
  CHECK ((state = 'terminal') = (terminal_reason IS NOT NULL)),
  -- Exactly the submitting deliveries hold a lease.
  CHECK ((state = 'submitting') = (lease_until IS NOT NULL AND lease_owner IS NOT NULL)),
  -- Claimable deliveries always have a time at which they are claimable.
  CHECK (state NOT IN ('ready', 'retryable') OR next_attempt_at IS NOT NULL)
);
CREATE INDEX deliveries_due ON deliveries (provider_account, next_attempt_at, id) WHERE state IN ('ready', 'retryable');
CREATE INDEX deliveries_pending_expiry ON deliveries (expires_at) WHERE state IN ('ready', 'retryable');
CREATE INDEX deliveries_lease ON deliveries (lease_until) WHERE state = 'submitting';
CREATE INDEX deliveries_notification ON deliveries (notification_id, position);
CREATE INDEX deliveries_tenant ON deliveries (tenant_id, id);
CREATE INDEX deliveries_tenant_state ON deliveries (tenant_id, state, id);

CREATE TABLE attempts (
  delivery_id          TEXT NOT NULL REFERENCES deliveries(id),
  number               INTEGER NOT NULL CHECK (number >= 1),
  lease_version        INTEGER NOT NULL,
  worker_id            TEXT NOT NULL,
  started_at           INTEGER NOT NULL,
  finished_at          INTEGER,
  outcome              TEXT CHECK (outcome IN ('accepted', 'retryable', 'throttled', 'permanent', 'unknown', 'lease_expired')),
  provider_message_id  TEXT,
  error_code           TEXT,
  error_message        TEXT,
  retry_after_ms       INTEGER,
  late_outcome         TEXT,
  PRIMARY KEY (delivery_id, number)
);

-- Events for customer webhooks and the live stream. SQLite has one writer at a time, so
-- rowids follow commit order here (PostgreSQL's sequences do not: a lower id can commit later).
CREATE TABLE outbox (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id        TEXT NOT NULL,
  notification_id  TEXT NOT NULL,
  delivery_id      TEXT,
  event_type       TEXT NOT NULL,
  payload_json     TEXT NOT NULL,
  created_at       INTEGER NOT NULL,
  published_at     INTEGER
);
CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL;

-- Operator replays: who asked to send a delivery again, from which state, and whether they
-- accepted the risk of a duplicate (replaying `unknown` or `unresolved`). Written in the same
-- transaction as the guarded transition to `ready`; never updated or deleted.
CREATE TABLE replays (
  id                     INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id            TEXT NOT NULL REFERENCES deliveries(id),
  tenant_id              TEXT NOT NULL,
  requested_by           TEXT NOT NULL,
  from_state             TEXT NOT NULL CHECK (from_state IN ('unknown', 'retryable', 'terminal')),
  from_reason            TEXT CHECK (from_reason IN ('exhausted', 'rejected', 'unresolved', 'cancelled')),
  accept_duplicate_risk  BOOLEAN NOT NULL,
  note                   TEXT,
  created_at             INTEGER NOT NULL,
  -- A replay from terminal names the reason it ended; from any other state there is none.
  CHECK ((from_state = 'terminal') = (from_reason IS NOT NULL))
);
CREATE INDEX replays_delivery ON replays (delivery_id);

-- Deliveries planned for the later channels of a notification with fallback. A row becomes a
-- delivery when its turn comes (the previous channel missed its deadline, or ended), or is
-- deleted when the previous channel reached the evidence level, when it would start at or
-- after expiry, or when a newer generation supersedes the notification. due_at is NULL until
-- the previous channel's delivery exists.
CREATE TABLE pending_fallbacks (
  notification_id   TEXT NOT NULL REFERENCES notifications(id),
  position          INTEGER NOT NULL CHECK (position >= 1),
  delivery_id       TEXT NOT NULL UNIQUE,
  tenant_id         TEXT NOT NULL,
  channel           TEXT NOT NULL CHECK (channel IN ('email', 'sms', 'push')),
  provider_account  TEXT NOT NULL,
  destination       TEXT NOT NULL,
  idempotency_key   TEXT NOT NULL UNIQUE,
  due_at            INTEGER,
  PRIMARY KEY (notification_id, position)
);
CREATE INDEX pending_fallbacks_due ON pending_fallbacks (due_at) WHERE due_at IS NOT NULL;

-- Outcome counts per provider account in 10-second buckets, shared by every worker: the
-- retry budget reads the recent ones to tell a broad provider failure from a stray error.
CREATE TABLE provider_health (
  provider_account  TEXT NOT NULL,
  bucket_start      INTEGER NOT NULL,
  calls             INTEGER NOT NULL DEFAULT 0,
  failures          INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (provider_account, bucket_start)
);
