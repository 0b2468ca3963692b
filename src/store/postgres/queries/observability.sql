-- What the metrics endpoint, the operator alerts and GET /v1/stats read: the state of the system,
-- aggregated. A NULL tenant id reads every tenant (the metrics endpoint); a tenant id reads that
-- tenant's rows only (GET /v1/stats). The same statement names as the SQLite driver's observability.sql.

-- name: observability_deliveries_by_state
-- Deliveries per state and terminal reason, the oldest update of each group, and how many the
-- review queue lists (the condition of review_list: a rollout stage's held deliveries at once).
-- params: $1 unknown_before, $2 tenant_id
SELECT state, terminal_reason, COUNT(*)::bigint AS n, MIN(updated_at) AS oldest_updated_at,
       COUNT(*) FILTER (WHERE (state = 'terminal' AND terminal_reason IN ('exhausted', 'rejected', 'unresolved', 'held'))
                           OR (state = 'unknown' AND (updated_at <= $1
                      OR EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = deliveries.id AND a.number = deliveries.attempt_count AND a.decision = 'review'))))::bigint AS in_review
FROM deliveries
WHERE ($2::text IS NULL OR tenant_id = $2::text)
GROUP BY state, terminal_reason;

-- name: observability_due
-- Due, unexpired work per provider account and purpose (the deliveries_due_purpose index):
-- claimable now and not yet claimed. A paused campaign's held deliveries are not due (their
-- next_attempt_at is CAMPAIGN_HOLD_UNTIL).
-- params: $1 now, $2 tenant_id
SELECT provider_account, purpose, COUNT(*)::bigint AS n, MIN(next_attempt_at) AS oldest_due_at
FROM deliveries
WHERE state IN ('ready', 'retryable') AND next_attempt_at <= $1 AND expires_at > $1
  AND ($2::text IS NULL OR tenant_id = $2::text)
GROUP BY provider_account, purpose;

-- name: observability_accepted_waiting
-- Accepted deliveries no evidence has moved past `accepted`, not updated since $1
-- (the deliveries_accepted_waiting index).
-- params: $1 before, $2 tenant_id
SELECT provider_account, channel, COUNT(*)::bigint AS n, MIN(updated_at) AS oldest_updated_at
FROM deliveries
WHERE state = 'accepted' AND (downstream_status IS NULL OR downstream_status = 'accepted') AND updated_at <= $1
  AND ($2::text IS NULL OR tenant_id = $2::text)
GROUP BY provider_account, channel;

-- name: observability_deadline_misses
-- Deliveries that ended expired since $1 without any attempt ever accepted (the
-- deliveries_terminal_recent index; the attempts primary key for the check).
-- params: $1 since, $2 tenant_id
SELECT d.channel, d.purpose, COUNT(*)::bigint AS n
FROM deliveries d
WHERE d.state = 'terminal' AND d.updated_at >= $1 AND d.terminal_reason = 'expired' AND d.downstream_status IS NULL
  AND ($2::text IS NULL OR d.tenant_id = $2::text)
  AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND a.outcome = 'accepted')
GROUP BY d.channel, d.purpose;

-- name: observability_failed_messages
-- Failed messages (the failed_messages view, migration 0029: the one definition) that entered their
-- failed state since $1, per account.
-- params: $1 since, $2 tenant_id
SELECT provider_account, COUNT(*)::bigint AS n
FROM failed_messages
WHERE failed_at >= $1 AND ($2::text IS NULL OR tenant_id = $2::text)
GROUP BY provider_account;

-- name: observability_refused_attempts
-- Attempts finished since $1 that a provider (or the phone gateway) definitely refused: retryable,
-- throttled or permanent, per account (the attempts_finished index). Attempts, not messages: a
-- message refused three times counts three times. An `unknown` (a phone offer among them) is no refusal.
-- params: $1 since, $2 tenant_id
SELECT d.provider_account, COUNT(*)::bigint AS n
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.finished_at >= $1 AND a.outcome IN ('retryable', 'throttled', 'permanent')
  AND ($2::text IS NULL OR d.tenant_id = $2::text)
GROUP BY d.provider_account;

-- name: observability_health
-- The retry budget's window of every account (provider_health_* of health.sql, for all accounts at once).
-- params: $1 since
SELECT provider_account, SUM(calls)::bigint AS calls, SUM(failures)::bigint AS failures
FROM provider_health WHERE bucket_start >= $1
GROUP BY provider_account;

