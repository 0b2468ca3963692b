-- 0010_rollout: the staged rollout of provider accounts (docs/operations.md#staged-rollout).
--
-- 1. A new terminal reason, `held`: a rollout stage gave a definite answer to a person instead of
--    acting on it. It is replayable, so replays.from_reason takes it too. PostgreSQL replaces the
--    CHECK constraints in place (the SQLite driver rebuilds its tables).
-- 2. On each attempt, the decision Herald took at the account's stage and the one the next stage
--    would take (src/domain/rollout.ts ROLLOUT_DECISIONS), with their retry times.

ALTER TABLE deliveries DROP CONSTRAINT deliveries_terminal_reason_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_terminal_reason_check
  CHECK (terminal_reason IN ('expired', 'exhausted', 'rejected', 'superseded', 'suppressed', 'unsubscribed', 'unresolved', 'cancelled', 'held'));
ALTER TABLE replays DROP CONSTRAINT replays_from_reason_check;
ALTER TABLE replays ADD CONSTRAINT replays_from_reason_check
  CHECK (from_reason IN ('exhausted', 'rejected', 'unresolved', 'cancelled', 'held'));

ALTER TABLE attempts ADD COLUMN decision TEXT CHECK (decision IN ('accept', 'retry_at', 'reject', 'exhaust', 'expire', 'review', 'reconcile_lookup', 'wait_for_evidence', 'resend_same_key', 'user_resend', 'accept_duplicate'));
ALTER TABLE attempts ADD COLUMN decision_retry_at BIGINT;
ALTER TABLE attempts ADD COLUMN next_stage_decision TEXT CHECK (next_stage_decision IN ('accept', 'retry_at', 'reject', 'exhaust', 'expire', 'review', 'reconcile_lookup', 'wait_for_evidence', 'resend_same_key', 'user_resend', 'accept_duplicate'));
ALTER TABLE attempts ADD COLUMN next_stage_retry_at BIGINT;
-- What a promotion would change (GET /v1/provider-accounts/:id/rollout): the decided attempts of a recent window.
CREATE INDEX attempts_decided ON attempts (finished_at) WHERE decision IS NOT NULL;
