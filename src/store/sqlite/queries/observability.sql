-- What the metrics endpoint reads: the state of the whole system, aggregated, every tenant.
-- The same statement names as the PostgreSQL driver's observability.sql.

-- name: observability_deliveries_by_state
-- Deliveries per state and terminal reason, the oldest update of each group, and how many the
-- review queue lists (the condition of review_list, every tenant).
-- params: @unknown_before
SELECT state, terminal_reason, COUNT(*) AS n, MIN(updated_at) AS oldest_updated_at,
       SUM(CASE WHEN (state = 'terminal' AND terminal_reason IN ('exhausted', 'rejected', 'unresolved'))
                  OR (state = 'unknown' AND updated_at <= @unknown_before) THEN 1 ELSE 0 END) AS in_review
FROM deliveries
GROUP BY state, terminal_reason;

-- name: observability_due_by_account
-- Due, unexpired work per provider account (the deliveries_due index): claimable now and not yet claimed.
-- params: @now
SELECT provider_account, COUNT(*) AS n, MIN(next_attempt_at) AS oldest_due_at
FROM deliveries
WHERE state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
GROUP BY provider_account;
