/** `store.tenants`, written once for both drivers (see ../tenant-store.ts). */
import { sharesFit } from '../../domain/index.js';
import type { NewApiKey, NewTenant } from '../core-store.js';
import { type Body, type Executor, count, one } from '../sql-executor.js';
import { scopesText, toAccountAssignment, toApiKeyInfo, toTenantRecord } from '../tenant-rows.js';
import type { AccountAccess, AccountAssignment, ApiKeyInfo, AssignResult, KeyReplacement, TenantRecord, TenantStore } from '../tenant-store.js';

/** The named parameters of `api_key_insert`. */
export function apiKeyParams(k: NewApiKey) {
  return { id: k.id, tenant_id: k.tenantId, key_hash: k.keyHash, label: k.label, scopes: scopesText(k), expires_at: k.expiresAt ?? null, now: k.now };
}

/** Tenants, their API keys and their provider accounts. */
export class TenantsPart implements TenantStore {
  constructor(private readonly x: Executor) {}

  createTenant(tenant: NewTenant, firstKey: NewApiKey, now: number): Promise<boolean> {
    return this.x.transaction(function* () {
      if ((yield* count('tenant_ensure', { id: tenant.id, name: tenant.name, now })) === 0) return false;
      yield* count('api_key_insert', apiKeyParams(firstKey));
      return true;
    });
  }

  async listTenants(): Promise<TenantRecord[]> {
    return (await this.x.all('tenants_list')).map(toTenantRecord);
  }

  async getTenant(id: string): Promise<TenantRecord | null> {
    const r = await this.x.one('tenant_get', { id });
    return r ? toTenantRecord(r) : null;
  }

  async listKeys(tenantId: string): Promise<ApiKeyInfo[]> {
    return (await this.x.all('api_keys_list', { tenant_id: tenantId })).map(toApiKeyInfo);
  }

  async getKey(tenantId: string, id: string): Promise<ApiKeyInfo | null> {
    const r = await this.x.one('api_key_get', { tenant_id: tenantId, id });
    return r ? toApiKeyInfo(r) : null;
  }

  revokeKey(tenantId: string, id: string, now: number): Promise<ApiKeyInfo | null> {
    return this.x.transaction(function* () {
      yield* count('api_key_revoke', { tenant_id: tenantId, id, now });
      const r = yield* one('api_key_get', { tenant_id: tenantId, id });
      return r ? toApiKeyInfo(r) : null;
    });
  }

  rotateKey(tenantId: string, id: string, replacement: KeyReplacement, now: number): Promise<ApiKeyInfo | null> {
    return this.x.transaction(function* () {
      // Locks the old row (PostgreSQL; SQLite holds its write lock), so two rotations of one key cannot both succeed.
      if (!(yield* one('api_key_lock_live', { tenant_id: tenantId, id }))) return null;
      yield* count('api_key_replace', { id: replacement.id, key_hash: replacement.keyHash, tenant_id: tenantId, old_id: id, now });
      yield* count('api_key_revoke', { tenant_id: tenantId, id, now });
      return toApiKeyInfo((yield* one('api_key_get', { tenant_id: tenantId, id: replacement.id }))!);
    });
  }

  async touchKey(id: string, now: number): Promise<void> {
    await this.x.count('api_key_touch', { id, now });
  }

  assignAccount(tenantId: string, providerAccount: string, now: number, rateShare: number | null = null): Promise<AssignResult> {
    return this.x.transaction(function* (): Body<AssignResult> {
      yield* one('tenant_account_lock', { provider_account: providerAccount });
      if (rateShare !== null) {
        const r = yield* one('tenant_account_other_shares', { tenant_id: tenantId, provider_account: providerAccount });
        const others = Number(r?.total ?? 0);
        if (!sharesFit(others + rateShare)) return { ok: false, reason: 'shares_exceed_account', otherShares: others };
      }
      yield* count('tenant_account_assign', { tenant_id: tenantId, provider_account: providerAccount, now, rate_share: rateShare });
      return { ok: true };
    });
  }

  async accountShares(providerAccount: string): Promise<Array<{ tenantId: string; share: number }>> {
    const rows = await this.x.all('tenant_account_shares', { provider_account: providerAccount });
    return rows.map((r) => ({ tenantId: String(r.tenant_id), share: Number(r.rate_share) }));
  }

  async unassignAccount(tenantId: string, providerAccount: string): Promise<boolean> {
    return (await this.x.count('tenant_account_unassign', { tenant_id: tenantId, provider_account: providerAccount })) > 0;
  }

  async listAssignments(): Promise<AccountAssignment[]> {
    return (await this.x.all('tenant_accounts_list')).map(toAccountAssignment);
  }

  async accountAccess(tenantId: string): Promise<AccountAccess> {
    const rows = await this.x.all('tenant_account_access', { tenant_id: tenantId });
    return { assigned: rows.filter((r) => Number(r.mine) === 1).map((r) => String(r.provider_account)), taken: rows.map((r) => String(r.provider_account)) };
  }
}
