/** The SQLite driver's tenants part (see src/store/tenant-store.ts). */
import type { NewApiKey, NewTenant } from '../core-store.js';
import type { Row } from '../rows.js';
import { scopesText, toAccountAssignment, toApiKeyInfo, toTenantRecord } from '../tenant-rows.js';
import { sharesFit } from '../../domain/index.js';
import type { AccountAccess, AccountAssignment, ApiKeyInfo, AssignResult, KeyReplacement, TenantRecord, TenantStore } from '../tenant-store.js';
import type { SqliteContext } from './sql-context.js';

/** The named parameters of `api_key_insert`. */
export function apiKeyParams(k: NewApiKey) {
  return { id: k.id, tenant_id: k.tenantId, key_hash: k.keyHash, label: k.label, scopes: scopesText(k), expires_at: k.expiresAt ?? null, now: k.now };
}

/** `store.tenants` of the SQLite store. */
export class SqliteTenants implements TenantStore {
  constructor(private readonly sql: SqliteContext) {}

  async createTenant(tenant: NewTenant, firstKey: NewApiKey, now: number): Promise<boolean> {
    return this.sql.write(() => {
      if (this.sql.stmt('tenant_ensure').run({ id: tenant.id, name: tenant.name, now }).changes === 0) return false;
      this.sql.stmt('api_key_insert').run(apiKeyParams(firstKey));
      return true;
    });
  }

  async listTenants(): Promise<TenantRecord[]> {
    return (this.sql.stmt('tenants_list').all() as Row[]).map(toTenantRecord);
  }

  async getTenant(id: string): Promise<TenantRecord | null> {
    const r = this.sql.stmt('tenant_get').get({ id }) as Row | undefined;
    return r ? toTenantRecord(r) : null;
  }

  async listKeys(tenantId: string): Promise<ApiKeyInfo[]> {
    return (this.sql.stmt('api_keys_list').all({ tenant_id: tenantId }) as Row[]).map(toApiKeyInfo);
  }

  async getKey(tenantId: string, id: string): Promise<ApiKeyInfo | null> {
    const r = this.sql.stmt('api_key_get').get({ tenant_id: tenantId, id }) as Row | undefined;
    return r ? toApiKeyInfo(r) : null;
  }

  async revokeKey(tenantId: string, id: string, now: number): Promise<ApiKeyInfo | null> {
    return this.sql.write(() => {
      this.sql.stmt('api_key_revoke').run({ tenant_id: tenantId, id, now });
      const r = this.sql.stmt('api_key_get').get({ tenant_id: tenantId, id }) as Row | undefined;
      return r ? toApiKeyInfo(r) : null;
    });
  }

  async rotateKey(tenantId: string, id: string, replacement: KeyReplacement, now: number): Promise<ApiKeyInfo | null> {
    return this.sql.write(() => {
      if (this.sql.stmt('api_key_lock_live').get({ tenant_id: tenantId, id }) === undefined) return null;
      this.sql.stmt('api_key_replace').run({ id: replacement.id, key_hash: replacement.keyHash, tenant_id: tenantId, old_id: id, now });
      this.sql.stmt('api_key_revoke').run({ tenant_id: tenantId, id, now });
      return toApiKeyInfo(this.sql.stmt('api_key_get').get({ tenant_id: tenantId, id: replacement.id }) as Row);
    });
  }

  async touchKey(id: string, now: number): Promise<void> {
    this.sql.stmt('api_key_touch').run({ id, now });
  }

  async assignAccount(tenantId: string, providerAccount: string, now: number, rateShare: number | null = null): Promise<AssignResult> {
    return this.sql.write(() => {
      this.sql.stmt('tenant_account_lock').get({ provider_account: providerAccount });
      if (rateShare !== null) {
        const others = Number((this.sql.stmt('tenant_account_other_shares').get({ tenant_id: tenantId, provider_account: providerAccount }) as Row).total);
        if (!sharesFit(others + rateShare)) return { ok: false, reason: 'shares_exceed_account', otherShares: others };
      }
      this.sql.stmt('tenant_account_assign').run({ tenant_id: tenantId, provider_account: providerAccount, now, rate_share: rateShare });
      return { ok: true };
    });
  }

  async accountShares(providerAccount: string): Promise<Array<{ tenantId: string; share: number }>> {
    const rows = this.sql.stmt('tenant_account_shares').all({ provider_account: providerAccount }) as Row[];
    return rows.map((r) => ({ tenantId: String(r.tenant_id), share: Number(r.rate_share) }));
  }

  async unassignAccount(tenantId: string, providerAccount: string): Promise<boolean> {
    return this.sql.stmt('tenant_account_unassign').run({ tenant_id: tenantId, provider_account: providerAccount }).changes > 0;
  }

  async listAssignments(): Promise<AccountAssignment[]> {
    return (this.sql.stmt('tenant_accounts_list').all() as Row[]).map(toAccountAssignment);
  }

  async accountAccess(tenantId: string): Promise<AccountAccess> {
    const rows = this.sql.stmt('tenant_account_access').all({ tenant_id: tenantId }) as Row[];
    return { assigned: rows.filter((r) => Number(r.mine) === 1).map((r) => String(r.provider_account)), taken: rows.map((r) => String(r.provider_account)) };
  }
}
