-- name: alert_states_list
-- params: none
SELECT rule, subject, status, since, clear_since, line, value, announced, announced_at, memory, version
FROM alert_states ORDER BY rule, subject;

-- name: alert_state_insert
-- A state never stored (read at version 0); a row someone else inserted first wins (no row returned).
-- params: $1 rule, $2 subject, $3 status, $4 since, $5 clear_since, $6 line, $7 value, $8 announced, $9 announced_at, $10 memory, $11 now
INSERT INTO alert_states (rule, subject, status, since, clear_since, line, value, announced, announced_at, memory, version, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 1, $11)
ON CONFLICT (rule, subject) DO NOTHING
RETURNING version;

-- name: alert_state_update
-- Compare-and-set: only at the version the caller read (no row returned otherwise).
-- params: $1 rule, $2 subject, $3 status, $4 since, $5 clear_since, $6 line, $7 value, $8 announced, $9 announced_at, $10 memory, $11 version, $12 now
UPDATE alert_states SET status = $3, since = $4, clear_since = $5, line = $6, value = $7,
  announced = $8, announced_at = $9, memory = $10, version = $11 + 1, updated_at = $12
WHERE rule = $1 AND subject = $2 AND version = $11
RETURNING version;

-- name: alert_history_insert
-- params: $1 sent_at, $2 rule, $3 subject, $4 kind, $5 target_kind, $6 target, $7 provider_account, $8 outcome, $9 error_class
INSERT INTO alert_history (sent_at, rule, subject, kind, target_kind, target, provider_account, outcome, error_class)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- name: alert_history_page
-- Newest first, below the cursor (null: from the newest); one row more than the page says whether another follows.
-- params: $1 before, $2 limit
SELECT id, sent_at, rule, subject, kind, target_kind, target, provider_account, outcome, error_class
FROM alert_history WHERE ($1::bigint IS NULL OR id < $1) ORDER BY id DESC LIMIT $2;

-- name: alert_history_prune
-- params: $1 before
DELETE FROM alert_history WHERE sent_at < $1;
