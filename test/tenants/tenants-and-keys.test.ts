/**
 * The tenants-and-keys service both ways in use (the routes and the CLI), on a SQLite store:
 * what each operation writes, and each refusal's stable code, so the two callers refuse alike.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeraldError } from '../../src/errors.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { API_KEY_SCOPES, DEFAULT_TENANT_ID, type Store } from '../../src/store/store.js';
import { hashApiKey, looksLikeApiKey } from '../../src/tenants/api-keys.js';
import { TENANT_KEY_SCOPES, TenantsAndKeys } from '../../src/tenants/tenants-and-keys.js';

const NOW = Date.UTC(2026, 0, 5, 12);
const ACCOUNTS = [{ id: 'sms-main' }, { id: 'mail-main' }];

async function refusal(work: Promise<unknown>): Promise<string> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HeraldError);
  return (err as HeraldError).code;
}

describe('TenantsAndKeys', () => {
  let dir: string;
  let store: Store;
  let service: TenantsAndKeys;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'herald-tenants-'));
    store = openSqliteStore({ path: join(dir, 'herald.db') });
    await store.migrate();
    await store.ensureTenant({ id: DEFAULT_TENANT_ID, name: 'Default' }, NOW);
    service = new TenantsAndKeys(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a tenant with a first key of every scope but tenants, stored only as its hash; a second create is tenant_exists', async () => {
    const minted = await service.createTenant({ id: 'acme', name: 'Acme', keyLabel: 'first key' }, NOW);
    expect(looksLikeApiKey(minted.key)).toBe(true);
    const found = await store.findApiKey(hashApiKey(minted.key));
    expect(found).toMatchObject({ id: minted.id, tenantId: 'acme', scopes: TENANT_KEY_SCOPES });
    expect(TENANT_KEY_SCOPES).not.toContain('tenants');
    expect(await refusal(service.createTenant({ id: 'acme', name: 'Again', keyLabel: 'x' }, NOW))).toBe('tenant_exists');
    expect((await service.list()).tenants.map((t) => t.id)).toEqual(expect.arrayContaining(['acme', DEFAULT_TENANT_ID]));
  });

  it('assigns only configured accounts to existing tenants, keeps the shares on an account at most 1, and unassigns', async () => {
    await service.createTenant({ id: 'acme', name: 'Acme', keyLabel: 'k' }, NOW);
    await service.createTenant({ id: 'beta', name: 'Beta', keyLabel: 'k' }, NOW);
    expect(await refusal(service.assignAccount('nobody', 'sms-main', null, ACCOUNTS, NOW))).toBe('not_found');
    expect(await refusal(service.assignAccount('acme', 'not-configured', null, ACCOUNTS, NOW))).toBe('not_found');
    await service.assignAccount('acme', 'sms-main', 0.7, ACCOUNTS, NOW);
    expect(await refusal(service.assignAccount('beta', 'sms-main', 0.5, ACCOUNTS, NOW))).toBe('rate_shares_exceed_account');
    await service.assignAccount('beta', 'sms-main', 0.3, ACCOUNTS, NOW);
    const { assignments } = await service.list();
    expect(assignments.filter((a) => a.providerAccount === 'sms-main').map((a) => [a.tenantId, a.rateShare])).toEqual(
      expect.arrayContaining([
        ['acme', 0.7],
        ['beta', 0.3],
      ]),
    );
    await service.unassignAccount('beta', 'sms-main');
    expect(await refusal(service.unassignAccount('beta', 'sms-main'))).toBe('not_found');
    expect((await service.list()).assignments.some((a) => a.tenantId === 'beta')).toBe(false);
  });

  it('creates keys with the scopes asked for in a fixed order, rotates a live key once, and revokes', async () => {
    expect(service.defaultScopes(DEFAULT_TENANT_ID)).toEqual([...API_KEY_SCOPES]);
    expect(service.defaultScopes('acme')).toEqual(TENANT_KEY_SCOPES);
    const asked = [...API_KEY_SCOPES].reverse().slice(0, 2);
    const k = await service.createKey(DEFAULT_TENANT_ID, { label: 'ci', scopes: asked, expiresAt: null }, NOW);
    expect(k.scopes).toEqual(API_KEY_SCOPES.filter((s) => asked.includes(s)));
    const rotated = await service.rotateKey(DEFAULT_TENANT_ID, k.id, NOW + 1);
    expect(rotated.info).toMatchObject({ label: 'ci', scopes: k.scopes });
    expect(await store.findApiKey(hashApiKey(rotated.key))).toMatchObject({ id: rotated.info.id });
    expect(await refusal(service.rotateKey(DEFAULT_TENANT_ID, k.id, NOW + 2))).toBe('not_found');
    const revoked = await service.revokeKey(DEFAULT_TENANT_ID, rotated.info.id, NOW + 3);
    expect(revoked.revokedAt).toBe(NOW + 3);
    expect(await refusal(service.revokeKey(DEFAULT_TENANT_ID, 'key_missing', NOW))).toBe('not_found');
    expect(await refusal(service.revokeKey('acme', rotated.info.id, NOW))).toBe('not_found');
  });
});
