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
-- endpoint shows as the pause (migration 0013). The row exists: throttleAccount has just read it.
-- params: @provider_account, @paused_until
UPDATE rate_limiters SET paused_until = MAX(COALESCE(paused_until, 0), @paused_until)
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
