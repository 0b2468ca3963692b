-- What the metrics endpoint reads: the state of the whole system, aggregated, every tenant.
-- The same statement names as the SQLite driver's observability.sql.

-- name: observability_deliveries_by_state
-- Deliveries per state and terminal reason, the oldest update of each group, and how many the
-- review queue lists (the condition of review_list, every tenant).
-- params: $1 unknown_before
SELECT state, terminal_reason, COUNT(*)::bigint AS n, MIN(updated_at) AS oldest_updated_at,
       COUNT(*) FILTER (WHERE (state = 'terminal' AND terminal_reason IN ('exhausted', 'rejected', 'unresolved'))
                           OR (state = 'unknown' AND updated_at <= $1))::bigint AS in_review
FROM deliveries
GROUP BY state, terminal_reason;

-- name: observability_due_by_account
-- Due, unexpired work per provider account (the deliveries_due index): claimable now and not yet claimed.
-- params: $1 now
SELECT provider_account, COUNT(*)::bigint AS n, MIN(next_attempt_at) AS oldest_due_at
FROM deliveries
WHERE state IN ('ready', 'retryable') AND next_attempt_at <= $1 AND expires_at > $1
GROUP BY provider_account;
