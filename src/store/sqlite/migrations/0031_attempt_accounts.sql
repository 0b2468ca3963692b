-- 0031_attempt_accounts: failover within a channel (docs/routing.md, issue 27).
--
-- attempts.provider_account: the account the attempt used, written with the attempt row at the
-- claim. A delivery that fails over changes its provider_account; each attempt keeps its own, so
-- the timeline shows where every call went. NULL on attempts made before this migration.
--
-- attempts.failover_reason: why the delivery moved to another account of its route after this
-- attempt's answer (domain/routes.ts FAILOVER_REASONS); NULL when it stayed. Kept on the attempt,
-- not on the delivery: a delivery may move more than once, each move follows one answer, and the
-- attempt is the record of that answer (accept_duplicate says the duplicate risk was accepted on
-- this attempt's account).
--
-- notifications.pinned_channels: the channels whose account the producer named
-- (provider_accounts), as a JSON array; NULL when none. A pinned account never fails over. Written
-- by its own statement only when the producer pins, so intake's usual insert is unchanged.
ALTER TABLE attempts ADD COLUMN provider_account TEXT;
ALTER TABLE attempts ADD COLUMN failover_reason TEXT
  CHECK (failover_reason IN ('retryable', 'throttled', 'account_paused', 'over_retry_budget', 'no_phone_online', 'accept_duplicate'));
ALTER TABLE notifications ADD COLUMN pinned_channels TEXT;
