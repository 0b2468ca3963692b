-- name: alert_states_list
-- params: none
SELECT rule, subject, status, since, clear_since, line, value, announced, announced_at, memory, version
FROM alert_states ORDER BY rule, subject;

-- name: alert_state_insert
-- A state never stored (read at version 0); a row someone else inserted first wins (0 rows).
-- params: @rule, @subject, @status, @since, @clear_since, @line, @value, @announced, @announced_at, @memory, @now
INSERT INTO alert_states (rule, subject, status, since, clear_since, line, value, announced, announced_at, memory, version, updated_at)
VALUES (@rule, @subject, @status, @since, @clear_since, @line, @value, @announced, @announced_at, @memory, 1, @now)
ON CONFLICT (rule, subject) DO NOTHING;

-- name: alert_state_update
-- Compare-and-set: only at the version the caller read (0 rows otherwise).
-- params: @rule, @subject, @status, @since, @clear_since, @line, @value, @announced, @announced_at, @memory, @version, @now
UPDATE alert_states SET status = @status, since = @since, clear_since = @clear_since, line = @line, value = @value,
  announced = @announced, announced_at = @announced_at, memory = @memory, version = @version + 1, updated_at = @now
WHERE rule = @rule AND subject = @subject AND version = @version;

-- name: alert_history_insert
-- params: @sent_at, @rule, @subject, @kind, @target_kind, @target, @provider_account, @outcome, @error_class
INSERT INTO alert_history (sent_at, rule, subject, kind, target_kind, target, provider_account, outcome, error_class)
VALUES (@sent_at, @rule, @subject, @kind, @target_kind, @target, @provider_account, @outcome, @error_class);

-- name: alert_history_page
-- Newest first, below the cursor (null: from the newest); one row more than the page says whether another follows.
-- params: @before, @limit
SELECT id, sent_at, rule, subject, kind, target_kind, target, provider_account, outcome, error_class
FROM alert_history WHERE (@before IS NULL OR id < @before) ORDER BY id DESC LIMIT @limit;

-- name: alert_history_prune
-- params: @before
DELETE FROM alert_history WHERE sent_at < @before;
