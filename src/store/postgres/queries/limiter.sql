-- The shared rate limiter's rows (GCRA theoretical arrival times, integer µs). The same
-- statement names as the SQLite driver's limiter.sql.

-- name: limiter_ensure
-- params: $1 provider_account, $2 lanes[]
INSERT INTO rate_limiters (provider_account, lane, tat_us) SELECT $1, l, 0 FROM unnest($2::text[]) AS l
ON CONFLICT (provider_account, lane) DO NOTHING;

-- name: limiter_lock
-- Locks the rows in one order (lane name) so concurrent requests cannot deadlock.
-- params: $1 provider_account, $2 lanes[]
SELECT lane, tat_us FROM rate_limiters WHERE provider_account = $1 AND lane = ANY($2::text[])
ORDER BY lane FOR UPDATE;

-- name: limiter_set
-- params: $1 provider_account, $2 lanes[], $3 tat_us[]
UPDATE rate_limiters r SET tat_us = w.tat_us
FROM unnest($2::text[], $3::bigint[]) AS w(lane, tat_us)
WHERE r.provider_account = $1 AND r.lane = w.lane;

-- name: limiter_pause
-- A provider's 429 paused the account until $2 (never moved earlier): what the metrics endpoint
-- shows as the pause (migration 0013). paused_since (0035) is when the pause began: kept while the
-- pause is extended, or when this 429 came within $4 ms of its end (the first calls after a pause
-- answered 429 again); else this pause begins at $3. The row exists: throttleAccount has just
-- locked it.
-- params: $1 provider_account, $2 paused_until, $3 now, $4 continues_within_ms
UPDATE rate_limiters
SET paused_since = CASE WHEN paused_since IS NOT NULL AND paused_until IS NOT NULL AND paused_until + $4::bigint >= $3::bigint
                        THEN paused_since ELSE $3::bigint END,
    paused_until = GREATEST(COALESCE(paused_until, 0), $2::bigint)
WHERE provider_account = $1 AND lane = '*';

-- name: limiter_lock_free
-- limiter_lock without waiting: rows another transaction holds are skipped (a lane borrowing
-- from the shared row takes nothing rather than queue behind the claims holding it).
-- params: $1 provider_account, $2 lanes[]
SELECT lane, tat_us FROM rate_limiters WHERE provider_account = $1 AND lane = ANY($2::text[])
ORDER BY lane FOR UPDATE SKIP LOCKED;

-- name: limiter_refund
-- Gives permits back only on rows still at the state the reservation wrote (compare and set:
-- src/domain/rate-limit.ts refundedState); returns the rows refunded.
-- params: $1 provider_account, $2 lanes[], $3 reserved_tat_us[], $4 refunded_tat_us[]
UPDATE rate_limiters r SET tat_us = w.refunded
FROM unnest($2::text[], $3::bigint[], $4::bigint[]) AS w(lane, reserved, refunded)
WHERE r.provider_account = $1 AND r.lane = w.lane AND r.tat_us = w.reserved
RETURNING r.lane;
