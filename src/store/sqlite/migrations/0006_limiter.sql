-- 0006_limiter: the shared rate limiter and per-lane claims.
-- One GCRA state per (provider account, lane), and one per account (lane '*'): the theoretical
-- arrival time in integer microseconds (src/domain/rate-limit.ts). Every worker of every
-- process takes permits from these rows, so N workers never spend N times the account's rate.
CREATE TABLE rate_limiters (
  provider_account  TEXT NOT NULL,
  lane              TEXT NOT NULL,
  tat_us            BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (provider_account, lane)
);

-- Claims per lane walk one purpose at a time in due order.
CREATE INDEX deliveries_due_purpose ON deliveries (provider_account, purpose, next_attempt_at, id) WHERE state IN ('ready', 'retryable');
