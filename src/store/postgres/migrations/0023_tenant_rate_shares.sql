-- 0023_tenant_rate_shares: a tenant's rate share of a provider account assigned to it
-- (docs/tenants.md, "Rate shares"): a fraction 0 < rate_share <= 1 of the account's rate that
-- the limiter enforces with the tenant's own row (`tenant:<id>`). NULL: no share, the tenant
-- competes for the account's whole rate as before. The sum over one account's tenants is at most
-- 1; the store checks it in the assigning transaction (a CHECK cannot see other rows).
ALTER TABLE tenant_provider_accounts ADD COLUMN rate_share DOUBLE PRECISION
  CHECK (rate_share IS NULL OR (rate_share > 0 AND rate_share <= 1));
