-- What the metrics endpoint, the operator alerts and GET /v1/stats read: the state of the system,
-- aggregated. @tenant_id NULL reads every tenant (the metrics endpoint); a tenant id reads that
-- tenant's rows only (GET /v1/stats). The same statement names as the PostgreSQL driver's observability.sql.

-- name: observability_deliveries_by_state
-- Deliveries per state and terminal reason, the oldest update of each group, and how many the
-- review queue lists (the condition of review_list: a rollout stage's held deliveries at once).
-- params: @unknown_before, @tenant_id
SELECT state, terminal_reason, COUNT(*) AS n, MIN(updated_at) AS oldest_updated_at,
       SUM(CASE WHEN (state = 'terminal' AND terminal_reason IN ('exhausted', 'rejected', 'unresolved', 'held'))
                  OR (state = 'unknown' AND (updated_at <= @unknown_before
                      OR EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = deliveries.id AND a.number = deliveries.attempt_count AND a.decision = 'review'))) THEN 1 ELSE 0 END) AS in_review
FROM deliveries
WHERE (@tenant_id IS NULL OR tenant_id = @tenant_id)
GROUP BY state, terminal_reason;

-- name: observability_due
-- Due, unexpired work per provider account and purpose (the deliveries_due_purpose index):
-- claimable now and not yet claimed. A paused campaign's held deliveries are not due (their
-- next_attempt_at is CAMPAIGN_HOLD_UNTIL).
-- params: @now, @tenant_id
SELECT provider_account, purpose, COUNT(*) AS n, MIN(next_attempt_at) AS oldest_due_at
FROM deliveries
WHERE state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
  AND (@tenant_id IS NULL OR tenant_id = @tenant_id)
GROUP BY provider_account, purpose;

-- name: observability_accepted_waiting
-- Accepted deliveries no evidence has moved past `accepted`, not updated since @before
-- (the deliveries_accepted_waiting index).
-- params: @before, @tenant_id
SELECT provider_account, channel, COUNT(*) AS n, MIN(updated_at) AS oldest_updated_at
FROM deliveries
WHERE state = 'accepted' AND (downstream_status IS NULL OR downstream_status = 'accepted') AND updated_at <= @before
  AND (@tenant_id IS NULL OR tenant_id = @tenant_id)
GROUP BY provider_account, channel;

-- name: observability_deadline_misses
-- Deliveries that ended expired since @since without any attempt ever accepted (the
-- deliveries_terminal_recent index; the attempts primary key for the check).
-- params: @since, @tenant_id
SELECT d.channel, d.purpose, COUNT(*) AS n
FROM deliveries d
WHERE d.state = 'terminal' AND d.updated_at >= @since AND d.terminal_reason = 'expired' AND d.downstream_status IS NULL
  AND (@tenant_id IS NULL OR d.tenant_id = @tenant_id)
  AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND a.outcome = 'accepted')
GROUP BY d.channel, d.purpose;

-- name: observability_failures
-- Attempts finished since @since whose outcome was not an acceptance, per account (the attempts_finished index).
-- params: @since, @tenant_id
SELECT d.provider_account, COUNT(*) AS n
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.finished_at >= @since AND a.outcome IN ('retryable', 'throttled', 'permanent', 'unknown', 'lease_expired')
  AND (@tenant_id IS NULL OR d.tenant_id = @tenant_id)
GROUP BY d.provider_account;

-- name: observability_health
-- The retry budget's window of every account (provider_health_* of health.sql, for all accounts at once).
-- params: @since
SELECT provider_account, SUM(calls) AS calls, SUM(failures) AS failures
FROM provider_health WHERE bucket_start >= @since
GROUP BY provider_account;

-- name: observability_pauses
-- Accounts a provider's 429 has paused past @now (the account-wide limiter row, lane '*').
-- params: @now
SELECT provider_account, paused_until FROM rate_limiters
WHERE lane = '*' AND paused_until > @now;

-- name: observability_devices
-- Android gateway devices and when each last called (no SIM data, no token).
-- params: @tenant_id
SELECT id, name, tenant_id, provider_account, last_seen_at FROM devices
WHERE (@tenant_id IS NULL OR tenant_id = @tenant_id)
ORDER BY id;

-- name: observability_campaigns
-- The deliveries of unfinished campaigns, grouped as campaign_delivery_counts groups one campaign
-- (the campaigns_active and deliveries_campaign indexes).
-- params: @tenant_id
SELECT c.id AS campaign_id, c.tenant_id, d.state, d.terminal_reason, d.downstream_status, COUNT(*) AS n
FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
WHERE c.finished_at IS NULL AND (@tenant_id IS NULL OR c.tenant_id = @tenant_id)
GROUP BY c.id, c.tenant_id, d.state, d.terminal_reason, d.downstream_status;

-- name: observability_series_attempts
-- A tenant's attempts finished in [@from, @until), per bucket, outcome and account (the attempts_finished index).
-- params: @tenant_id, @from, @until, @bucket_ms
SELECT CAST((a.finished_at - @from) / @bucket_ms AS INTEGER) AS bucket, a.outcome, d.provider_account, COUNT(*) AS n
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.finished_at >= @from AND a.finished_at < @until AND d.tenant_id = @tenant_id AND a.outcome IS NOT NULL
GROUP BY (a.finished_at - @from) / @bucket_ms, a.outcome, d.provider_account;

-- name: observability_series_terminal
-- A tenant's deliveries that ended without getting through in [@from, @until), per bucket (the deliveries_terminal_recent index).
-- params: @tenant_id, @from, @until, @bucket_ms
SELECT CAST((updated_at - @from) / @bucket_ms AS INTEGER) AS bucket, COUNT(*) AS n
FROM deliveries
WHERE state = 'terminal' AND updated_at >= @from AND updated_at < @until AND tenant_id = @tenant_id
  AND terminal_reason IN ('rejected', 'exhausted', 'unresolved', 'held')
GROUP BY (updated_at - @from) / @bucket_ms;

-- name: observability_series_confirmed
-- A tenant's deliveries whose downstream status first reached sent/delivered/read in [@from, @until), per bucket.
-- params: @tenant_id, @from, @until, @bucket_ms
SELECT CAST((confirmed_at - @from) / @bucket_ms AS INTEGER) AS bucket, COUNT(*) AS n
FROM deliveries
WHERE confirmed_at >= @from AND confirmed_at < @until AND tenant_id = @tenant_id
GROUP BY (confirmed_at - @from) / @bucket_ms;

-- name: observability_report_counts
-- A tenant's user reports, all time, by kind.
-- params: @tenant_id
SELECT kind, COUNT(*) AS n FROM notification_reports WHERE tenant_id = @tenant_id GROUP BY kind;
