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
