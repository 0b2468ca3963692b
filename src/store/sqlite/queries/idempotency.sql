-- name: idempotency_get
-- params: @tenant_id, @key
SELECT fingerprint, status, response_status, response_body, locked_until, expires_at
FROM idempotency_keys WHERE tenant_id = @tenant_id AND key = @key;

-- name: idempotency_insert
-- params: @tenant_id, @key, @fingerprint, @locked_until, @now, @expires_at
INSERT INTO idempotency_keys (tenant_id, key, fingerprint, status, locked_until, created_at, expires_at)
VALUES (@tenant_id, @key, @fingerprint, 'in_progress', @locked_until, @now, @expires_at);

-- name: idempotency_replace
-- Takes over a key whose lock ran out, or whose retention passed (a reused pruned key is a new request).
-- params: @tenant_id, @key, @fingerprint, @locked_until, @now, @expires_at
UPDATE idempotency_keys
SET fingerprint = @fingerprint, status = 'in_progress', response_status = NULL, response_body = NULL,
    locked_until = @locked_until, created_at = @now, expires_at = @expires_at
WHERE tenant_id = @tenant_id AND key = @key;

-- name: idempotency_complete
-- The fingerprint names the reservation: a request whose lock was taken over by a different
-- body completes nothing (and its transaction rolls back).
-- params: @tenant_id, @key, @fingerprint, @response_status, @response_body
UPDATE idempotency_keys
SET status = 'completed', response_status = @response_status, response_body = @response_body
WHERE tenant_id = @tenant_id AND key = @key AND status = 'in_progress' AND fingerprint = @fingerprint;

-- name: idempotency_release
-- params: @tenant_id, @key
DELETE FROM idempotency_keys WHERE tenant_id = @tenant_id AND key = @key AND status = 'in_progress';

-- name: idempotency_prune
-- Past retention: completed keys, and reservations whose lock ran out too (the holder died
-- before committing). A live reservation is never pruned.
-- params: @now
DELETE FROM idempotency_keys
WHERE expires_at <= @now AND (status = 'completed' OR locked_until <= @now);
