/** The PostgreSQL driver's tenants part (see src/store/tenant-store.ts). */
import type { NewApiKey, NewTenant } from '../core-store.js';
import { scopesText, toAccountAssignment, toApiKeyInfo, toTenantRecord } from '../tenant-rows.js';
import { sharesFit } from '../../domain/index.js';
import type { AccountAccess, AccountAssignment, ApiKeyInfo, AssignResult, KeyReplacement, TenantRecord, TenantStore } from '../tenant-store.js';
import type { PostgresContext } from './sql-context.js';

/** `store.tenants` of the PostgreSQL store. */
export class PostgresTenants implements TenantStore {
  constructor(private readonly sql: PostgresContext) {}

  async createTenant(tenant: NewTenant, k: NewApiKey, now: number): Promise<boolean> {
    return this.sql.tx(async (c) => {
      const inserted = await this.sql.q('tenant_ensure', [tenant.id, tenant.name, now], c);
      if (inserted.length === 0) return false;
      await this.sql.q('api_key_insert', [k.id, k.tenantId, k.keyHash, k.label, scopesText(k), k.expiresAt ?? null, k.now], c);
      return true;
    });
  }

  async listTenants(): Promise<TenantRecord[]> {
    return (await this.sql.q('tenants_list')).map(toTenantRecord);
  }

  async getTenant(id: string): Promise<TenantRecord | null> {
    const [r] = await this.sql.q('tenant_get', [id]);
    return r ? toTenantRecord(r) : null;
  }

  async listKeys(tenantId: string): Promise<ApiKeyInfo[]> {
    return (await this.sql.q('api_keys_list', [tenantId])).map(toApiKeyInfo);
  }

  async getKey(tenantId: string, id: string): Promise<ApiKeyInfo | null> {
    const [r] = await this.sql.q('api_key_get', [tenantId, id]);
    return r ? toApiKeyInfo(r) : null;
  }

  async revokeKey(tenantId: string, id: string, now: number): Promise<ApiKeyInfo | null> {
    return this.sql.tx(async (c) => {
      await this.sql.q('api_key_revoke', [tenantId, id, now], c);
      const [r] = await this.sql.q('api_key_get', [tenantId, id], c);
      return r ? toApiKeyInfo(r) : null;
    });
  }

  async rotateKey(tenantId: string, id: string, replacement: KeyReplacement, now: number): Promise<ApiKeyInfo | null> {
    return this.sql.tx(async (c) => {
      // Locks the old row, so two rotations of one key cannot both succeed.
      const [old] = await this.sql.q('api_key_lock_live', [tenantId, id], c);
      if (!old) return null;
      await this.sql.q('api_key_replace', [replacement.id, replacement.keyHash, tenantId, id, now], c);
      await this.sql.q('api_key_revoke', [tenantId, id, now], c);
      const [r] = await this.sql.q('api_key_get', [tenantId, replacement.id], c);
      return toApiKeyInfo(r!);
    });
  }

  async touchKey(id: string, now: number): Promise<void> {
    await this.sql.q('api_key_touch', [id, now]);
  }

  async assignAccount(tenantId: string, providerAccount: string, now: number, rateShare: number | null = null): Promise<AssignResult> {
    return this.sql.tx(async (c): Promise<AssignResult> => {
      await this.sql.q('tenant_account_lock', [providerAccount], c);
      if (rateShare !== null) {
        const [r] = await this.sql.q('tenant_account_other_shares', [tenantId, providerAccount], c);
        const others = Number(r?.total ?? 0);
        if (!sharesFit(others + rateShare)) return { ok: false, reason: 'shares_exceed_account', otherShares: others };
      }
      await this.sql.q('tenant_account_assign', [tenantId, providerAccount, now, rateShare], c);
      return { ok: true };
    });
  }

  async accountShares(providerAccount: string): Promise<Array<{ tenantId: string; share: number }>> {
    const rows = await this.sql.q('tenant_account_shares', [providerAccount]);
    return rows.map((r) => ({ tenantId: String(r.tenant_id), share: Number(r.rate_share) }));
  }

  async unassignAccount(tenantId: string, providerAccount: string): Promise<boolean> {
    return (await this.sql.q('tenant_account_unassign', [tenantId, providerAccount])).length > 0;
  }

  async listAssignments(): Promise<AccountAssignment[]> {
    return (await this.sql.q('tenant_accounts_list')).map(toAccountAssignment);
  }

  async accountAccess(tenantId: string): Promise<AccountAccess> {
    const rows = await this.sql.q('tenant_account_access', [tenantId]);
    return { assigned: rows.filter((r) => Number(r.mine) === 1).map((r) => String(r.provider_account)), taken: rows.map((r) => String(r.provider_account)) };
  }
}
