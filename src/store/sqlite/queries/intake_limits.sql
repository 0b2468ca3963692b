-- The counts behind the limits on the way in (migration 0022, docs/abuse-limits.md). The same
-- statement names as the PostgreSQL driver's intake_limits.sql.

-- name: request_window_count
-- Counts one request in the window starting at @window_start and returns the window's count: a
-- newer window starts again at 1; a request stamped with an older window (a process whose clock
-- lags) counts in the current one.
-- params: @subject_id, @window_start
INSERT INTO request_windows (subject_id, window_start, count) VALUES (@subject_id, @window_start, 1)
ON CONFLICT (subject_id) DO UPDATE SET
  count = CASE WHEN excluded.window_start > request_windows.window_start THEN 1 ELSE request_windows.count + 1 END,
  window_start = MAX(request_windows.window_start, excluded.window_start)
RETURNING count;

-- name: velocity_async_commit
-- Nothing to do on SQLite: the take runs in intake's group commit, whose one fsync it shares
-- (PostgreSQL turns synchronous_commit off for the take here).
-- params: none
SELECT 1 AS async_commit;

-- name: velocity_lock
-- Serializes takes of one subject. On SQLite the caller's BEGIN IMMEDIATE already holds the one
-- write lock, so this only names the subject (PostgreSQL takes an advisory lock here).
-- params: @lock_key (one subject per call)
SELECT @lock_key AS lock_key;

-- name: velocity_recent
-- The newest @max events of one subject inside the window (newest first): as many as the rule allows at most.
-- params: @tenant_id, @rule, @subject_hash, @purpose, @since, @max
SELECT created_at FROM velocity_events
WHERE tenant_id = @tenant_id AND rule = @rule AND subject_hash = @subject_hash AND purpose = @purpose AND created_at > @since
ORDER BY created_at DESC LIMIT @max;

-- name: velocity_insert
-- params: @tenant_id, @rule, @subject_hash, @purpose, @now
INSERT INTO velocity_events (tenant_id, rule, subject_hash, purpose, created_at)
VALUES (@tenant_id, @rule, @subject_hash, @purpose, @now)
RETURNING id;

-- name: velocity_prune
-- At most 100 events older than every window, oldest first: each take clears a little.
-- params: @before
DELETE FROM velocity_events WHERE id IN (SELECT id FROM velocity_events WHERE created_at < @before ORDER BY created_at LIMIT 100);

-- name: velocity_release
-- params: @ids (a JSON array of event ids)
DELETE FROM velocity_events WHERE id IN (SELECT value FROM json_each(@ids));

-- name: velocity_count
-- params: @tenant_id, @rule, @subject_hash, @purpose, @since
SELECT COUNT(*) AS n FROM velocity_events
WHERE tenant_id = @tenant_id AND rule = @rule AND subject_hash = @subject_hash AND purpose = @purpose AND created_at > @since;
