-- Evidence: provider callback events and the reconciler's queue (the suppressions evidence
-- adds are written with suppressions.sql). The same statement names as the SQLite driver's evidence.sql.

-- name: provider_events_insert
-- A batch of events; a repeated one (same account and event id) is skipped. Returns the keys inserted.
-- params: $1 provider_accounts[], $2 event_ids[], $3 statuses[], $4 provider_message_ids[], $5 references[],
--         $6 suppress[], $7 occurred_ats[], $8 received_ats[]
INSERT INTO provider_events (provider_account, event_id, status, provider_message_id, reference, suppress, occurred_at, received_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[])
ON CONFLICT (provider_account, event_id) DO NOTHING
RETURNING provider_account, event_id;

-- name: evidence_pending
-- Parked events whose delivery is known, matched by the provider's message id first, else by
-- Herald's reference (the idempotency key) on the delivery's account or on any account it was
-- attempted on (a moved delivery's first account may report it delivered after all: a duplicate
-- across accounts, docs/routing.md; attempts' primary key finds its attempts); events of a
-- delivery still in flight wait.
-- params: $1 limit
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
LIMIT $1;

-- name: deliveries_evidence_apply
-- A batch of evidence merges in one statement (one row per delivery). Each applies only if
-- the delivery is still as read: state, fencing token and downstream status (null-safe); with
-- to_state NULL only the downstream status and provider id change. Returns what applied.
-- params: $1 ids[], $2 expect_states[], $3 expect_lease_versions[], $4 expect_downstreams[], $5 to_states[],
--         $6 terminal_reasons[], $7 next_attempt_ats[], $8 downstream_statuses[], $9 provider_message_ids[], $10 now
UPDATE deliveries d
SET state = COALESCE(w.to_state, d.state),
    terminal_reason = CASE WHEN w.to_state IS NULL THEN d.terminal_reason ELSE w.reason END,
    next_attempt_at = CASE WHEN w.to_state IS NULL THEN d.next_attempt_at ELSE w.next_at END,
    downstream_status = w.downstream,
    confirmed_at = COALESCE(d.confirmed_at, CASE WHEN w.downstream IN ('sent', 'delivered', 'read') THEN $10::bigint END),
    provider_message_id = COALESCE(d.provider_message_id, w.pmid),
    updated_at = $10
FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::text[])
  AS w(id, expect_state, expect_lv, expect_downstream, to_state, reason, next_at, downstream, pmid)
WHERE d.id = w.id AND d.state = w.expect_state AND d.lease_version = w.expect_lv
  AND d.downstream_status IS NOT DISTINCT FROM w.expect_downstream
RETURNING d.id, d.tenant_id, d.notification_id;

-- name: outbox_insert_many
-- Events in array order (a transition before the downstream change it came with).
-- params: $1 tenant_ids[], $2 notification_ids[], $3 delivery_ids[], $4 event_types[], $5 payloads[], $6 now
INSERT INTO outbox (tenant_id, notification_id, delivery_id, event_type, payload_json, created_at)
SELECT t, n, d, e, p, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS x(t, n, d, e, p, i)
ORDER BY i;

-- name: attempts_resolve_many
-- The attempts whose ambiguity a callback settled (first resolution wins).
-- params: $1 delivery_ids[], $2 numbers[], $3 resolution
UPDATE attempts a SET resolution = COALESCE(a.resolution, $3::text)
FROM unnest($1::text[], $2::int[]) AS w(id, number)
WHERE a.delivery_id = w.id AND a.number = w.number;

-- name: provider_events_settle
-- params: $1 row_ids[], $2 delivery_ids[], $3 outcomes[], $4 now
UPDATE provider_events e SET applied_at = $4, outcome = w.outcome, delivery_id = w.delivery_id
FROM unnest($1::bigint[], $2::text[], $3::text[]) AS w(id, delivery_id, outcome)
WHERE e.id = w.id AND e.applied_at IS NULL;

