-- The review queue, operator replays and what a resend needs. The same statement names as the
-- PostgreSQL driver's review.sql.

-- name: review_list
-- Deliveries a person should look at, newest first; the cursor is the last id of the previous page.
-- A terminal delivery that did not get through (or that a rollout stage held), an `unknown` one a
-- rollout stage held (its attempt's decision is `review`: listed at once, the reconciler leaves it
-- alone), or an `unknown` one reconciliation has not settled since @unknown_before. @reason
-- (NULL: every reason) keeps one review reason.
-- params: @tenant_id, @unknown_before, @reason, @before, @limit
SELECT * FROM (
  SELECT d.*,
    CASE WHEN d.state <> 'unknown' THEN d.terminal_reason
         WHEN EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND a.number = d.attempt_count AND a.decision = 'review') THEN 'held'
         WHEN d.updated_at <= @unknown_before THEN 'unknown_overdue'
    END AS review_reason
  FROM deliveries d
  WHERE d.tenant_id = @tenant_id
    AND ((d.state = 'terminal' AND d.terminal_reason IN ('exhausted', 'rejected', 'unresolved', 'held')) OR d.state = 'unknown')
    AND (@before IS NULL OR d.id < @before)
) r
WHERE review_reason IS NOT NULL AND (@reason IS NULL OR review_reason = @reason)
ORDER BY id DESC
LIMIT @limit;

-- name: replay_insert
-- The audit row of a replay, written in the transaction of its guarded transition.
-- params: @delivery_id, @requested_by, @from_state, @from_reason, @accept_duplicate_risk, @note, @now
INSERT INTO replays (delivery_id, tenant_id, requested_by, from_state, from_reason, accept_duplicate_risk, note, created_at)
SELECT id, tenant_id, @requested_by, @from_state, @from_reason, @accept_duplicate_risk, @note, @now
FROM deliveries WHERE id = @delivery_id;

-- name: replays_by_delivery
-- params: @tenant_id, @delivery_id
SELECT delivery_id, tenant_id, requested_by, from_state, from_reason, accept_duplicate_risk, note, created_at
FROM replays WHERE delivery_id = @delivery_id AND tenant_id = @tenant_id
ORDER BY id;

-- name: replay_candidates
-- A bulk replay's walk: oldest first, after the last id of the previous batch; only states a
-- replay can start from (the `replay` edges of src/domain/transitions.ts).
-- params: @tenant_id, @state, @channel, @provider_account, @created_from, @created_to, @after, @limit (filters NULL when absent)
SELECT * FROM deliveries
WHERE tenant_id = @tenant_id
  AND state IN ('unknown', 'retryable', 'terminal')
  AND (@state IS NULL OR state = @state)
  AND (@channel IS NULL OR channel = @channel)
  AND (@provider_account IS NULL OR provider_account = @provider_account)
  AND (@created_from IS NULL OR created_at >= @created_from)
  AND (@created_to IS NULL OR created_at < @created_to)
  AND (@after IS NULL OR id > @after)
ORDER BY id
LIMIT @limit;

-- name: notification_source
-- params: @tenant_id, @id
SELECT id, tenant_id, recipient_json, purpose, channels_json, content_json, group_key, generation, metadata_json,
       expires_at, created_at
FROM notifications WHERE id = @id AND tenant_id = @tenant_id;

-- name: latest_generation
-- params: @tenant_id, @group_key
SELECT MAX(generation) AS generation FROM notifications WHERE tenant_id = @tenant_id AND group_key = @group_key;
