-- 0027_routes: routes and failover within a channel (docs/routing.md). Each demotion and
-- restoration of an account within a route, with the figures it was made on. `seq` numbers a
-- route's changes: every process evaluates every route (the evaluator runs everywhere), and the
-- unique (route_key, seq) lets exactly one of them record a change made on the same last state.
-- A route_key is "<tenant>/<channel>/<purpose>" ("*" for every tenant). Times are epoch ms.
CREATE TABLE route_changes (
  route_key         TEXT NOT NULL,
  seq               INTEGER NOT NULL CHECK (seq >= 1),
  provider_account  TEXT NOT NULL,
  action            TEXT NOT NULL CHECK (action IN ('demote', 'restore')),
  -- Comma-separated DEMOTION_REASONS of a demotion (slow_delivery, over_retry_budget, paused_by_throttling); empty for a restoration.
  reasons           TEXT NOT NULL,
  accepted          INTEGER NOT NULL,
  slow              INTEGER NOT NULL,
  calls             INTEGER NOT NULL,
  failures          INTEGER NOT NULL,
  paused_since      BIGINT,
  decided_at        BIGINT NOT NULL,
  PRIMARY KEY (route_key, seq)
);
CREATE INDEX route_changes_recent ON route_changes (decided_at);

-- The evaluator's slow-delivery figure reads the accepted attempts of the last window (15 min by
-- default); the other attempts indexes leave accepted ones out (attempts_failed_recent), so
-- without this it would scan every attempt once a minute on every process.
CREATE INDEX attempts_accepted_recent ON attempts (finished_at, delivery_id) WHERE outcome = 'accepted';
