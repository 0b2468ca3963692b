-- name: idempotency_insert
-- Inserts a reservation unless the key exists; returns a row only when it inserted.
-- params: $1 tenant_id, $2 key, $3 fingerprint, $4 locked_until, $5 now, $6 expires_at
INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status, locked_until, created_at, expires_at)
VALUES ($1, $2, $3, 'in_progress', $4, $5, $6)
ON CONFLICT (tenant_id, key) DO NOTHING
RETURNING key;

-- name: idempotency_insert_many
-- The inserts of several concurrent reservations in one statement (distinct keys); returns the
-- keys it inserted.
-- params: $1 tenant_ids[], $2 keys[], $3 fingerprints[], $4 locked_untils[], $5 nows[], $6 expires_ats[]
INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status, locked_until, created_at, expires_at)
SELECT tenant_id, key, fingerprint, 'in_progress', locked_until, created_at, expires_at
FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
     AS r(tenant_id, key, fingerprint, locked_until, created_at, expires_at)
ON CONFLICT (tenant_id, key) DO NOTHING
RETURNING tenant_id, key;

-- name: idempotency_get
-- Locks the row: two processes deciding about the same key serialize here.
-- params: $1 tenant_id, $2 key
SELECT fingerprint, status, response_status, response_body, locked_until, expires_at
FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 FOR UPDATE;

-- name: idempotency_replace
-- params: $1 tenant_id, $2 key, $3 fingerprint, $4 locked_until, $5 now, $6 expires_at
UPDATE idempotency_keys
SET fingerprint = $3, status = 'in_progress', response_status = NULL, response_body = NULL,
    locked_until = $4, created_at = $5, expires_at = $6
WHERE tenant_id = $1 AND key = $2;

-- name: idempotency_complete
-- The fingerprint names the reservation: a request whose lock was taken over completes nothing.
-- params: $1 tenant_id, $2 key, $3 fingerprint, $4 response_status, $5 response_body
UPDATE idempotency_keys
SET status = 'completed', response_status = $4, response_body = $5
WHERE tenant_id = $1 AND key = $2 AND status = 'in_progress' AND fingerprint = $3;

-- name: idempotency_release
-- params: $1 tenant_id, $2 key
DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND status = 'in_progress';

-- name: idempotency_prune
-- params: $1 now
DELETE FROM idempotency_keys WHERE expires_at <= $1 AND (status = 'completed' OR locked_until <= $1);
