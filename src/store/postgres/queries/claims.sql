-- name: claim_batch
-- One statement, one round trip, one commit: lock due rows (skipping rows another worker is
-- claiming), take their leases with a new fencing token, open their attempt rows, and return
-- what the calls need.
-- The lane's purposes ($6) are walked one index scan each (deliveries_due_purpose), so a
-- lane's claim never scans another lane's backlog; rows a branch locked but the outer LIMIT
-- left out are released when this statement's transaction ends.
-- With $7, only that tenant's deliveries (a tenant with a rate share claims with its own limiter
-- row); with $8, none of those tenants' (everybody else's claim).
-- params: $1 provider_account, $2 now, $3 limit, $4 worker_id, $5 lease_until, $6 purposes[], $7 tenant_id (null: any), $8 except_tenants[] (null: none)
WITH due AS (
  SELECT d.id FROM unnest($6::text[]) AS p(purpose)
  CROSS JOIN LATERAL (
    SELECT id, next_attempt_at FROM deliveries
    WHERE provider_account = $1
      AND purpose = p.purpose
      AND state IN ('ready', 'retryable')
      AND next_attempt_at <= $2
      AND expires_at > $2
      AND ($7::text IS NULL OR tenant_id = $7::text)
      AND ($8::text[] IS NULL OR tenant_id <> ALL($8::text[]))
    ORDER BY next_attempt_at, id
    LIMIT $3
    FOR UPDATE SKIP LOCKED
  ) d
  ORDER BY d.next_attempt_at, d.id
  LIMIT $3
),
claimed AS (
  UPDATE deliveries d
  SET state = 'submitting', lease_owner = $4, lease_until = $5,
      lease_version = d.lease_version + 1, attempt_count = d.attempt_count + 1, updated_at = $2
  FROM due WHERE d.id = due.id
  RETURNING d.id, d.notification_id, d.tenant_id, d.channel, d.purpose, d.provider_account, d.destination,
            d.idempotency_key, d.origin_account, d.expires_at, d.attempt_count, d.lease_version, d.lease_until, d.next_attempt_at
),
opened AS (
  INSERT INTO attempts (delivery_id, number, lease_version, worker_id, started_at, provider_account)
  SELECT id, attempt_count, lease_version, $4, $2, provider_account FROM claimed
)
SELECT c.*, n.content_json, n.retry_ladder, n.pinned_channels, n.created_at AS notification_created_at FROM claimed c JOIN notifications n ON n.id = c.notification_id
ORDER BY c.next_attempt_at, c.id;

-- name: claim_ids
-- claim_batch for named deliveries only (the API process's fast path for a code it has just
-- committed): the same lease, fencing token and attempt row, the same due rules, and the same
-- SKIP LOCKED, so a worker claiming it at the same moment gets either it or nothing.
-- params: $1 provider_account, $2 now, $3 limit, $4 worker_id, $5 lease_until, $6 purposes[], $7 ids[], $8 tenant_id (null: any), $9 except_tenants[] (null: none)
WITH due AS (
  SELECT id, next_attempt_at FROM deliveries
  WHERE id = ANY($7::text[])
    AND provider_account = $1
    AND purpose = ANY($6::text[])
    AND state IN ('ready', 'retryable')
    AND next_attempt_at <= $2
    AND expires_at > $2
    AND ($8::text IS NULL OR tenant_id = $8::text)
    AND ($9::text[] IS NULL OR tenant_id <> ALL($9::text[]))
  ORDER BY next_attempt_at, id
  LIMIT $3
  FOR UPDATE SKIP LOCKED
),
claimed AS (
  UPDATE deliveries d
  SET state = 'submitting', lease_owner = $4, lease_until = $5,
      lease_version = d.lease_version + 1, attempt_count = d.attempt_count + 1, updated_at = $2
  FROM due WHERE d.id = due.id
  RETURNING d.id, d.notification_id, d.tenant_id, d.channel, d.purpose, d.provider_account, d.destination,
            d.idempotency_key, d.origin_account, d.expires_at, d.attempt_count, d.lease_version, d.lease_until, d.next_attempt_at
),
opened AS (
  INSERT INTO attempts (delivery_id, number, lease_version, worker_id, started_at, provider_account)
  SELECT id, attempt_count, lease_version, $4, $2, provider_account FROM claimed
)
SELECT c.*, n.content_json, n.retry_ladder, n.pinned_channels, n.created_at AS notification_created_at FROM claimed c JOIN notifications n ON n.id = c.notification_id
ORDER BY c.next_attempt_at, c.id;

-- name: lease_renew
-- Extends leases still held under the given fencing tokens; returns the ids renewed.
-- params: $1 ids[], $2 lease_versions[], $3 worker_id, $4 lease_until, $5 now
UPDATE deliveries d SET lease_until = $4, updated_at = $5
FROM unnest($1::text[], $2::int[]) AS w(id, lease_version)
WHERE d.id = w.id AND d.lease_version = w.lease_version AND d.state = 'submitting' AND d.lease_owner = $3
RETURNING d.id;

-- name: due_count
-- How many of the lane's deliveries are due now, counting no further than $4: a permitted claim
-- reserves no more permits than there is work for (a permit reserved for nothing is refunded
-- only if nobody drew on its row meanwhile, else lost). With $5, only those deliveries.
-- params: $1 provider_account, $2 now, $3 purposes[], $4 limit, $5 ids[] (null: any), $6 tenant_id (null: any), $7 except_tenants[] (null: none)
SELECT count(*) AS n FROM (
  SELECT 1 FROM unnest($3::text[]) AS p(purpose)
  CROSS JOIN LATERAL (
    SELECT 1 FROM deliveries
    WHERE provider_account = $1
      AND purpose = p.purpose
      AND state IN ('ready', 'retryable')
      AND next_attempt_at <= $2
      AND expires_at > $2
      AND ($5::text[] IS NULL OR id = ANY($5::text[]))
      AND ($6::text IS NULL OR tenant_id = $6::text)
      AND ($7::text[] IS NULL OR tenant_id <> ALL($7::text[]))
    LIMIT $4
  ) d
  LIMIT $4
) x;
