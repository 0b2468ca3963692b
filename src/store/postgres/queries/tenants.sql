-- name: tenant_ensure
-- params: $1 id, $2 name, $3 now
INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3)
ON CONFLICT (id) DO NOTHING;

-- name: api_key_insert
-- params: $1 id, $2 tenant_id, $3 key_hash, $4 label, $5 now
INSERT INTO api_keys (id, tenant_id, key_hash, label, created_at) VALUES ($1, $2, $3, $4, $5);

-- name: api_keys_find
-- Several concurrent look-ups in one query.
-- params: $1 key_hashes[]
SELECT id, tenant_id, key_hash FROM api_keys WHERE key_hash = ANY($1::text[]) AND revoked_at IS NULL;

-- name: api_keys_exist
SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL) AS e;
