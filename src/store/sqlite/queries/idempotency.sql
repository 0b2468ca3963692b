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
-- params: @tenant_id, @key, @response_status, @response_body
UPDATE idempotency_keys
SET status = 'completed', response_status = @response_status, response_body = @response_body
WHERE tenant_id = @tenant_id AND key = @key AND status = 'in_progress';

-- name: idempotency_release
-- params: @tenant_id, @key
DELETE FROM idempotency_keys WHERE tenant_id = @tenant_id AND key = @key AND status = 'in_progress';

-- name: idempotency_prune
-- params: @now
DELETE FROM idempotency_keys WHERE status = 'completed' AND expires_at <= @now;
