-- 0013_observability: what the state-of-the-system gauges and GET /v1/stats read without a scan
-- of every row ever written (src/store/observability-store.ts).

-- When a provider's 429 pauses an account: no permit of the account before this time (epoch ms).
-- Written by throttleAccount on the account's own row (lane '*'), never moved earlier; the GCRA
-- time alone cannot tell a pause from a busy limiter.
ALTER TABLE rate_limiters ADD COLUMN paused_until BIGINT;

-- Attempts by the time their outcome was recorded: failures in the last 15 minutes, the stats series.
CREATE INDEX attempts_finished ON attempts (finished_at) WHERE finished_at IS NOT NULL;
-- Accepted deliveries no evidence has moved past `accepted` yet, by when they were last updated.
CREATE INDEX deliveries_accepted_waiting ON deliveries (updated_at)
  WHERE state = 'accepted' AND (downstream_status IS NULL OR downstream_status = 'accepted');
-- Deliveries that ended, by when they ended: deadline misses in the last hour, the stats series.
CREATE INDEX deliveries_terminal_at ON deliveries (updated_at) WHERE state = 'terminal';

-- When the downstream status first reached sent, delivered or read (evidence or a phone's
-- report): the "confirmed" series of GET /v1/stats. Set once, never moved.
ALTER TABLE deliveries ADD COLUMN confirmed_at BIGINT;
CREATE INDEX deliveries_confirmed_at ON deliveries (confirmed_at) WHERE confirmed_at IS NOT NULL;