-- name: provider_events_orphan
-- Parked events no delivery ever claimed, past retention.
-- params: $1 before, $2 now
UPDATE provider_events SET applied_at = $2, outcome = 'orphaned'
WHERE applied_at IS NULL AND received_at < $1
RETURNING id;

-- name: provider_events_delete
-- params: $1 before
DELETE FROM provider_events WHERE applied_at IS NOT NULL AND applied_at < $1
RETURNING id;

-- name: attempt_resolve
-- Records how an attempt's ambiguity ended (first resolution wins) and the policy in force;
-- $5 failover_reason (accept_duplicate) when the resend it allowed moved to another account.
-- params: $1 delivery_id, $2 number, $3 resolution, $4 policy, $5 failover_reason
UPDATE attempts SET resolution = COALESCE(resolution, $3::text), ambiguity_policy = COALESCE($4::text, ambiguity_policy),
    failover_reason = COALESCE($5::text, failover_reason)
WHERE delivery_id = $1 AND number = $2;

-- name: unknown_due
-- params: $1 now, $2 limit, $3 accounts[] (NULL for every account)
SELECT d.id, d.tenant_id, d.provider_account, d.channel, d.purpose, d.idempotency_key, d.origin_account, d.attempt_count,
       d.lease_version, d.expires_at, d.updated_at, n.retry_ladder, n.pinned_channels
FROM deliveries d JOIN notifications n ON n.id = d.notification_id
WHERE d.state = 'unknown' AND (d.reconcile_at IS NULL OR d.reconcile_at <= $1)
  AND ($3::text[] IS NULL OR d.provider_account = ANY($3::text[]))
ORDER BY d.updated_at
LIMIT $2;

-- name: reconcile_defer
-- params: $1 id, $2 lease_version, $3 at
UPDATE deliveries SET reconcile_at = $3
WHERE id = $1 AND state = 'unknown' AND lease_version = $2
RETURNING id;

-- name: reconcile_lookup_insert
-- One look-up of the reconciler, written with the deferral or resolution it led to.
-- params: $1 delivery_id, $2 attempt_number, $3 looked_at, $4 result, $5 led_to, $6 provider_message_id, $7 error_code
INSERT INTO reconcile_lookups (delivery_id, attempt_number, looked_at, result, led_to, provider_message_id, error_code)
VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: delivery_callbacks
-- A delivery's callback events: the ones merged into it (provider_events_delivery), then the
-- parked ones that name it by provider message id or its idempotency key (provider_events_pending).
-- The newest $2, read back oldest first by the driver.
-- params: $1 delivery_id, $2 limit
SELECT * FROM (
  SELECT e.id, e.provider_account, e.event_id, e.status, e.provider_message_id, e.occurred_at, e.received_at, e.applied_at, e.outcome
  FROM provider_events e WHERE e.delivery_id = $1
  UNION ALL
  SELECT e.id, e.provider_account, e.event_id, e.status, e.provider_message_id, e.occurred_at, e.received_at, e.applied_at, e.outcome
  FROM provider_events e JOIN deliveries d ON d.id = $1
  WHERE e.applied_at IS NULL AND e.provider_account = d.provider_account
    AND ((e.provider_message_id IS NOT NULL AND e.provider_message_id = d.provider_message_id)
      OR (e.reference IS NOT NULL AND e.reference = d.idempotency_key))
) x
ORDER BY received_at DESC, id DESC
LIMIT $2;

-- name: delivery_lookups
-- A delivery's reconciliation look-ups, the newest $2 (reconcile_lookups_delivery).
-- params: $1 delivery_id, $2 limit
SELECT id, attempt_number, looked_at, result, led_to, provider_message_id, error_code
FROM reconcile_lookups WHERE delivery_id = $1
ORDER BY looked_at DESC, id DESC
LIMIT $2;
