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
