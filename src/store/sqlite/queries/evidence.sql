-- Evidence: provider callback events and the reconciler's queue (the suppressions evidence
-- adds are written with suppressions.sql). The same statement names as the PostgreSQL driver's evidence.sql.

-- name: provider_events_insert
-- One event, run per event in one transaction (PostgreSQL's takes the batch as arrays).
-- A repeated event (same account and event id) changes nothing: changes = 0 marks a duplicate.
-- params: @provider_account, @event_id, @status, @provider_message_id, @reference, @suppress, @occurred_at, @received_at
INSERT INTO provider_events (provider_account, event_id, status, provider_message_id, reference, suppress, occurred_at, received_at)
VALUES (@provider_account, @event_id, @status, @provider_message_id, @reference, @suppress, @occurred_at, @received_at)
ON CONFLICT (provider_account, event_id) DO NOTHING;

-- name: evidence_pending
-- Parked events whose delivery is known, matched by the provider's message id first, else by
-- Herald's reference (the idempotency key) on the delivery's account or on any account it was
-- attempted on (a moved delivery's first account may report it delivered after all: a duplicate
-- across accounts, docs/routing.md; attempts' primary key finds its attempts); events of a
-- delivery still in flight wait.
-- params: @limit
SELECT e.id AS row_id, e.provider_account AS event_account, e.event_id, e.status AS event_status,
       e.provider_message_id AS event_pmid, e.reference, e.suppress, e.received_at,
       d.id AS delivery_id, d.tenant_id, d.notification_id, d.channel, d.destination, d.state, d.terminal_reason,
       d.downstream_status, d.provider_message_id, d.attempt_count, d.lease_version, d.expires_at, d.next_attempt_at,
       d.origin_account
FROM provider_events e
JOIN deliveries d ON d.id = COALESCE(
  (SELECT m.id FROM deliveries m
   WHERE e.provider_message_id IS NOT NULL AND m.provider_account = e.provider_account AND m.provider_message_id = e.provider_message_id
   LIMIT 1),
  (SELECT r.id FROM deliveries r WHERE e.reference IS NOT NULL AND r.idempotency_key = e.reference
     AND (r.provider_account = e.provider_account
       OR EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = r.id AND a.provider_account = e.provider_account))))
WHERE e.applied_at IS NULL AND d.state <> 'submitting'
ORDER BY e.id
LIMIT @limit;

-- name: deliveries_evidence_apply
-- Merges evidence into a delivery, guarded by state, fencing token and the downstream status
-- read (null-safe); with @to_state NULL only the downstream status and provider id change.
-- params: @id, @expect_state, @expect_lease_version, @expect_downstream, @to_state, @terminal_reason,
--         @next_attempt_at, @downstream_status, @provider_message_id, @now
UPDATE deliveries
SET state = COALESCE(@to_state, state),
    terminal_reason = CASE WHEN @to_state IS NULL THEN terminal_reason ELSE @terminal_reason END,
    next_attempt_at = CASE WHEN @to_state IS NULL THEN next_attempt_at ELSE @next_attempt_at END,
    downstream_status = @downstream_status,
    confirmed_at = COALESCE(confirmed_at, CASE WHEN @downstream_status IN ('sent', 'delivered', 'read') THEN @now END),
    provider_message_id = COALESCE(provider_message_id, @provider_message_id),
    updated_at = @now
WHERE id = @id AND state = @expect_state AND lease_version = @expect_lease_version
  AND downstream_status IS @expect_downstream
RETURNING tenant_id, notification_id;

-- name: provider_events_settle
-- params: @ids (JSON array of row ids), @delivery_id, @outcome, @now
UPDATE provider_events SET applied_at = @now, outcome = @outcome, delivery_id = @delivery_id
WHERE id IN (SELECT value FROM json_each(@ids)) AND applied_at IS NULL;

-- name: provider_events_orphan
-- Parked events no delivery ever claimed, past retention.
-- params: @before, @now
UPDATE provider_events SET applied_at = @now, outcome = 'orphaned'
WHERE applied_at IS NULL AND received_at < @before;

-- name: provider_events_delete
-- params: @before
DELETE FROM provider_events WHERE applied_at IS NOT NULL AND applied_at < @before;

-- name: attempt_resolve
-- Records how an attempt's ambiguity ended (first resolution wins) and the policy in force;
-- @failover_reason (accept_duplicate) when the resend it allowed moved to another account.
-- params: @delivery_id, @number, @resolution, @policy, @failover_reason
UPDATE attempts SET resolution = COALESCE(resolution, @resolution), ambiguity_policy = COALESCE(@policy, ambiguity_policy),
    failover_reason = COALESCE(@failover_reason, failover_reason)
WHERE delivery_id = @delivery_id AND number = @number;

-- name: unknown_due
-- params: @now, @limit, @accounts (JSON array, or NULL for every account)
SELECT d.id, d.tenant_id, d.provider_account, d.channel, d.purpose, d.idempotency_key, d.origin_account, d.attempt_count,
       d.lease_version, d.expires_at, d.updated_at, n.retry_ladder, n.pinned_channels
FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE d.state = 'unknown' AND (d.reconcile_at IS NULL OR d.reconcile_at <= @now)
  AND (@accounts IS NULL OR d.provider_account IN (SELECT value FROM json_each(@accounts)))
ORDER BY d.updated_at
LIMIT @limit;

-- name: reconcile_defer
-- params: @id, @lease_version, @at
UPDATE deliveries SET reconcile_at = @at
WHERE id = @id AND state = 'unknown' AND lease_version = @lease_version;

-- name: reconcile_lookup_insert
-- One look-up of the reconciler, written with the deferral or resolution it led to.
-- params: @delivery_id, @attempt_number, @looked_at, @result, @led_to, @provider_message_id, @error_code
INSERT INTO reconcile_lookups (delivery_id, attempt_number, looked_at, result, led_to, provider_message_id, error_code)
VALUES (@delivery_id, @attempt_number, @looked_at, @result, @led_to, @provider_message_id, @error_code);

-- name: delivery_callbacks
-- A delivery's callback events: the ones merged into it (provider_events_delivery), then the
-- parked ones that name it by provider message id or its idempotency key (provider_events_pending).
-- The newest @limit, read back oldest first by the driver.
-- params: @delivery_id, @limit
SELECT * FROM (
  SELECT e.id, e.provider_account, e.event_id, e.status, e.provider_message_id, e.occurred_at, e.received_at, e.applied_at, e.outcome
  FROM provider_events e WHERE e.delivery_id = @delivery_id
  UNION ALL
  SELECT e.id, e.provider_account, e.event_id, e.status, e.provider_message_id, e.occurred_at, e.received_at, e.applied_at, e.outcome
  -- INDEXED BY: the parked events are few; without it SQLite walks every event of the account.
  FROM provider_events e INDEXED BY provider_events_pending JOIN deliveries d ON d.id = @delivery_id
  WHERE e.applied_at IS NULL AND e.provider_account = d.provider_account
    AND ((e.provider_message_id IS NOT NULL AND e.provider_message_id = d.provider_message_id)
      OR (e.reference IS NOT NULL AND e.reference = d.idempotency_key))
) x
ORDER BY received_at DESC, id DESC
LIMIT @limit;

-- name: delivery_lookups
-- A delivery's reconciliation look-ups, the newest @limit (reconcile_lookups_delivery).
-- params: @delivery_id, @limit
SELECT id, attempt_number, looked_at, result, led_to, provider_message_id, error_code
FROM reconcile_lookups WHERE delivery_id = @delivery_id
ORDER BY looked_at DESC, id DESC
LIMIT @limit;
