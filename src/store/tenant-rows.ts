/** Maps `tenants` and `api_keys` rows to the tenants part's records (tenant-store.ts). */
import { API_KEY_SCOPES, type ApiKeyRecord, type ApiKeyScope, type NewApiKey } from './core-store.js';
import { num, numOrNull, str, type Row } from './rows.js';
import type { AccountAssignment, ApiKeyInfo, TenantRecord } from './tenant-store.js';

/** The scopes column (space-separated words); words a later version might add are dropped, not trusted. */
export function parseScopes(v: unknown): ApiKeyScope[] {
  const words = new Set(str(v).split(' '));
  return API_KEY_SCOPES.filter((s) => words.has(s));
}

/** The scopes column's text for a new key (every scope by default). */
export function scopesText(k: NewApiKey): string {
  return (k.scopes ?? API_KEY_SCOPES).join(' ');
}

export function toTenantRecord(r: Row): TenantRecord {
  return { id: str(r.id), name: str(r.name), createdAt: num(r.created_at) };
}

export function toApiKeyInfo(r: Row): ApiKeyInfo {
  return {
    id: str(r.id),
    tenantId: str(r.tenant_id),
    label: str(r.label),
    scopes: parseScopes(r.scopes),
    createdAt: num(r.created_at),
    expiresAt: numOrNull(r.expires_at),
    lastUsedAt: numOrNull(r.last_used_at),
    revokedAt: numOrNull(r.revoked_at),
  };
}

/** What the core's findApiKey returns for a row of `api_keys_find`. */
export function toApiKeyRecord(r: Row): ApiKeyRecord {
  return {
    id: str(r.id),
    tenantId: str(r.tenant_id),
    scopes: parseScopes(r.scopes),
    expiresAt: numOrNull(r.expires_at),
    lastUsedAt: numOrNull(r.last_used_at),
  };
}

export function toAccountAssignment(r: Row): AccountAssignment {
  return {
    tenantId: str(r.tenant_id),
    providerAccount: str(r.provider_account),
    createdAt: num(r.created_at),
    rateShare: r.rate_share === null || r.rate_share === undefined ? null : Number(r.rate_share),
  };
}
