-- name: tenant_ensure
-- params: @id, @name, @now
INSERT INTO tenants (id, name, created_at) VALUES (@id, @name, @now)
ON CONFLICT (id) DO NOTHING;

-- name: tenants_list
-- params: none
SELECT id, name, created_at FROM tenants ORDER BY id;

-- name: tenant_get
-- params: @id
SELECT id, name, created_at FROM tenants WHERE id = @id;

-- name: api_key_insert
-- params: @id, @tenant_id, @key_hash, @label, @scopes, @expires_at, @now
INSERT INTO api_keys (id, tenant_id, key_hash, label, scopes, expires_at, created_at)
VALUES (@id, @tenant_id, @key_hash, @label, @scopes, @expires_at, @now);

-- name: api_keys_find
-- One hash (PostgreSQL's takes the hashes of concurrent look-ups as an array). Read on every
-- request, never cached: a revoke is seen by the next request of every process.
-- params: @key_hash
SELECT id, tenant_id, scopes, expires_at, last_used_at FROM api_keys WHERE key_hash = @key_hash AND revoked_at IS NULL;

-- name: api_keys_exist
-- params: none
SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL) AS e;

-- name: api_keys_list
-- params: @tenant_id
SELECT id, tenant_id, label, scopes, created_at, expires_at, last_used_at, revoked_at
FROM api_keys WHERE tenant_id = @tenant_id ORDER BY created_at, id;

-- name: api_key_get
-- params: @tenant_id, @id
SELECT id, tenant_id, label, scopes, created_at, expires_at, last_used_at, revoked_at
FROM api_keys WHERE tenant_id = @tenant_id AND id = @id;

-- name: api_key_revoke
-- params: @tenant_id, @id, @now
UPDATE api_keys SET revoked_at = @now WHERE tenant_id = @tenant_id AND id = @id AND revoked_at IS NULL;

-- name: api_key_lock_live
-- (SQLite's write transaction already holds the lock.)
-- params: @tenant_id, @id
SELECT id FROM api_keys WHERE tenant_id = @tenant_id AND id = @id AND revoked_at IS NULL;

-- name: api_key_replace
-- The rotation's new key: the old one's label, scopes and expiry.
-- params: @id, @key_hash, @tenant_id, @old_id, @now
INSERT INTO api_keys (id, tenant_id, key_hash, label, scopes, expires_at, created_at)
SELECT @id, tenant_id, @key_hash, label, scopes, expires_at, @now FROM api_keys
WHERE tenant_id = @tenant_id AND id = @old_id AND revoked_at IS NULL;

-- name: api_key_touch
-- params: @id, @now
UPDATE api_keys SET last_used_at = @now WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @now);

-- name: tenant_account_lock
-- Serializes assignments of one account (PostgreSQL takes an advisory lock); SQLite's write
-- transaction already holds the database's one lock.
-- params: @provider_account
SELECT @provider_account AS provider_account;

-- name: tenant_account_other_shares
-- The rate shares the account's other tenants hold (0 when none).
-- params: @tenant_id, @provider_account
SELECT COALESCE(SUM(rate_share), 0) AS total FROM tenant_provider_accounts
WHERE provider_account = @provider_account AND tenant_id <> @tenant_id;

-- name: tenant_account_assign
-- Inserts the assignment, or replaces the share of an existing one (created_at stays).
-- params: @tenant_id, @provider_account, @now, @rate_share
INSERT INTO tenant_provider_accounts (tenant_id, provider_account, created_at, rate_share)
VALUES (@tenant_id, @provider_account, @now, @rate_share)
ON CONFLICT (tenant_id, provider_account) DO UPDATE SET rate_share = excluded.rate_share;

-- name: tenant_account_shares
-- The tenants with a rate share of one account.
-- params: @provider_account
SELECT tenant_id, rate_share FROM tenant_provider_accounts
WHERE provider_account = @provider_account AND rate_share IS NOT NULL ORDER BY tenant_id;

-- name: tenant_account_unassign
-- params: @tenant_id, @provider_account
DELETE FROM tenant_provider_accounts WHERE tenant_id = @tenant_id AND provider_account = @provider_account;

-- name: tenant_accounts_list
-- params: none
SELECT tenant_id, provider_account, created_at, rate_share FROM tenant_provider_accounts ORDER BY tenant_id, provider_account;

-- name: tenant_account_access
-- Every assigned account once, and whether this tenant is among its tenants.
-- params: @tenant_id
SELECT provider_account, MAX(CASE WHEN tenant_id = @tenant_id THEN 1 ELSE 0 END) AS mine
FROM tenant_provider_accounts GROUP BY provider_account;
