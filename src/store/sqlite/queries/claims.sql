-- Claims run inside one BEGIN IMMEDIATE transaction: select ids, then update each by id.
-- The per-id form avoids the ~0.5 ms per statement of UPDATE … WHERE id IN (SELECT … LIMIT n)
-- measured on SQLite 3.40 (the subquery form re-plans per row; by id, each update is one index seek).

-- name: claim_select_due
-- With @tenant_id, only that tenant's deliveries (a tenant with a rate share claims with its own
-- limiter row); with @except_tenants, none of theirs (everybody else's claim).
-- The due deliveries of one account among the purposes of one lane (@otp … @alert are 1 for
-- the lane's purposes, 0 for the others). One branch per purpose, each an ordered walk of the
-- deliveries_due_purpose index, so a lane's claim never scans another lane's backlog (a code
-- is found at once behind 600,000 queued campaign messages).
-- params: @provider_account, @now, @limit, @otp, @transactional, @conversational, @marketing, @alert, @tenant_id (null: any), @except_tenants (JSON array; null: none)
SELECT d.id, n.content_json, n.retry_ladder, n.pinned_channels, n.created_at AS notification_created_at FROM (
  SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
    WHERE @otp AND provider_account = @provider_account AND purpose = 'otp'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
    WHERE @transactional AND provider_account = @provider_account AND purpose = 'transactional'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
    WHERE @conversational AND provider_account = @provider_account AND purpose = 'conversational'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
    WHERE @marketing AND provider_account = @provider_account AND purpose = 'marketing'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT * FROM (SELECT id, next_attempt_at FROM deliveries
    WHERE @alert AND provider_account = @provider_account AND purpose = 'alert'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
    ORDER BY next_attempt_at, id LIMIT @limit)
) due
JOIN deliveries d ON d.id = due.id
JOIN notifications n ON n.id = d.notification_id
ORDER BY due.next_attempt_at, due.id
LIMIT @limit;

-- name: claim_ids
-- claim_select_due for named deliveries only (the API process's fast path for a code it has
-- just committed): the same due rules; the lease is then taken by claim_update, whose state
-- guard makes a worker claiming it in another process get either it or nothing.
-- params: @provider_account, @now, @limit, @ids (JSON array), @otp, @transactional, @conversational, @marketing, @alert, @tenant_id (null: any), @except_tenants (JSON array; null: none)
SELECT d.id, n.content_json, n.retry_ladder, n.pinned_channels, n.created_at AS notification_created_at
FROM deliveries d
JOIN notifications n ON n.id = d.notification_id
WHERE d.id IN (SELECT value FROM json_each(@ids))
  AND d.provider_account = @provider_account
  AND ((@otp AND d.purpose = 'otp') OR (@transactional AND d.purpose = 'transactional')
    OR (@conversational AND d.purpose = 'conversational') OR (@marketing AND d.purpose = 'marketing')
    OR (@alert AND d.purpose = 'alert'))
  AND d.state IN ('ready', 'retryable') AND d.next_attempt_at <= @now AND d.expires_at > @now
  AND (@tenant_id IS NULL OR d.tenant_id = @tenant_id) AND (@except_tenants IS NULL OR d.tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
ORDER BY d.next_attempt_at, d.id
LIMIT @limit;

-- name: claim_update
-- Takes the lease: a new fencing token (lease_version) and one more attempt.
-- params: @id, @worker_id, @lease_until, @now
UPDATE deliveries
SET state = 'submitting', lease_owner = @worker_id, lease_until = @lease_until,
    lease_version = lease_version + 1, attempt_count = attempt_count + 1, updated_at = @now
WHERE id = @id AND state IN ('ready', 'retryable')
RETURNING id, notification_id, tenant_id, channel, purpose, provider_account, destination,
          idempotency_key, origin_account, expires_at, attempt_count, lease_version, lease_until;

-- name: lease_renew
-- params: @id, @lease_version, @worker_id, @lease_until, @now
UPDATE deliveries SET lease_until = @lease_until, updated_at = @now
WHERE id = @id AND lease_version = @lease_version AND state = 'submitting' AND lease_owner = @worker_id;

-- name: attempt_insert
-- The attempt keeps the account it used (@provider_account): a delivery that fails over moves on.
-- params: @delivery_id, @number, @lease_version, @worker_id, @now, @provider_account
INSERT INTO attempts (delivery_id, number, lease_version, worker_id, started_at, provider_account)
VALUES (@delivery_id, @number, @lease_version, @worker_id, @now, @provider_account);

-- name: due_count
-- How many of the lane's deliveries are due now, counting no further than @limit: a permitted
-- claim reserves no more permits than there is work for (the same number PostgreSQL's claim
-- reserves in its own transaction; here a reservation and its claim share one). With @ids (a
-- JSON array), only those deliveries.
-- params: @provider_account, @now, @limit, @ids (null: any), @otp, @transactional, @conversational, @marketing, @alert, @tenant_id (null: any), @except_tenants (JSON array; null: none)
SELECT count(*) AS n FROM (
  SELECT id FROM (SELECT id FROM deliveries
    WHERE @otp AND provider_account = @provider_account AND purpose = 'otp'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
      AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT id FROM (SELECT id FROM deliveries
    WHERE @transactional AND provider_account = @provider_account AND purpose = 'transactional'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
      AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT id FROM (SELECT id FROM deliveries
    WHERE @conversational AND provider_account = @provider_account AND purpose = 'conversational'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
      AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT id FROM (SELECT id FROM deliveries
    WHERE @marketing AND provider_account = @provider_account AND purpose = 'marketing'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
      AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  UNION ALL
  SELECT id FROM (SELECT id FROM deliveries
    WHERE @alert AND provider_account = @provider_account AND purpose = 'alert'
      AND state IN ('ready', 'retryable') AND next_attempt_at <= @now AND expires_at > @now
      AND (@tenant_id IS NULL OR tenant_id = @tenant_id) AND (@except_tenants IS NULL OR tenant_id NOT IN (SELECT value FROM json_each(@except_tenants)))
      AND (@ids IS NULL OR id IN (SELECT value FROM json_each(@ids)))
    ORDER BY next_attempt_at, id LIMIT @limit)
  LIMIT @limit
);
