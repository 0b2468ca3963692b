/**
 * The tenants part of the Store contract (store.tenants), run against every driver: tenants with
 * their first key in one transaction, keys listed per tenant and never across, revocation seen by
 * a second connection at once, rotation, last use, provider account assignments and the access
 * intake reads. Plus the audit trail's page (store.audit.list), newest first, per tenant.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_KEY_SCOPES, mayUseAccount, type NewOperatorAction, type Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0 } from './fixtures.js';

export function tenantConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`tenant conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: 'default', name: 'Default' }, T0);
    });
    afterEach(() => f.cleanup());

    const firstKey = (tenantId: string, id: string) => ({ id, tenantId, keyHash: `hash-${id}`, label: 'first', scopes: ['send', 'read'] as const, now: T0 });

    it('creates a tenant with its first key in one transaction; a taken id writes nothing', async () => {
      expect(await store.tenants.createTenant({ id: 'acme', name: 'Acme' }, firstKey('acme', 'key_a1'), T0)).toBe(true);
      expect(await store.tenants.createTenant({ id: 'acme', name: 'Other' }, firstKey('acme', 'key_a2'), T0)).toBe(false);
      expect(await store.tenants.getTenant('acme')).toEqual({ id: 'acme', name: 'Acme', createdAt: T0 });
      expect((await store.tenants.listKeys('acme')).map((k) => k.id)).toEqual(['key_a1']);
      expect(await store.findApiKey('hash-key_a2')).toBeNull();
      expect((await store.tenants.listTenants()).map((t) => t.id)).toEqual(['acme', 'default']);
      expect(await store.tenants.getTenant('nope')).toBeNull();
    });

    it('keeps scopes and expiry; keys created without scopes have every scope; another tenant sees none of them', async () => {
      await store.tenants.createTenant({ id: 'acme', name: 'Acme' }, firstKey('acme', 'key_a1'), T0);
      await store.createApiKey({ id: 'key_d1', tenantId: 'default', keyHash: 'hash-d1', label: 'ops', now: T0 + 1, expiresAt: T0 + 1000 * SECOND });
      expect(await store.findApiKey('hash-key_a1')).toEqual({ id: 'key_a1', tenantId: 'acme', scopes: ['send', 'read'], expiresAt: null, lastUsedAt: null });
      expect(await store.findApiKey('hash-d1')).toEqual({
        id: 'key_d1',
        tenantId: 'default',
        scopes: [...API_KEY_SCOPES],
        expiresAt: T0 + 1000 * SECOND,
        lastUsedAt: null,
      });
      expect(await store.tenants.getKey('default', 'key_a1')).toBeNull();
      expect(await store.tenants.revokeKey('default', 'key_a1', T0)).toBeNull();
      expect(await store.tenants.rotateKey('default', 'key_a1', { id: 'key_x', keyHash: 'hash-x' }, T0)).toBeNull();
      expect(await store.findApiKey('hash-key_a1')).not.toBeNull();
      expect((await store.tenants.listKeys('default')).map((k) => k.id)).toEqual(['key_d1']);
    });

    it('a revoke is seen by another connection at once; revoking again keeps the first time', async () => {
      await store.tenants.createTenant({ id: 'acme', name: 'Acme' }, firstKey('acme', 'key_a1'), T0);
      const peer = await f.openPeer!();
      expect(await peer.findApiKey('hash-key_a1')).not.toBeNull();
      const revoked = await store.tenants.revokeKey('acme', 'key_a1', T0 + SECOND);
      expect(revoked?.revokedAt).toBe(T0 + SECOND);
      expect(await peer.findApiKey('hash-key_a1')).toBeNull();
      expect((await store.tenants.revokeKey('acme', 'key_a1', T0 + 2 * SECOND))?.revokedAt).toBe(T0 + SECOND);
    });

    it('rotates a live key: same label, scopes and expiry, the old one revoked; a revoked key does not rotate', async () => {
      await store.createApiKey({ id: 'key_d1', tenantId: 'default', keyHash: 'hash-d1', label: 'ci', scopes: ['read'], expiresAt: T0 + 99 * SECOND, now: T0 });
      const next = await store.tenants.rotateKey('default', 'key_d1', { id: 'key_d2', keyHash: 'hash-d2' }, T0 + SECOND);
      expect(next).toMatchObject({ id: 'key_d2', label: 'ci', scopes: ['read'], expiresAt: T0 + 99 * SECOND, createdAt: T0 + SECOND, revokedAt: null });
      expect(await store.findApiKey('hash-d1')).toBeNull();
      expect((await store.findApiKey('hash-d2'))?.id).toBe('key_d2');
      expect(await store.tenants.rotateKey('default', 'key_d1', { id: 'key_d3', keyHash: 'hash-d3' }, T0 + 2 * SECOND)).toBeNull();
      expect(await store.findApiKey('hash-d3')).toBeNull();
    });

    it('records last use and never moves it backwards', async () => {
      await store.createApiKey({ id: 'key_d1', tenantId: 'default', keyHash: 'hash-d1', label: 'ci', now: T0 });
      await store.tenants.touchKey('key_d1', T0 + 60 * SECOND);
      await store.tenants.touchKey('key_d1', T0 + 30 * SECOND);
      expect((await store.findApiKey('hash-d1'))?.lastUsedAt).toBe(T0 + 60 * SECOND);
      expect((await store.tenants.getKey('default', 'key_d1'))?.lastUsedAt).toBe(T0 + 60 * SECOND);
    });

    it('assigns provider accounts; an unassigned account is the default tenant’s only', async () => {
      await store.tenants.createTenant({ id: 'acme', name: 'Acme' }, firstKey('acme', 'key_a1'), T0);
      await store.tenants.assignAccount('acme', 'sms-a', T0);
      await store.tenants.assignAccount('acme', 'sms-a', T0 + 1);
      await store.tenants.assignAccount('default', 'sms-a', T0);
      expect(await store.tenants.listAssignments()).toEqual([
        { tenantId: 'acme', providerAccount: 'sms-a', createdAt: T0, rateShare: null },
        { tenantId: 'default', providerAccount: 'sms-a', createdAt: T0, rateShare: null },
      ]);
      const acme = await store.tenants.accountAccess('acme');
      expect(acme).toEqual({ assigned: ['sms-a'], taken: ['sms-a'] });
      expect(mayUseAccount(acme, 'acme', 'sms-a')).toBe(true);
      expect(mayUseAccount(acme, 'acme', 'email-a')).toBe(false);
      const def = await store.tenants.accountAccess('default');
      expect(mayUseAccount(def, 'default', 'email-a')).toBe(true);
      expect(await store.tenants.unassignAccount('default', 'sms-a')).toBe(true);
      expect(await store.tenants.unassignAccount('default', 'sms-a')).toBe(false);
      expect(mayUseAccount(await store.tenants.accountAccess('default'), 'default', 'sms-a')).toBe(false);
    });

    it('keeps rate shares with assignments and refuses shares summing past 1, writing nothing', async () => {
      await store.tenants.createTenant({ id: 'acme', name: 'Acme' }, firstKey('acme', 'key_a1'), T0);
      await store.tenants.createTenant({ id: 'beta', name: 'Beta' }, firstKey('beta', 'key_b1'), T0);
      expect(await store.tenants.assignAccount('acme', 'sms-a', T0, 0.25)).toEqual({ ok: true });
      expect(await store.tenants.assignAccount('beta', 'sms-a', T0, 0.7)).toEqual({ ok: true });
      // 0.25 + 0.7 + 0.1 > 1: refused, and beta's earlier share is untouched.
      expect(await store.tenants.assignAccount('default', 'sms-a', T0, 0.1)).toEqual({ ok: false, reason: 'shares_exceed_account', otherShares: 0.95 });
      expect(await store.tenants.assignAccount('beta', 'sms-a', T0 + 1, 0.8)).toEqual({ ok: false, reason: 'shares_exceed_account', otherShares: 0.25 });
      // Decimal shares summing to exactly 1 fit (0.25 + 0.75); replacing one's own share does not count it twice.
      expect(await store.tenants.assignAccount('beta', 'sms-a', T0 + 1, 0.75)).toEqual({ ok: true });
      // No share never exceeds anything; another account's shares are separate.
      expect(await store.tenants.assignAccount('default', 'sms-a', T0)).toEqual({ ok: true });
      expect(await store.tenants.assignAccount('default', 'sms-b', T0, 1)).toEqual({ ok: true });
      expect(await store.tenants.listAssignments()).toEqual([
        { tenantId: 'acme', providerAccount: 'sms-a', createdAt: T0, rateShare: 0.25 },
        { tenantId: 'beta', providerAccount: 'sms-a', createdAt: T0, rateShare: 0.75 },
        { tenantId: 'default', providerAccount: 'sms-a', createdAt: T0, rateShare: null },
        { tenantId: 'default', providerAccount: 'sms-b', createdAt: T0, rateShare: 1 },
      ]);
      expect(await store.tenants.accountShares('sms-a')).toEqual([
        { tenantId: 'acme', share: 0.25 },
        { tenantId: 'beta', share: 0.75 },
      ]);
      // Re-assigning without a share takes it away.
      expect(await store.tenants.assignAccount('acme', 'sms-a', T0 + 2)).toEqual({ ok: true });
      expect(await store.tenants.accountShares('sms-a')).toEqual([{ tenantId: 'beta', share: 0.75 }]);
    });

    it('pages a tenant’s audit trail newest first, with a cursor, never another tenant’s', async () => {
      await store.tenants.createTenant({ id: 'acme', name: 'Acme' }, firstKey('acme', 'key_a1'), T0);
      const a = (n: number, tenantId = 'default'): NewOperatorAction => ({
        id: `act_0${n}`,
        tenantId,
        at: T0 + n,
        action: 'key_revoke',
        actor: { kind: 'cli', id: 'root', name: null },
        notificationId: null,
        deliveryId: null,
        campaignId: null,
        deviceId: null,
        subjectId: `key_${n}`,
        ip: '203.0.113.9',
        detail: { n },
      });
      await store.audit.record([a(1), a(2), a(3), a(4, 'acme'), a(5)]);
      const first = await store.audit.list('default', null, 2);
      expect(first.items.map((x) => x.id)).toEqual(['act_05', 'act_03']);
      expect(first.items[0]).toMatchObject({ subjectId: 'key_5', ip: '203.0.113.9', actor: { kind: 'cli', id: 'root', name: null }, detail: { n: 5 } });
      const second = await store.audit.list('default', first.next, 2);
      expect(second.items.map((x) => x.id)).toEqual(['act_02', 'act_01']);
      expect(second.next).toBeNull();
      expect((await store.audit.list('default', 'act_01', 2)).items).toEqual([]);
      expect((await store.audit.list('acme', null, 10)).items.map((x) => x.id)).toEqual(['act_04']);
    });
  });
}
