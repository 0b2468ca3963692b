-- 0008_devices: Android phones acting as SMS gateways (the SMSGate app), the logins their
-- registrations create, one-time registration codes, the offers Herald makes the phones (one
-- row per submission: the message id the phone sees), and the heartbeat sweeps. Times are epoch
-- milliseconds. The state lists match src/domain/phone-gateway.ts and src/store/device-store.ts;
-- test/store/schema-checks.test.ts compares them.

-- What the app shows as Login / Password (Settings → Cloud Server): a second phone can join
-- the same account with them or with a one-time code. The password is stored as scrypt.
CREATE TABLE gateway_logins (
  login             TEXT PRIMARY KEY,
  provider_account  TEXT NOT NULL,
  tenant_id         TEXT NOT NULL,
  password_hash     TEXT NOT NULL,
  created_at        INTEGER NOT NULL
);

CREATE TABLE devices (
  id                TEXT PRIMARY KEY,
  tenant_id         TEXT NOT NULL,
  provider_account  TEXT NOT NULL,
  login             TEXT NOT NULL REFERENCES gateway_logins(login),
  name              TEXT NOT NULL,
  -- SHA-256 (hex) of the device token; the token itself is never stored.
  token_hash        TEXT NOT NULL UNIQUE,
  -- As the app reports them (numbers masked but the last 4 characters); NULL: never reported.
  sim_cards_json    TEXT,
  app_version       TEXT,
  created_at        INTEGER NOT NULL,
  last_seen_at      INTEGER NOT NULL,
  -- A call after an absence longer than the away threshold sets both; the heartbeat sweep clears them.
  returned_at       INTEGER,
  away_since        INTEGER,
  CHECK ((returned_at IS NULL) = (away_since IS NULL))
);
CREATE INDEX devices_account ON devices (provider_account, id);
CREATE INDEX devices_tenant ON devices (tenant_id, id);
CREATE INDEX devices_returned ON devices (returned_at) WHERE returned_at IS NOT NULL;

-- GET /user/code: a code (stored hashed) that registers another phone to a login, once.
CREATE TABLE gateway_login_codes (
  code_hash    TEXT PRIMARY KEY,
  login        TEXT NOT NULL REFERENCES gateway_logins(login),
  valid_until  INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  used_at      INTEGER
);

-- One row per submission of a delivery to a phone. message_id (≤ 36 characters) is what the
-- phone stores and reports; a re-offer (the look-up) lists the same row again, a retry after a
-- definite failure is a new row with the next seq. A row the phone never pulled may be withdrawn.
CREATE TABLE device_offers (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id        TEXT NOT NULL UNIQUE,
  delivery_id       TEXT NOT NULL REFERENCES deliveries(id),
  seq               INTEGER NOT NULL CHECK (seq >= 1),
  attempt_number    INTEGER NOT NULL,
  device_id         TEXT NOT NULL REFERENCES devices(id),
  provider_account  TEXT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('offered', 'pulled', 'reoffered', 'withdrawn', 'reported')),
  sim_number        INTEGER CHECK (sim_number BETWEEN 1 AND 3),
  priority          INTEGER NOT NULL,
  valid_until       INTEGER NOT NULL,
  offered_at        INTEGER NOT NULL,
  pulled_at         INTEGER,
  last_pulled_at    INTEGER,
  pull_count        INTEGER NOT NULL DEFAULT 0,
  reoffered_at      INTEGER,
  reoffer_count     INTEGER NOT NULL DEFAULT 0,
  -- The phone's state, folded forward (Pending < Processed < Sent < Delivered; Failed, Cancelled final).
  phone_state       TEXT CHECK (phone_state IN ('Pending', 'Processed', 'Sent', 'Delivered', 'Failed', 'Cancelling', 'Cancelled')),
  -- The app's error token (RESULT_ERROR_NO_SERVICE, TTL expired, ...), never its raw text.
  phone_error       TEXT,
  -- The phone said the SMS left it (Sent or Delivered in its history, or a delivery-report failure).
  sent              INTEGER NOT NULL DEFAULT 0,
  reported_at       INTEGER,
  -- Bumped by each report that changed what Herald knows; applied_seq catches up when the
  -- report applier has written it into the delivery.
  report_seq        INTEGER NOT NULL DEFAULT 0,
  applied_seq       INTEGER NOT NULL DEFAULT 0,
  UNIQUE (delivery_id, seq),
  -- A reported offer has a phone state, and only a reported one.
  CHECK ((state = 'reported') = (phone_state IS NOT NULL)),
  -- Only an offer no phone ever pulled can be withdrawn: then it provably never reached one.
  CHECK (state <> 'withdrawn' OR pulled_at IS NULL)
);
CREATE INDEX device_offers_listed ON device_offers (device_id, id) WHERE state IN ('offered', 'reoffered');
CREATE INDEX device_offers_unapplied ON device_offers (id) WHERE report_seq > applied_seq;
CREATE INDEX device_offers_device ON device_offers (device_id, id);
CREATE INDEX device_offers_attempt ON device_offers (delivery_id, attempt_number);

-- What each heartbeat sweep did: when, for which device, how many it retried and re-offered.
CREATE TABLE device_sweeps (
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  device_id         TEXT NOT NULL REFERENCES devices(id),
  tenant_id         TEXT NOT NULL,
  provider_account  TEXT NOT NULL,
  cause             TEXT NOT NULL CHECK (cause IN ('return', 'operator')),
  away_since        INTEGER,
  returned_at       INTEGER,
  swept_at          INTEGER NOT NULL,
  retried           INTEGER NOT NULL,
  reoffered         INTEGER NOT NULL,
  skipped_expired   INTEGER NOT NULL
);
CREATE INDEX device_sweeps_device ON device_sweeps (device_id, id);
