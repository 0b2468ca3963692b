-- 0021_tenants: tenants an operator creates, scoped API keys, provider accounts assigned to
-- tenants, and an audit trail that records key, tenant, preference, suppression and erasure
-- changes with where they came from (docs/tenants.md, src/store/tenant-store.ts).

-- A key's scopes, space-separated words of API_KEY_SCOPES (src/store/tenant-store.ts). Keys made
-- before 0021 keep full access: every scope, `tenants` (the operator's) included, since until now
-- every key was the operator's.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'send read operate admin dashboard tenants';
-- Optional expiry (epoch ms): a request at or after it is refused as for an unknown key.
ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;
-- Written at most once a minute per key (src/http/auth.ts), so it is approximate by design.
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
-- GET /v1/keys: a tenant's keys, oldest first.
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at, id);

-- Which tenants may send through which configured provider account. An account nobody is
-- assigned stays the default tenant's (single-tenant installs keep working unchanged).
CREATE TABLE tenant_provider_accounts (
  tenant_id         TEXT NOT NULL REFERENCES tenants (id),
  provider_account  TEXT NOT NULL,
  created_at        BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, provider_account)
);
CREATE INDEX tenant_provider_accounts_account ON tenant_provider_accounts (provider_account);

-- operator_actions takes the new actions, the caller's address and a subject for actions whose
-- target is not a notification, delivery, campaign or device (a key, a tenant, a recipient, an account).
ALTER TABLE operator_actions DROP CONSTRAINT operator_actions_action_check;
ALTER TABLE operator_actions ADD CONSTRAINT operator_actions_action_check CHECK (action IN ('retry', 'bulk_retry', 'resend', 'cancel', 'device_retry_failed', 'device_retry', 'campaign_pause', 'campaign_resume', 'campaign_cancel', 'key_create', 'key_revoke', 'key_rotate', 'tenant_create', 'account_assign', 'account_unassign', 'preferences_edit', 'suppression_add', 'suppression_remove', 'recipient_erase'));
-- `cli`: herald keys / tenants at the shell.
ALTER TABLE operator_actions DROP CONSTRAINT operator_actions_actor_kind_check;
ALTER TABLE operator_actions ADD CONSTRAINT operator_actions_actor_kind_check CHECK (actor_kind IN ('api_key', 'user', 'cli'));
ALTER TABLE operator_actions ADD COLUMN subject_id TEXT;
ALTER TABLE operator_actions ADD COLUMN ip TEXT;
-- GET /v1/audit: a tenant's actions newest first (ids are time-ordered), the cursor an id.
CREATE INDEX operator_actions_tenant ON operator_actions (tenant_id, id);