-- name: observability_pauses
-- Accounts a provider's 429 has paused past $1 (the account-wide limiter row, lane '*').
-- params: $1 now
SELECT provider_account, paused_until FROM rate_limiters
WHERE lane = '*' AND paused_until > $1;

-- name: observability_devices
-- Android gateway devices and when each last called (no SIM data, no token).
-- params: $1 tenant_id
SELECT id, name, tenant_id, provider_account, last_seen_at FROM devices
WHERE ($1::text IS NULL OR tenant_id = $1::text)
ORDER BY id;

-- name: observability_campaigns
-- The deliveries of unfinished campaigns, grouped as campaign_delivery_counts groups one campaign
-- (the campaigns_active and deliveries_campaign indexes).
-- params: $1 tenant_id
SELECT c.id AS campaign_id, c.tenant_id, d.state, d.terminal_reason, d.downstream_status, COUNT(*)::bigint AS n
FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
WHERE c.finished_at IS NULL AND ($1::text IS NULL OR c.tenant_id = $1::text)
GROUP BY c.id, c.tenant_id, d.state, d.terminal_reason, d.downstream_status;

-- name: observability_series_attempts
-- A tenant's attempts finished in [$2, $3), per bucket of $4 ms, outcome and account (the attempts_finished index).
-- An `unknown` attempt that evidence later showed arrived (a phone that took its offer, a callback, a
-- look-up, a late answer) counts as `accepted`, so that downstream confirmations never outnumber
-- acceptances; one whose phone failed it before sending stays `unknown` (the delivery's failure is counted by message).
-- params: $1 tenant_id, $2 from, $3 until, $4 bucket_ms
SELECT (a.finished_at - $2::bigint) / $4::bigint AS bucket,
       CASE WHEN a.outcome IN ('unknown', 'lease_expired')
             AND (a.late_outcome = 'accepted' OR a.resolution = 'found_by_lookup'
                  OR (a.resolution = 'callback' AND NOT EXISTS (SELECT 1 FROM device_offers o
                      WHERE o.delivery_id = a.delivery_id AND o.attempt_number = a.number
                        AND NOT o.sent AND o.phone_state IN ('Failed', 'Cancelled'))))
            THEN 'accepted' ELSE a.outcome END AS outcome,
       d.provider_account, COUNT(*)::bigint AS n
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
WHERE a.finished_at >= $2::bigint AND a.finished_at < $3::bigint AND d.tenant_id = $1 AND a.outcome IS NOT NULL
GROUP BY 1, 2, d.provider_account;

-- name: observability_series_failed
-- A tenant's failed messages (the failed_messages view) by the bucket in [$2, $3) they entered their
-- failed state in, per account: the overview's failures chart, which so agrees with the banner.
-- params: $1 tenant_id, $2 from, $3 until, $4 bucket_ms
SELECT (failed_at - $2::bigint) / $4::bigint AS bucket, provider_account, COUNT(*)::bigint AS n
FROM failed_messages
WHERE failed_at >= $2::bigint AND failed_at < $3::bigint AND tenant_id = $1
GROUP BY 1, provider_account;

-- name: observability_series_unknown
-- A tenant's deliveries unknown now, by the bucket in [$2, $3) they became unknown in (the
-- deliveries_unknown index): the unknown chart, which so agrees with the Unknown tile.
-- params: $1 tenant_id, $2 from, $3 until, $4 bucket_ms
SELECT (updated_at - $2::bigint) / $4::bigint AS bucket, COUNT(*)::bigint AS n
FROM deliveries
WHERE state = 'unknown' AND updated_at >= $2::bigint AND updated_at < $3::bigint AND tenant_id = $1
GROUP BY 1;

-- name: observability_series_confirmed
-- A tenant's deliveries whose downstream status first reached sent/delivered/read in [$2, $3), per bucket.
-- params: $1 tenant_id, $2 from, $3 until, $4 bucket_ms
SELECT (confirmed_at - $2::bigint) / $4::bigint AS bucket, COUNT(*)::bigint AS n
FROM deliveries
WHERE confirmed_at >= $2::bigint AND confirmed_at < $3::bigint AND tenant_id = $1
GROUP BY 1;

-- name: observability_report_counts
-- A tenant's user reports, all time, by kind.
-- params: $1 tenant_id
SELECT kind, COUNT(*)::bigint AS n FROM notification_reports WHERE tenant_id = $1 GROUP BY kind;
