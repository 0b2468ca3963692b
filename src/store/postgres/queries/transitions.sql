-- name: transitions_apply
-- A batch of guarded transitions in one statement. Each row applies only if the delivery is
-- still in the expected state under the expected fencing token; applied rows close their
-- attempt and write an outbox event. The ids in one batch are distinct (the driver splits
-- batches that name a delivery twice). Returns each applied delivery's id and provider account.
-- params: $1 ids[], $2 expect_states[], $3 expect_lease_versions[], $4 to_states[], $5 terminal_reasons[],
--         $6 next_attempt_ats[], $7 provider_message_ids[], $8 downstream_statuses[], $9 last_error_codes[],
--         $10 now, $11 attempt_numbers[] (NULL = no attempt to close), $12 outcomes[], $13 attempt_pmids[],
--         $14 error_codes[], $15 error_messages[], $16 retry_after_ms[], $17 payloads[],
--         $18 decisions[], $19 decision_retry_ats[], $20 next_stage_decisions[], $21 next_stage_retry_ats[],
--         $22 move_tos[], $23 failover_reasons[]
-- The rollout decisions ($18..$21) are NULL where the write has none; $22 is the account of its
-- route a failover moves the delivery to (NULL: it stays) and $23 why, kept on the attempt; its
-- first move keeps the account it leaves as origin_account (0035: the account its delivery key is sent on).
WITH w AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[],
                       $9::text[], $11::int[], $12::text[], $13::text[], $14::text[], $15::text[], $16::int[], $17::text[],
                       $18::text[], $19::bigint[], $20::text[], $21::bigint[], $22::text[], $23::text[])
    AS w(id, expect_state, expect_lv, to_state, reason, next_at, pmid, downstream, last_error,
         attempt_number, outcome, attempt_pmid, error_code, error_message, retry_after_ms, payload,
         decision, decision_retry_at, next_stage_decision, next_stage_retry_at, move_to, failover_reason)
),
applied AS (
  UPDATE deliveries d
  SET state = w.to_state,
      provider_account = COALESCE(w.move_to, d.provider_account),
      origin_account = CASE WHEN w.move_to IS NULL THEN d.origin_account ELSE COALESCE(d.origin_account, d.provider_account) END,
      terminal_reason = w.reason,
      next_attempt_at = w.next_at,
      provider_message_id = COALESCE(w.pmid, d.provider_message_id),
      downstream_status = COALESCE(d.downstream_status, w.downstream),
      confirmed_at = COALESCE(d.confirmed_at, CASE WHEN COALESCE(d.downstream_status, w.downstream) IN ('sent', 'delivered', 'read') THEN $10::bigint END),
      last_error_code = COALESCE(w.last_error, d.last_error_code),
      lease_owner = NULL,
      lease_until = NULL,
      updated_at = $10
  FROM w
  WHERE d.id = w.id AND d.state = w.expect_state AND d.lease_version = w.expect_lv
  RETURNING d.id, d.tenant_id, d.notification_id, d.provider_account
),
closed AS (
  UPDATE attempts a
  SET finished_at = $10, outcome = w.outcome, provider_message_id = w.attempt_pmid,
      error_code = w.error_code, error_message = w.error_message, retry_after_ms = w.retry_after_ms,
      decision = w.decision, decision_retry_at = w.decision_retry_at,
      next_stage_decision = w.next_stage_decision, next_stage_retry_at = w.next_stage_retry_at,
      failover_reason = w.failover_reason
  FROM w JOIN applied ON applied.id = w.id
  WHERE w.attempt_number IS NOT NULL AND a.delivery_id = w.id AND a.number = w.attempt_number AND a.outcome IS NULL
),
events AS (
  INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
  SELECT applied.tenant_id, applied.notification_id, applied.id, 'delivery.' || w.to_state, w.payload, $10
  FROM applied JOIN w ON w.id = applied.id
)
SELECT id, provider_account FROM applied;

-- name: attempt_late_outcome
-- params: $1 delivery_id, $2 number, $3 late_outcome, $4 provider_message_id
UPDATE attempts SET late_outcome = $3, provider_message_id = COALESCE(provider_message_id, $4)
WHERE delivery_id = $1 AND number = $2;

-- name: leases_expired
-- params: $1 now, $2 limit
SELECT id, state, attempt_count, lease_version, expires_at, next_attempt_at FROM deliveries
WHERE state = 'submitting' AND lease_until <= $1
ORDER BY lease_until LIMIT $2;

-- name: pending_expired
-- params: $1 now, $2 limit
SELECT id, state, attempt_count, lease_version, expires_at, next_attempt_at FROM deliveries
WHERE state IN ('ready', 'retryable') AND expires_at <= $1
ORDER BY expires_at LIMIT $2;

-- name: next_due_at
-- The earliest next_attempt_at among the lane's purposes, one index probe per purpose.
-- Expired rows are left out: they wait for the sweeper, not for a claim.
-- params: $1 provider_account, $2 now, $3 purposes[]
SELECT MIN(d.next_attempt_at) AS at FROM unnest($3::text[]) AS p(purpose)
CROSS JOIN LATERAL (
  SELECT next_attempt_at FROM deliveries
  WHERE provider_account = $1 AND purpose = p.purpose AND state IN ('ready', 'retryable') AND expires_at > $2
  ORDER BY next_attempt_at LIMIT 1
) d;
