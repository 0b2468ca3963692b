/**
 * The operator's tenants and every tenant's API keys, written once for the two ways in: the
 * HTTP routes (`/v1/tenants`, `/v1/keys`) and the CLI (`herald tenants`, `herald keys`). Each
 * operation checks what it needs, writes through the store and returns what the caller shows;
 * a refusal is a HeraldError with its stable code (the routes answer it as a problem document,
 * the CLI prints its message). Who did it (the audit trail) stays with the caller, which knows
 * whether it was a request or a command line.
 */
import { HeraldError } from '../errors.js';
import { newId } from '../ids.js';
import { API_KEY_SCOPES, DEFAULT_TENANT_ID, type AccountAssignment, type ApiKeyInfo, type ApiKeyScope, type Store, type TenantRecord } from '../store/store.js';
import { generateApiKey, hashApiKey } from './api-keys.js';

/** What a tenant's first key may do: everything in the tenant, nothing of the operator's. */
export const TENANT_KEY_SCOPES: ApiKeyScope[] = API_KEY_SCOPES.filter((s) => s !== 'tenants');

/** A tenant id: lower-case letters, digits, _ and -, at most 63. */
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

/** A key shown once: the key itself and the id it is stored under. */
export interface MintedKey {
  id: string;
  key: string;
}

/** The refusal of a share that would take the account's shares past 1. */
export function sharesExceedError(accountId: string, share: number, otherShares: number): HeraldError {
  const left = Math.max(0, Math.round((1 - otherShares) * 1e9) / 1e9);
  return new HeraldError(
    'rate_shares_exceed_account',
    `the other tenants of ${accountId} hold ${Math.round(otherShares * 1e9) / 1e9} of its rate; a share of ${share} would take the sum past 1 (at most ${left} is left)`,
    [{ field: 'rate_share', message: `at most ${left} of ${accountId}'s rate is not held by other tenants` }],
  );
}

export class TenantsAndKeys {
  constructor(private readonly store: Store) {}

  /** Every tenant with every assignment (callers pick a tenant's own). */
  async list(): Promise<{ tenants: TenantRecord[]; assignments: AccountAssignment[] }> {
    const assignments = await this.store.tenants.listAssignments();
    return { tenants: await this.store.tenants.listTenants(), assignments };
  }

  /** The tenant, or 404 not_found. */
  async get(id: string): Promise<TenantRecord> {
    const t = await this.store.tenants.getTenant(id);
    if (!t) throw new HeraldError('not_found', `no tenant ${id}`);
    return t;
  }

  /** A tenant and its first key (TENANT_KEY_SCOPES), or 409 tenant_exists. */
  async createTenant(t: { id: string; name: string; keyLabel: string }, now: number): Promise<MintedKey> {
    const key = generateApiKey();
    const keyId = newId('key', now);
    const created = await this.store.tenants.createTenant(
      { id: t.id, name: t.name },
      { id: keyId, tenantId: t.id, keyHash: hashApiKey(key), label: t.keyLabel, scopes: TENANT_KEY_SCOPES, now },
      now,
    );
    if (!created) throw new HeraldError('tenant_exists', `a tenant ${t.id} already exists`);
    return { id: keyId, key };
  }

  /**
   * Lets a tenant send through a configured account, with an optional rate share: 404 for an
   * unknown tenant or an account not configured, 422 rate_shares_exceed_account when the shares
   * on the account would sum past 1 (nothing written).
   */
  async assignAccount(tenantId: string, accountId: string, share: number | null, configured: readonly { id: string }[], now: number): Promise<TenantRecord> {
    const tenant = await this.get(tenantId);
    if (!configured.some((a) => a.id === accountId)) throw new HeraldError('not_found', `no provider account ${accountId} is configured`);
    const done = await this.store.tenants.assignAccount(tenantId, accountId, now, share);
    if (!done.ok) throw sharesExceedError(accountId, share!, done.otherShares);
    return tenant;
  }

  /** Takes an account away from a tenant: 404 when the tenant is unknown or the account not assigned to it. */
  async unassignAccount(tenantId: string, accountId: string): Promise<TenantRecord> {
    const tenant = await this.get(tenantId);
    if (!(await this.store.tenants.unassignAccount(tenantId, accountId)))
      throw new HeraldError('not_found', `provider account ${accountId} is not assigned to ${tenantId}`);
    return tenant;
  }

  /** The scopes a key gets when none are asked for: the operator's tenant every scope, another tenant all but `tenants`. */
  defaultScopes(tenantId: string): ApiKeyScope[] {
    return tenantId === DEFAULT_TENANT_ID ? [...API_KEY_SCOPES] : TENANT_KEY_SCOPES;
  }

  /** A new key of a tenant, shown once; its scopes in API_KEY_SCOPES' order. */
  async createKey(
    tenantId: string,
    k: { label: string; scopes: readonly ApiKeyScope[]; expiresAt: number | null },
    now: number,
  ): Promise<MintedKey & { scopes: ApiKeyScope[] }> {
    const key = generateApiKey();
    const id = newId('key', now);
    const scopes = API_KEY_SCOPES.filter((s) => k.scopes.includes(s));
    await this.store.createApiKey({ id, tenantId, keyHash: hashApiKey(key), label: k.label, scopes, expiresAt: k.expiresAt, now });
    return { id, key, scopes };
  }

  /** Revokes a key (again is not an error), or 404 not_found. */
  async revokeKey(tenantId: string, keyId: string, now: number): Promise<ApiKeyInfo> {
    const k = await this.store.tenants.revokeKey(tenantId, keyId, now);
    if (!k) throw new HeraldError('not_found', `no API key ${keyId}`);
    return k;
  }

  /** A new key with the old one's label, scopes and expiry; the old one revoked at once. 404 when there is no live key `keyId`. */
  async rotateKey(tenantId: string, keyId: string, now: number): Promise<{ info: ApiKeyInfo; key: string }> {
    const key = generateApiKey();
    const info = await this.store.tenants.rotateKey(tenantId, keyId, { id: newId('key', now), keyHash: hashApiKey(key) }, now);
    if (!info) throw new HeraldError('not_found', `no live API key ${keyId}`);
    return { info, key };
  }
}
