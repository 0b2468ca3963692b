-- The shared rate limiter's rows (GCRA theoretical arrival times, integer µs). The same
-- statement names as the PostgreSQL driver's limiter.sql.

-- name: limiter_ensure
-- params: @provider_account, @lane
INSERT INTO rate_limiters (provider_account, lane, tat_us) VALUES (@provider_account, @lane, 0)
ON CONFLICT (provider_account, lane) DO NOTHING;

-- name: limiter_lock
-- Read inside the caller's BEGIN IMMEDIATE, which holds SQLite's one write lock: the row stays
-- as read until commit, as PostgreSQL's FOR UPDATE keeps it.
-- params: @provider_account, @lane
SELECT tat_us FROM rate_limiters WHERE provider_account = @provider_account AND lane = @lane;

-- name: limiter_set
-- params: @provider_account, @lane, @tat_us
UPDATE rate_limiters SET tat_us = @tat_us WHERE provider_account = @provider_account AND lane = @lane;

-- name: limiter_pause
-- A provider's 429 paused the account until @paused_until (never moved earlier): what the metrics
-- endpoint shows as the pause (migration 0013). paused_since (0035) is when the pause began: kept
-- while the pause is extended, or when this 429 came within @continues_within_ms of its end (the
-- first calls after a pause answered 429 again); else this pause begins at @now. The row exists:
-- throttleAccount has just read it.
-- params: @provider_account, @paused_until, @now, @continues_within_ms
UPDATE rate_limiters
SET paused_since = CASE WHEN paused_since IS NOT NULL AND paused_until IS NOT NULL AND paused_until + @continues_within_ms >= @now
                        THEN paused_since ELSE @now END,
    paused_until = MAX(COALESCE(paused_until, 0), @paused_until)
WHERE provider_account = @provider_account AND lane = '*';

-- name: limiter_lock_free
-- SQLite has one lock, the database's, which the caller's BEGIN IMMEDIATE holds: no row is ever
-- held by another transaction here, so this is limiter_lock (the name PostgreSQL's SKIP LOCKED
-- read has).
-- params: @provider_account, @lane
SELECT tat_us FROM rate_limiters WHERE provider_account = @provider_account AND lane = @lane;

-- name: limiter_refund
-- Gives permits back only when the row is still at the state the reservation wrote (compare and
-- set: src/domain/rate-limit.ts refundedState).
-- params: @provider_account, @lane, @reserved, @refunded
UPDATE rate_limiters SET tat_us = @refunded
WHERE provider_account = @provider_account AND lane = @lane AND tat_us = @reserved;
