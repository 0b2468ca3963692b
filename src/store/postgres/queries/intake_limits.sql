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

-- name: velocity_async_commit
-- The take's commit does not wait for its WAL flush (PostgreSQL's synchronous_commit, for this
-- transaction only): a crash may forget the last few hundred milliseconds of events, i.e. let a
-- few more codes through once, in exchange for not spending an fsync per code on a count.
-- params: none
SET LOCAL synchronous_commit TO OFF;

-- name: velocity_lock
-- Serializes takes of these subjects until the transaction ends, locked in sorted order so two
-- takes cannot deadlock.
-- params: $1 lock_keys (text[])
SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) IS NULL AS lock_key FROM (SELECT DISTINCT unnest($1::text[]) AS k ORDER BY 1) keys;

-- name: velocity_recent
-- The newest $6 events of one subject inside the window (newest first): as many as the rule allows at most.
-- params: $1 tenant_id, $2 rule, $3 subject_hash, $4 purpose, $5 since, $6 max
SELECT created_at FROM velocity_events
WHERE tenant_id = $1 AND rule = $2 AND subject_hash = $3 AND purpose = $4 AND created_at > $5
ORDER BY created_at DESC LIMIT $6;

-- name: velocity_insert
-- One event per subject, in one statement.
-- params: $1 tenant_id, $2 rules (text[]), $3 subject_hashes (text[]), $4 purpose, $5 now
INSERT INTO velocity_events (tenant_id, rule, subject_hash, purpose, created_at)
SELECT $1, s.rule, s.subject_hash, $4, $5 FROM unnest($2::text[], $3::text[]) AS s (rule, subject_hash)
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
