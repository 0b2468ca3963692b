-- name: provider_calls_add
-- params: $1 provider_account, $2 bucket_start, $3 calls, $4 failures
INSERT INTO provider_health (provider_account, bucket_start, calls, failures)
VALUES ($1, $2, $3, $4)
ON CONFLICT (provider_account, bucket_start)
DO UPDATE SET calls = provider_health.calls + excluded.calls, failures = provider_health.failures + excluded.failures;

-- name: provider_health_since
-- params: $1 provider_account, $2 since
SELECT COALESCE(SUM(calls), 0)::int AS calls, COALESCE(SUM(failures), 0)::int AS failures
FROM provider_health WHERE provider_account = $1 AND bucket_start >= $2;

-- name: provider_health_prune
-- params: $1 before
DELETE FROM provider_health WHERE bucket_start < $1;

-- name: rollout_decisions_since
-- What the account's rollout decided on its attempts of a window, and what the next stage would
-- have decided, counted per pair (GET /v1/provider-accounts/:id/rollout).
-- params: $1 provider_account, $2 since
SELECT a.decision, a.next_stage_decision, COUNT(*) AS attempts
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.decision IS NOT NULL AND d.provider_account = $1 AND a.finished_at >= $2
GROUP BY a.decision, a.next_stage_decision
ORDER BY a.decision, a.next_stage_decision;

-- name: provider_errors_recent
-- The Providers page's recent errors: per account, each failed call outcome (attempts_finished)
-- and each failure reason deliveries ended with (deliveries_terminal_recent), counted over the
-- last 15 min, hour and day in one pass over the day's rows. Cancelled, superseded, suppressed
-- and unsubscribed deliveries are people's or recipients' choices, not provider errors.
-- params: $1 since_15m, $2 since_1h, $3 since_24h
SELECT d.provider_account, 'attempt' AS kind, a.outcome AS error_class,
       SUM(CASE WHEN a.finished_at >= $1 THEN 1 ELSE 0 END) AS last_15m,
       SUM(CASE WHEN a.finished_at >= $2 THEN 1 ELSE 0 END) AS last_1h,
       COUNT(*) AS last_24h
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.finished_at IS NOT NULL AND a.finished_at >= $3 AND a.outcome IS NOT NULL AND a.outcome <> 'accepted'
GROUP BY d.provider_account, a.outcome
UNION ALL
SELECT provider_account, 'terminal' AS kind, terminal_reason AS error_class,
       SUM(CASE WHEN updated_at >= $1 THEN 1 ELSE 0 END) AS last_15m,
       SUM(CASE WHEN updated_at >= $2 THEN 1 ELSE 0 END) AS last_1h,
       COUNT(*) AS last_24h
FROM deliveries
WHERE state = 'terminal' AND updated_at >= $3 AND terminal_reason IN ('exhausted', 'rejected', 'expired', 'unresolved')
GROUP BY provider_account, terminal_reason
ORDER BY 1, 2, 3;
