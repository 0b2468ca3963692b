-- 0020_write_cost: an index that did not pay for its writes (issue 16, docs/benchmarks.md
-- "Per-message write cost"). deliveries_due (provider_account, next_attempt_at, id) WHERE state
-- IN ('ready', 'retryable') was the claim's index before lanes (0006); since then every statement
-- that looks for due work names the purpose too (claim_batch / claim_select_due, next_due_at:
-- one probe per lane purpose) and walks deliveries_due_purpose, whose leading columns cover the
-- same rows. It was still written on every insert and every transition into or out of the queue.

DROP INDEX IF EXISTS deliveries_due;
