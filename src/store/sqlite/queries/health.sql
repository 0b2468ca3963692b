-- name: provider_calls_add
-- params: @provider_account, @bucket_start, @calls, @failures
INSERT INTO provider_health (provider_account, bucket_start, calls, failures)
VALUES (@provider_account, @bucket_start, @calls, @failures)
ON CONFLICT (provider_account, bucket_start)
DO UPDATE SET calls = calls + excluded.calls, failures = failures + excluded.failures;

-- name: provider_health_since
-- params: @provider_account, @since
SELECT COALESCE(SUM(calls), 0) AS calls, COALESCE(SUM(failures), 0) AS failures
FROM provider_health WHERE provider_account = @provider_account AND bucket_start >= @since;

-- name: provider_health_prune
-- params: @before
DELETE FROM provider_health WHERE bucket_start < @before;

-- name: rollout_decisions_since
-- What the account's rollout decided on its attempts of a window, and what the next stage would
-- have decided, counted per pair (GET /v1/provider-accounts/:id/rollout).
-- params: @provider_account, @since
SELECT a.decision, a.next_stage_decision, COUNT(*) AS attempts
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.decision IS NOT NULL AND d.provider_account = @provider_account AND a.finished_at >= @since
GROUP BY a.decision, a.next_stage_decision
ORDER BY a.decision, a.next_stage_decision;

-- name: provider_errors_recent
-- The Providers page's recent errors: per account, each failed call outcome (attempts_finished)
-- and each failure reason deliveries ended with (deliveries_terminal_recent), counted over the
-- last 15 min, hour and day in one pass over the day's rows. Cancelled, superseded, suppressed
-- and unsubscribed deliveries are people's or recipients' choices, not provider errors.
-- params: @since_15m, @since_1h, @since_24h
SELECT d.provider_account, 'attempt' AS kind, a.outcome AS error_class,
       SUM(CASE WHEN a.finished_at >= @since_15m THEN 1 ELSE 0 END) AS last_15m,
       SUM(CASE WHEN a.finished_at >= @since_1h THEN 1 ELSE 0 END) AS last_1h,
       COUNT(*) AS last_24h
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.finished_at IS NOT NULL AND a.finished_at >= @since_24h AND a.outcome IS NOT NULL AND a.outcome <> 'accepted'
GROUP BY d.provider_account, a.outcome
UNION ALL
SELECT provider_account, 'terminal' AS kind, terminal_reason AS error_class,
       SUM(CASE WHEN updated_at >= @since_15m THEN 1 ELSE 0 END) AS last_15m,
       SUM(CASE WHEN updated_at >= @since_1h THEN 1 ELSE 0 END) AS last_1h,
       COUNT(*) AS last_24h
FROM deliveries
WHERE state = 'terminal' AND updated_at >= @since_24h AND terminal_reason IN ('exhausted', 'rejected', 'expired', 'unresolved')
GROUP BY provider_account, terminal_reason
ORDER BY 1, 2, 3;
