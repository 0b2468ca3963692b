-- name: tenant_ensure
-- Returns the id when it created the tenant, nothing when it existed.
-- params: $1 id, $2 name, $3 now
INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3)
ON CONFLICT (id) DO NOTHING RETURNING id;

-- name: tenants_list
-- params: none
SELECT id, name, created_at FROM tenants ORDER BY id;

-- name: tenant_get
-- params: $1 id
SELECT id, name, created_at FROM tenants WHERE id = $1;

-- name: api_key_insert
-- params: $1 id, $2 tenant_id, $3 key_hash, $4 label, $5 scopes, $6 expires_at, $7 now
INSERT INTO api_keys (id, tenant_id, key_hash, label, scopes, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: api_keys_find
-- Several concurrent look-ups in one query. Read on every request, never cached: a revoke is
-- seen by the next request of every process.
-- params: $1 key_hashes[]
SELECT id, tenant_id, key_hash, scopes, expires_at, last_used_at FROM api_keys WHERE key_hash = ANY($1::text[]) AND revoked_at IS NULL;

-- name: api_keys_exist
-- params: none
SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL) AS e;

-- name: api_keys_list
-- params: $1 tenant_id
SELECT id, tenant_id, label, scopes, created_at, expires_at, last_used_at, revoked_at
FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, id;

-- name: api_key_get
-- params: $1 tenant_id, $2 id
SELECT id, tenant_id, label, scopes, created_at, expires_at, last_used_at, revoked_at
FROM api_keys WHERE tenant_id = $1 AND id = $2;

-- name: api_key_revoke
-- params: $1 tenant_id, $2 id, $3 now
UPDATE api_keys SET revoked_at = $3 WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL;

-- name: api_key_lock_live
-- params: $1 tenant_id, $2 id
SELECT id FROM api_keys WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL FOR UPDATE;

-- name: api_key_replace
-- The rotation's new key: the old one's label, scopes and expiry.
-- params: $1 id, $2 key_hash, $3 tenant_id, $4 old_id, $5 now
INSERT INTO api_keys (id, tenant_id, key_hash, label, scopes, expires_at, created_at)
SELECT $1, tenant_id, $2, label, scopes, expires_at, $5 FROM api_keys
WHERE tenant_id = $3 AND id = $4 AND revoked_at IS NULL;

-- name: api_key_touch
-- params: $1 id, $2 now
UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2);

-- name: tenant_account_lock
-- Serializes assignments of one account until the transaction ends: the sum of its shares is
-- checked and written under it (row locks cannot cover an assignment that does not exist yet).
-- params: $1 provider_account
SELECT pg_advisory_xact_lock(hashtext('tenant_provider_accounts:' || $1::text)) IS NULL AS locked;

-- name: tenant_account_other_shares
-- The rate shares the account's other tenants hold (0 when none).
-- params: $1 tenant_id, $2 provider_account
SELECT COALESCE(SUM(rate_share), 0) AS total FROM tenant_provider_accounts
WHERE provider_account = $2 AND tenant_id <> $1;

-- name: tenant_account_assign
-- Inserts the assignment, or replaces the share of an existing one (created_at stays).
-- params: $1 tenant_id, $2 provider_account, $3 now, $4 rate_share
INSERT INTO tenant_provider_accounts (tenant_id, provider_account, created_at, rate_share) VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant_id, provider_account) DO UPDATE SET rate_share = excluded.rate_share;

-- name: tenant_account_shares
-- The tenants with a rate share of one account.
-- params: $1 provider_account
SELECT tenant_id, rate_share FROM tenant_provider_accounts
WHERE provider_account = $1 AND rate_share IS NOT NULL ORDER BY tenant_id;

-- name: tenant_account_unassign
-- params: $1 tenant_id, $2 provider_account
DELETE FROM tenant_provider_accounts WHERE tenant_id = $1 AND provider_account = $2 RETURNING tenant_id;

-- name: tenant_accounts_list
-- params: none
SELECT tenant_id, provider_account, created_at, rate_share FROM tenant_provider_accounts ORDER BY tenant_id, provider_account;

-- name: tenant_account_access
-- Every assigned account once, and whether this tenant is among its tenants.
-- params: $1 tenant_id
SELECT provider_account, MAX(CASE WHEN tenant_id = $1 THEN 1 ELSE 0 END) AS mine
FROM tenant_provider_accounts GROUP BY provider_account;
