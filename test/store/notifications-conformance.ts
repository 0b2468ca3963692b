/**
 * Intake's writes and the reads of what they wrote (`parts/core.ts`, the drivers'
 * `notifications.ts`): createNotification with generations and supersede, getNotification,
 * listDeliveries. Part of the Store conformance suite (`conformance.ts`), run against every
 * driver.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { StoreConflictError, type DeliveryView, type Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { ACCOUNT, claim, IDEM, OTHER_TENANT, TENANT, useStoreFixture } from './core-support.js';
import { HOUR, SECOND, T0, buildNotification, seedDeliveries } from './fixtures.js';

/** Runs this part of the contract against one driver. */
export function notificationsConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${name}`, () => {
    const fx = useStoreFixture(name, makeStore);
    let store: Store;
    beforeEach(() => {
      store = fx.store;
    });

    describe('createNotification', () => {
      it('writes the notification and its ready deliveries, readable by getNotification and listDeliveries', async () => {
        const n = buildNotification({
          tenantId: TENANT,
          purpose: 'otp',
          groupKey: 'login-42',
          generation: 2,
          deliveries: [
            { channel: 'sms', providerAccount: 'acct-sms' },
            { channel: 'email', providerAccount: ACCOUNT },
          ],
        });
        await store.createNotification(n);

        const view = await store.getNotification(TENANT, n.id);
        expect(view).toMatchObject({
          id: n.id,
          tenantId: TENANT,
          recipientId: n.recipient.id,
          purpose: 'otp',
          channels: ['sms', 'email'],
          groupKey: 'login-42',
          generation: 2,
          metadata: n.metadata,
          expiresAt: n.expiresAt,
          createdAt: n.createdAt,
        });
        expect(view!.deliveries.map((d) => d.id)).toEqual(n.deliveries.map((d) => d.id));
        n.deliveries.forEach((planned, i) => {
          expect(view!.deliveries[i]).toEqual({
            id: planned.id,
            notificationId: n.id,
            tenantId: TENANT,
            channel: planned.channel,
            purpose: 'otp',
            providerAccount: planned.providerAccount,
            idempotencyKey: planned.idempotencyKey,
            state: 'ready',
            terminalReason: null,
            downstreamStatus: null,
            providerMessageId: null,
            attemptCount: 0,
            leaseVersion: 0,
            nextAttemptAt: expect.any(Number),
            expiresAt: n.expiresAt,
            lastErrorCode: null,
            holdReason: null,
            createdAt: n.createdAt,
            updatedAt: n.createdAt,
            attempts: [],
          });
        });
        // Claimable from the moment it was created.
        expect(view!.deliveries[0]!.nextAttemptAt).toBeLessThanOrEqual(n.createdAt);

        const page = await store.listDeliveries(TENANT, {}, null, 10);
        expect(page.items.map((d) => d.id).sort()).toEqual(n.deliveries.map((d) => d.id).sort());
        const { attempts: _attempts, ...first } = view!.deliveries[0]!;
        expect(await store.getDelivery(n.deliveries[0]!.id)).toEqual(first);
      });

      it('stores a null metadata as null', async () => {
        const n = buildNotification({ tenantId: TENANT, metadata: null });
        await store.createNotification(n);
        expect((await store.getNotification(TENANT, n.id))!.metadata).toBeNull();
      });

      it('hides a notification from another tenant, and returns null for an unknown id', async () => {
        const n = buildNotification({ tenantId: TENANT });
        await store.createNotification(n);
        expect(await store.getNotification(OTHER_TENANT, n.id)).toBeNull();
        expect(await store.getNotification(TENANT, 'ntf_missing')).toBeNull();
        expect(await store.getDelivery('dlv_missing')).toBeNull();
      });

      it('refuses a second notification reusing a delivery key with StoreConflictError and keeps nothing of it', async () => {
        const first = buildNotification({ tenantId: TENANT, groupKey: 'g', generation: 1 });
        await store.createNotification(first);
        // Same identity on email (conflicts) plus a fresh sms delivery that must not survive either.
        const second = buildNotification({
          tenantId: TENANT,
          recipientId: first.recipient.id,
          groupKey: 'g',
          generation: 1,
          deliveries: [
            { channel: 'sms', providerAccount: 'acct-sms' },
            { channel: 'email', providerAccount: ACCOUNT },
          ],
        });
        expect(second.deliveries[1]!.idempotencyKey).toBe(first.deliveries[0]!.idempotencyKey);

        const err = await store.createNotification(second).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StoreConflictError);
        expect((err as StoreConflictError).code).toBe('store_conflict');

        expect(await store.getNotification(TENANT, second.id)).toBeNull();
        for (const d of second.deliveries) expect(await store.getDelivery(d.id)).toBeNull();
        expect((await store.listDeliveries(TENANT, {}, null, 10)).items.map((d) => d.id)).toEqual([first.deliveries[0]!.id]);
        expect(await store.countByState()).toMatchObject({ ready: 1 });
        expect(await claim(store, T0, 10, 'acct-sms')).toEqual([]);
      });

      it('rolls the whole notification back when its idempotency completion fails', async () => {
        const unreserved = buildNotification({ tenantId: TENANT });
        await expect(
          store.createNotification(unreserved, { tenantId: TENANT, key: 'never-reserved', fingerprint: 'fp', statusCode: 202, body: {} }),
        ).rejects.toThrow();
        expect(await store.getNotification(TENANT, unreserved.id)).toBeNull();
        expect(await store.getDelivery(unreserved.deliveries[0]!.id)).toBeNull();

        // A key that already completed cannot be completed by a second notification either.
        await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'k1', fingerprint: 'fp', now: T0, ...IDEM });
        const winner = buildNotification({ tenantId: TENANT });
        await store.createNotification(winner, { tenantId: TENANT, key: 'k1', fingerprint: 'fp', statusCode: 202, body: { id: winner.id } });
        const loser = buildNotification({ tenantId: TENANT });
        await expect(
          store.createNotification(loser, { tenantId: TENANT, key: 'k1', fingerprint: 'fp', statusCode: 202, body: { id: loser.id } }),
        ).rejects.toThrow();
        expect(await store.getNotification(TENANT, loser.id)).toBeNull();
        expect(await store.getDelivery(loser.deliveries[0]!.id)).toBeNull();
        expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'k1', fingerprint: 'fp', now: T0 + SECOND, ...IDEM })).toEqual({
          kind: 'replay',
          statusCode: 202,
          body: { id: winner.id },
        });
        expect(await store.countByState()).toMatchObject({ ready: 1 });
      });
    });

    describe('listDeliveries', () => {
      it('walks 25 deliveries newest first in pages of 10, each exactly once', async () => {
        const ids = await seedDeliveries(store, { tenantId: TENANT, count: 25, providerAccount: ACCOUNT });
        const seen: DeliveryView[] = [];
        const sizes: number[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < 10; page++) {
          const p = await store.listDeliveries(TENANT, {}, cursor, 10);
          sizes.push(p.items.length);
          seen.push(...p.items);
          cursor = p.nextCursor;
          if (cursor === null) break;
        }
        expect(cursor).toBeNull();
        expect(sizes).toEqual([10, 10, 5]);
        expect(seen.map((d) => d.id)).toEqual([...ids].reverse());
        const created = seen.map((d) => d.createdAt);
        expect(created).toEqual([...created].sort((a, b) => b - a));
      });

      it('says the last page is last when the items divide evenly', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 20, providerAccount: ACCOUNT });
        const p1 = await store.listDeliveries(TENANT, {}, null, 10);
        expect(p1.nextCursor).not.toBeNull();
        const p2 = await store.listDeliveries(TENANT, {}, p1.nextCursor, 10);
        expect(p2.items).toHaveLength(10);
        expect(p2.nextCursor).toBeNull();
      });

      it('filters by state, channel and purpose, also combined and across pages', async () => {
        const email = await seedDeliveries(store, { tenantId: TENANT, count: 6, providerAccount: ACCOUNT, channel: 'email', purpose: 'marketing' });
        const sms = await seedDeliveries(store, { tenantId: TENANT, count: 4, providerAccount: 'acct-sms', channel: 'sms', purpose: 'otp' });
        const claimed = (await claim(store, T0 + HOUR / 2, 2)).map((c) => c.deliveryId);
        expect(claimed).toHaveLength(2);

        const all = async (filter: Parameters<Store['listDeliveries']>[1]) => {
          const out: string[] = [];
          let cursor: string | null = null;
          do {
            const p: Awaited<ReturnType<Store['listDeliveries']>> = await store.listDeliveries(TENANT, filter, cursor, 3);
            out.push(...p.items.map((d) => d.id));
            cursor = p.nextCursor;
          } while (cursor !== null);
          return out.sort();
        };
        expect(await all({ channel: 'sms' })).toEqual([...sms].sort());
        expect(await all({ purpose: 'marketing' })).toEqual([...email].sort());
        expect(await all({ state: 'submitting' })).toEqual([...claimed].sort());
        expect(await all({ state: 'ready', channel: 'email' })).toEqual(email.filter((id) => !claimed.includes(id)).sort());
        expect(await all({ state: 'ready', purpose: 'otp' })).toEqual([...sms].sort());
        expect(await all({ state: 'terminal' })).toEqual([]);
        expect(await all({ channel: 'push' })).toEqual([]);
      });

      it('lists only the asking tenant', async () => {
        const mine = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: ACCOUNT });
        const theirs = await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 4, providerAccount: ACCOUNT });
        expect((await store.listDeliveries(TENANT, {}, null, 50)).items.map((d) => d.id).sort()).toEqual([...mine].sort());
        expect((await store.listDeliveries(OTHER_TENANT, {}, null, 50)).items.map((d) => d.id).sort()).toEqual([...theirs].sort());
        expect((await store.listDeliveries('t_nobody', {}, null, 50)).items).toEqual([]);
      });
    });
  });
}
