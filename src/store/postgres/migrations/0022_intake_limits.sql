-- 0022_intake_limits: the counts behind the limits on the way in (docs/abuse-limits.md).
--
-- request_windows: one fixed-window counter per API key (or dashboard user): the window's start
-- (epoch ms) and the requests counted in it. One row per subject, overwritten when the window
-- moves, so the table never grows past the number of keys.
-- UNLOGGED: every request of a key updates its one row, and a logged update would hold that row's
-- lock until its commit's WAL flush, serializing a busy key's requests on fsyncs (measured with
-- bench/intake-limits.ts: 765 -> 238 requests/s for one key on this machine). A crash empties
-- the table: the quota starts again at zero, which a rate limit can afford.
CREATE UNLOGGED TABLE request_windows (
  subject_id    TEXT PRIMARY KEY,
  window_start  BIGINT NOT NULL,
  count         BIGINT NOT NULL
);

-- velocity_events: one row per notification a velocity rule counted, for one subject: the
-- destination or the recipient id as an HMAC under the server secret `destination-hash` (the
-- same keyed hash masked destinations keep), never in clear. Pruned past the longest window.
CREATE TABLE velocity_events (
  id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id     TEXT NOT NULL,
  rule          TEXT NOT NULL CHECK (rule IN ('destination', 'recipient')),
  subject_hash  TEXT NOT NULL,
  purpose       TEXT NOT NULL CHECK (purpose IN ('otp', 'transactional', 'conversational', 'marketing', 'alert')),
  created_at    BIGINT NOT NULL
);
CREATE INDEX velocity_events_subject ON velocity_events (tenant_id, rule, subject_hash, purpose, created_at);
CREATE INDEX velocity_events_created ON velocity_events (created_at);
