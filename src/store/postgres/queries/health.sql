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
