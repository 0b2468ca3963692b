-- The counts behind the limits on the way in (migration 0022, docs/abuse-limits.md). The same
-- statement names as the SQLite driver's intake_limits.sql.

-- name: request_window_count
-- Counts one request in the window starting at $2 and returns the window's count: a newer window
-- starts again at 1; a request stamped with an older window (a process whose clock lags) counts
-- in the current one. One statement: the row lock of the upsert orders concurrent requests.
-- params: $1 subject_id, $2 window_start
INSERT INTO request_windows (subject_id, window_start, count) VALUES ($1, $2, 1)
ON CONFLICT (subject_id) DO UPDATE SET
  count = CASE WHEN excluded.window_start > request_windows.window_start THEN 1 ELSE request_windows.count + 1 END,
  window_start = GREATEST(request_windows.window_start, excluded.window_start)
RETURNING count;

-- name: velocity_lock
-- Serializes takes of one subject until the transaction ends (callers lock subjects in sorted
-- order, so two takes cannot deadlock).
-- params: $1 lock_key
SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) IS NULL AS lock_key;

-- name: velocity_recent
-- The newest $6 events of one subject inside the window (newest first): as many as the rule allows at most.
-- params: $1 tenant_id, $2 rule, $3 subject_hash, $4 purpose, $5 since, $6 max
SELECT created_at FROM velocity_events
WHERE tenant_id = $1 AND rule = $2 AND subject_hash = $3 AND purpose = $4 AND created_at > $5
ORDER BY created_at DESC LIMIT $6;

-- name: velocity_insert
-- params: $1 tenant_id, $2 rule, $3 subject_hash, $4 purpose, $5 now
INSERT INTO velocity_events (tenant_id, rule, subject_hash, purpose, created_at)
VALUES ($1, $2, $3, $4, $5)
RETURNING id;

-- name: velocity_prune
-- At most 100 events older than every window, oldest first: each take clears a little.
-- params: $1 before
DELETE FROM velocity_events WHERE id IN (SELECT id FROM velocity_events WHERE created_at < $1 ORDER BY created_at LIMIT 100);

-- name: velocity_release
-- params: $1 ids (text[] of event ids)
DELETE FROM velocity_events WHERE id = ANY($1::bigint[]);

-- name: velocity_count
-- params: $1 tenant_id, $2 rule, $3 subject_hash, $4 purpose, $5 since
SELECT COUNT(*) AS n FROM velocity_events
WHERE tenant_id = $1 AND rule = $2 AND subject_hash = $3 AND purpose = $4 AND created_at > $5;
