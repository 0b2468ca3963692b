-- The review queue, operator replays and what a resend needs. The same statement names as the
-- SQLite driver's review.sql.

-- name: review_list
-- Deliveries a person should look at, newest first; the cursor is the last id of the previous page.
-- A terminal delivery that did not get through (or that a rollout stage held), an `unknown` one a
-- rollout stage held (its attempt's decision is `review`: listed at once, the reconciler leaves it
-- alone), or an `unknown` one reconciliation has not settled since $2. $3 (NULL: every reason)
-- keeps one review reason.
-- params: $1 tenant_id, $2 unknown_before, $3 reason, $4 before, $5 limit
SELECT * FROM (
  SELECT d.*,
    CASE WHEN d.state <> 'unknown' THEN d.terminal_reason
         WHEN EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND a.number = d.attempt_count AND a.decision = 'review') THEN 'held'
         WHEN d.updated_at <= $2 THEN 'unknown_overdue'
    END AS review_reason
  FROM deliveries d
  WHERE d.tenant_id = $1
    AND ((d.state = 'terminal' AND d.terminal_reason IN ('exhausted', 'rejected', 'unresolved', 'held')) OR d.state = 'unknown')
    AND ($4::text IS NULL OR d.id < $4)
) r
WHERE review_reason IS NOT NULL AND ($3::text IS NULL OR review_reason = $3)
ORDER BY id DESC
LIMIT $5;

-- name: replay_insert
-- The audit row of a replay, written in the transaction of its guarded transition.
-- params: $1 delivery_id, $2 requested_by, $3 from_state, $4 from_reason, $5 accept_duplicate_risk, $6 note, $7 now
INSERT INTO replays (delivery_id, tenant_id, requested_by, from_state, from_reason, accept_duplicate_risk, note, created_at)
SELECT id, tenant_id, $2::text, $3::text, $4::text, $5::boolean, $6::text, $7::bigint
FROM deliveries WHERE id = $1;

-- name: replays_by_delivery
-- params: $1 tenant_id, $2 delivery_id
SELECT delivery_id, tenant_id, requested_by, from_state, from_reason, accept_duplicate_risk, note, created_at
FROM replays WHERE delivery_id = $2 AND tenant_id = $1
ORDER BY id;

-- name: replay_candidates
-- A bulk replay's walk: oldest first, after the last id of the previous batch; only states a
-- replay can start from (the `replay` edges of src/domain/transitions.ts).
-- params: $1 tenant_id, $2 state, $3 channel, $4 provider_account, $5 created_from, $6 created_to, $7 after, $8 limit (filters NULL when absent)
SELECT * FROM deliveries
WHERE tenant_id = $1
  AND state IN ('unknown', 'retryable', 'terminal')
  AND ($2::text IS NULL OR state = $2)
  AND ($3::text IS NULL OR channel = $3)
  AND ($4::text IS NULL OR provider_account = $4)
  AND ($5::bigint IS NULL OR created_at >= $5)
  AND ($6::bigint IS NULL OR created_at < $6)
  AND ($7::text IS NULL OR id > $7)
ORDER BY id
LIMIT $8;

-- name: notification_source
-- params: $1 tenant_id, $2 id
SELECT id, tenant_id, recipient_json, purpose, channels_json, content_json, group_key, generation, metadata_json,
       expires_at, created_at
FROM notifications WHERE id = $2 AND tenant_id = $1;

-- name: latest_generation
-- params: $1 tenant_id, $2 group_key
SELECT MAX(generation) AS generation FROM notifications WHERE tenant_id = $1 AND group_key = $2;
