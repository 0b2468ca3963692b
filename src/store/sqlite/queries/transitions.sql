-- name: delivery_transition
-- The only way a delivery changes state after intake and claim. Guarded by the expected state
-- and the fencing token; zero rows changed = a stale writer. @move_to (NULL: stay) is the account
-- of its route a failover moves it to, in the same write that schedules its retry; its first move
-- keeps the account it leaves as origin_account (0035: the account its delivery key is sent on).
-- params: @id, @expect_state, @expect_lease_version, @to_state, @terminal_reason, @next_attempt_at,
--         @provider_message_id, @downstream_status, @last_error_code, @now, @move_to
UPDATE deliveries
SET state = @to_state,
    provider_account = COALESCE(@move_to, provider_account),
    origin_account = CASE WHEN @move_to IS NULL THEN origin_account ELSE COALESCE(origin_account, provider_account) END,
    terminal_reason = @terminal_reason,
    next_attempt_at = @next_attempt_at,
    provider_message_id = COALESCE(@provider_message_id, provider_message_id),
    downstream_status = COALESCE(downstream_status, @downstream_status),
    confirmed_at = COALESCE(confirmed_at, CASE WHEN COALESCE(downstream_status, @downstream_status) IN ('sent', 'delivered', 'read') THEN @now END),
    last_error_code = COALESCE(@last_error_code, last_error_code),
    lease_owner = NULL,
    lease_until = NULL,
    updated_at = @now
WHERE id = @id AND state = @expect_state AND lease_version = @expect_lease_version
RETURNING tenant_id, notification_id, provider_account;

-- name: attempt_finish
-- The rollout decisions (@decision .. @next_stage_retry_at) are NULL where the write has none;
-- @failover_reason is NULL unless the delivery moved to another account after this answer.
-- params: @delivery_id, @number, @now, @outcome, @provider_message_id, @error_code, @error_message, @retry_after_ms,
--         @decision, @decision_retry_at, @next_stage_decision, @next_stage_retry_at, @failover_reason
UPDATE attempts
SET finished_at = @now, outcome = @outcome, provider_message_id = @provider_message_id,
    error_code = @error_code, error_message = @error_message, retry_after_ms = @retry_after_ms,
    decision = @decision, decision_retry_at = @decision_retry_at,
    next_stage_decision = @next_stage_decision, next_stage_retry_at = @next_stage_retry_at,
    failover_reason = @failover_reason
WHERE delivery_id = @delivery_id AND number = @number AND outcome IS NULL;

-- name: attempt_late_outcome
-- params: @delivery_id, @number, @late_outcome, @provider_message_id
UPDATE attempts
SET late_outcome = @late_outcome, provider_message_id = COALESCE(provider_message_id, @provider_message_id)
WHERE delivery_id = @delivery_id AND number = @number;

-- name: leases_expired
-- params: @now, @limit
SELECT id, state, attempt_count, lease_version, expires_at, next_attempt_at FROM deliveries
WHERE state = 'submitting' AND lease_until <= @now
ORDER BY lease_until LIMIT @limit;

-- name: pending_expired
-- params: @now, @limit
SELECT id, state, attempt_count, lease_version, expires_at, next_attempt_at FROM deliveries
WHERE state IN ('ready', 'retryable') AND expires_at <= @now
ORDER BY expires_at LIMIT @limit;

-- name: next_due_at
-- The earliest next_attempt_at among the lane's purposes, one index probe per purpose
-- (deliveries_due_purpose). Expired rows are left out: they wait for the sweeper, not for a claim.
-- params: @provider_account, @now, @purposes (JSON array)
SELECT MIN((SELECT next_attempt_at FROM deliveries
    WHERE provider_account = @provider_account AND purpose = p.value
      AND state IN ('ready', 'retryable') AND expires_at > @now
    ORDER BY next_attempt_at LIMIT 1)) AS at
FROM json_each(@purposes) AS p;
