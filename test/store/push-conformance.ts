/**
 * The push-subscription part of the Store contract, run against every driver: a subscription
 * is registered, updated and removed per (tenant, recipient, id); a target a push service
 * refused is deactivated for every subscription of the tenant holding it, and stays so until
 * the app registers it again; tenants never see each other's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodePushTarget } from '../../src/domain/index.js';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0 } from './fixtures.js';

const A = 't_alpha';
const B = 't_beta';
const phone = encodePushTarget({ type: 'fcm', token: 'fcm-token-phone' });
const tablet = encodePushTarget({ type: 'apns', token: 'ab'.repeat(32), environment: 'production' });
const browser = encodePushTarget({ type: 'webpush', endpoint: 'https://push.example.test/s/1', keys: { p256dh: 'BNcR', auth: 'tBHI' } });

export function pushConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`push subscriptions conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
    });
    afterEach(() => f.cleanup());

    it('registers, lists newest-updated first among the active ones, updates in place, and removes', async () => {
      await store.push.putPushSubscription({ tenantId: A, recipientId: 'r1', id: 'phone', type: 'fcm', target: phone, now: T0 });
      await store.push.putPushSubscription({ tenantId: A, recipientId: 'r1', id: 'tablet', type: 'apns', target: tablet, now: T0 + SECOND });
      expect((await store.push.activePushTargets(A, 'r1')).map((t) => t.id)).toEqual(['tablet', 'phone']);
      const updated = await store.push.putPushSubscription({
        tenantId: A,
        recipientId: 'r1',
        id: 'phone',
        type: 'webpush',
        target: browser,
        now: T0 + 2 * SECOND,
      });
      expect(updated).toMatchObject({ id: 'phone', type: 'webpush', target: browser, createdAt: T0, updatedAt: T0 + 2 * SECOND, deactivatedAt: null });
      expect(await store.push.activePushTargets(A, 'r1')).toEqual([
        { id: 'phone', type: 'webpush', target: browser },
        { id: 'tablet', type: 'apns', target: tablet },
      ]);
      expect(await store.push.removePushSubscription({ tenantId: A, recipientId: 'r1', id: 'tablet', now: T0 + 3 * SECOND })).toBe(true);
      expect(await store.push.removePushSubscription({ tenantId: A, recipientId: 'r1', id: 'nope', now: T0 + 3 * SECOND })).toBe(false);
      expect((await store.push.activePushTargets(A, 'r1')).map((t) => t.id)).toEqual(['phone']);
      const all = await store.push.listPushSubscriptions(A, 'r1');
      expect(all.map((s) => [s.id, s.deactivatedReason])).toEqual([
        ['phone', null],
        ['tablet', 'removed'],
      ]);
    });

    it('a refused target is deactivated for every subscription of the tenant holding it, not another tenant’s; a new registration revives it', async () => {
      await store.push.putPushSubscription({ tenantId: A, recipientId: 'r1', id: 'phone', type: 'fcm', target: phone, now: T0 });
      await store.push.putPushSubscription({ tenantId: A, recipientId: 'r2', id: 'shared', type: 'fcm', target: phone, now: T0 });
      await store.push.putPushSubscription({ tenantId: B, recipientId: 'r1', id: 'phone', type: 'fcm', target: phone, now: T0 });
      expect(await store.push.inactivePushTargets(A, [phone, tablet])).toEqual(new Set());
      expect(await store.push.deactivatePushTarget({ tenantId: A, target: phone, reason: 'unregistered', code: 'fcm_unregistered', now: T0 + SECOND })).toBe(2);
      expect(
        await store.push.deactivatePushTarget({ tenantId: A, target: phone, reason: 'unregistered', code: 'fcm_unregistered', now: T0 + 2 * SECOND }),
      ).toBe(0);
      expect(await store.push.activePushTargets(A, 'r1')).toEqual([]);
      expect(await store.push.listPushSubscriptions(A, 'r1')).toEqual([
        expect.objectContaining({ id: 'phone', deactivatedAt: T0 + SECOND, deactivatedReason: 'unregistered', deactivatedCode: 'fcm_unregistered' }),
      ]);
      // A target nobody registered is not "inactive": it is unknown (a bare recipient.push_token).
      expect(await store.push.inactivePushTargets(A, [phone, tablet])).toEqual(new Set([phone]));
      expect(await store.push.inactivePushTargets(B, [phone])).toEqual(new Set());
      expect((await store.push.activePushTargets(B, 'r1')).map((t) => t.id)).toEqual(['phone']);
      await store.push.putPushSubscription({ tenantId: A, recipientId: 'r1', id: 'phone', type: 'fcm', target: phone, now: T0 + 3 * SECOND });
      expect((await store.push.activePushTargets(A, 'r1')).map((t) => t.id)).toEqual(['phone']);
      expect(await store.push.inactivePushTargets(A, [phone])).toEqual(new Set());
    });
  });
}
