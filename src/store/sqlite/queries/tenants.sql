-- name: tenant_ensure
-- params: @id, @name, @now
INSERT INTO tenants (id, name, created_at) VALUES (@id, @name, @now)
ON CONFLICT (id) DO NOTHING;

-- name: api_key_insert
-- params: @id, @tenant_id, @key_hash, @label, @now
INSERT INTO api_keys (id, tenant_id, key_hash, label, created_at)
VALUES (@id, @tenant_id, @key_hash, @label, @now);

-- name: api_keys_find
-- One hash (PostgreSQL's takes the hashes of concurrent look-ups as an array).
-- params: @key_hash
SELECT id, tenant_id FROM api_keys WHERE key_hash = @key_hash AND revoked_at IS NULL;

-- name: api_keys_exist
SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL) AS e;
