/**
 * The tenants part of the Store contract (`store.tenants`, docs/tenants.md): the tenants an
 * operator creates, each tenant's API keys (listed, revoked, rotated; the hash only, as the core
 * stores them), the last-used time of a key, and which provider accounts each tenant may send
 * through. Both drivers implement it; test/store/tenant-conformance.ts runs on each.
 */
import type { ApiKeyScope, NewApiKey, NewTenant } from './core-store.js';

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: number;
}

/** A key as GET /v1/keys shows it: never its hash. */
export interface ApiKeyInfo {
  id: string;
  tenantId: string;
  label: string;
  scopes: ApiKeyScope[];
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** The replacement a rotation stores: a new id and hash; label, scopes and expiry are the old key's. */
export interface KeyReplacement {
  id: string;
  keyHash: string;
}

/** Which provider accounts a tenant may use: those assigned to it, and (the default tenant only) those assigned to nobody. */
export interface AccountAccess {
  /** Accounts assigned to this tenant. */
  assigned: string[];
  /** Accounts assigned to any tenant at all (an account in none of them is unassigned). */
  taken: string[];
}

/** The tenant of a single-tenant install (the bootstrap key's): it owns every account assigned to nobody. */
export const DEFAULT_TENANT_ID = 'default';

/** True when the tenant may send through the account: assigned to it, or assigned to nobody and the tenant is the default one. */
export function mayUseAccount(access: AccountAccess, tenantId: string, providerAccount: string): boolean {
  if (access.assigned.includes(providerAccount)) return true;
  return tenantId === DEFAULT_TENANT_ID && !access.taken.includes(providerAccount);
}

/** A provider account given to a tenant. */
export interface AccountAssignment {
  tenantId: string;
  providerAccount: string;
  createdAt: number;
  /** The tenant's rate share of the account, 0 < share ≤ 1, enforced by the limiter; null: none (it competes for the whole rate). */
  rateShare: number | null;
}

/** What `assignAccount` did: refused (nothing written) when the shares on the account would sum past 1. */
export type AssignResult = { ok: true } | { ok: false; reason: 'shares_exceed_account'; otherShares: number };

/** `store.tenants`; implemented by sqlite/tenants.ts and postgres/tenants.ts. */
export interface TenantStore {
  /** Creates the tenant and its first key in one transaction; false (nothing written) when the id is taken. */
  createTenant(tenant: NewTenant, firstKey: NewApiKey, now: number): Promise<boolean>;
  /** Every tenant, by id. */
  listTenants(): Promise<TenantRecord[]>;
  getTenant(id: string): Promise<TenantRecord | null>;
  /** The tenant's keys, revoked ones included, oldest first. */
  listKeys(tenantId: string): Promise<ApiKeyInfo[]>;
  /** One of the tenant's keys, or null (another tenant's key is null too). */
  getKey(tenantId: string, id: string): Promise<ApiKeyInfo | null>;
  /**
   * Revokes one of the tenant's keys; the next look-up of its hash on any process finds nothing
   * (the core's findApiKey reads the row each time). Null when the tenant has no such key; an
   * already revoked key is returned as it is.
   */
  revokeKey(tenantId: string, id: string, now: number): Promise<ApiKeyInfo | null>;
  /**
   * Replaces a live key in one transaction: the replacement gets the old key's label, scopes and
   * expiry, the old key is revoked. Null (nothing written) when the tenant has no such live key.
   */
  rotateKey(tenantId: string, id: string, replacement: KeyReplacement, now: number): Promise<ApiKeyInfo | null>;
  /** Records a request's use of the key (callers write it at most once a minute per key). */
  touchKey(id: string, now: number): Promise<void>;
  /**
   * Gives the tenant the account with this rate share (null or absent: none), replacing the
   * share of an assignment it already has (its created_at stays). Refused, nothing written, when
   * the other tenants' shares of the account plus this one would exceed 1; the check and the
   * write are one transaction, serialized per account, so two assignments cannot both squeeze in.
   */
  assignAccount(tenantId: string, providerAccount: string, now: number, rateShare?: number | null): Promise<AssignResult>;
  /** Takes the account away; false when the tenant did not have it. */
  unassignAccount(tenantId: string, providerAccount: string): Promise<boolean>;
  /** Every assignment, by tenant then account. */
  listAssignments(): Promise<AccountAssignment[]>;
  /** The tenants with a rate share of the account and their shares, by tenant (the worker's claim groups). */
  accountShares(providerAccount: string): Promise<Array<{ tenantId: string; share: number }>>;
  /** What intake needs to decide whether the tenant may use an account (one read). */
  accountAccess(tenantId: string): Promise<AccountAccess>;
}
