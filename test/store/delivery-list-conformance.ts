/**
 * The delivery list's filters and row fields (GET /v1/deliveries), run against every driver:
 * each filter, alone and combined, across pages, newest first; the search `q` by delivery id,
 * notification id, recipient id and operation id (group key); time bounds (since inclusive,
 * until exclusive); and the fields each row carries beside the delivery.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryFilter, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { MINUTE, SECOND, T0, buildNotification, mustDecide, mustGetDelivery } from './fixtures.js';

const TENANT = 't_list';

export function deliveryListConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`delivery list conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: TENANT, name: 'List' }, T0);
      await store.ensureTenant({ id: 't_other', name: 'Other' }, T0);
    });
    afterEach(() => f.cleanup());

    /** Every id the filter lists, walking pages of 2, in the order listed. */
    async function all(filter: DeliveryFilter, tenant = TENANT): Promise<string[]> {
      const out: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 50; i++) {
        const p: Awaited<ReturnType<Store['listDeliveries']>> = await store.listDeliveries(tenant, filter, cursor, 2);
        out.push(...p.items.map((d) => d.id));
        cursor = p.nextCursor;
        if (cursor === null) break;
      }
      return out;
    }

    /**
     * Far after every other test's clock: the fixtures' monotonic ids would otherwise run ahead
     * of these times (as after a clock stepped back), which `until` allows only a minute of.
     */
    let base = T0 + 1000 * 24 * 60 * MINUTE;

    /** Ten notifications a minute apart: even ones by sms-a for recipient r-even, odd by email-b; every third cancelled. */
    async function seed() {
      // A day later for each seed, for the same reason.
      base += 24 * 60 * MINUTE;
      const made: Array<{ notificationId: string; deliveryId: string; at: number; recipientId: string; groupKey: string }> = [];
      for (let i = 0; i < 10; i++) {
        const at = base + i * MINUTE;
        const sms = i % 2 === 0;
        const n = buildNotification({
          tenantId: TENANT,
          createdAt: at,
          recipientId: sms ? 'r-even' : `r-${i}`,
          groupKey: `login-${i}`,
          deliveries: [sms ? { channel: 'sms', providerAccount: 'sms-a', destination: '+447911123789' } : { channel: 'email', providerAccount: 'email-b' }],
        });
        await store.createNotification(n);
        made.push({ notificationId: n.id, deliveryId: n.deliveries[0]!.id, at, recipientId: n.recipient.id, groupKey: n.groupKey });
        if (i % 3 === 0) {
          const d = await mustGetDelivery(store, n.deliveries[0]!.id);
          const [r] = await store.applyTransitions([
            {
              deliveryId: d.id,
              expect: { state: 'ready', leaseVersion: d.leaseVersion },
              transition: mustDecide(d, { type: 'cancel' }, at + SECOND),
              now: at + SECOND,
            },
          ]);
          expect(r!.applied).toBe(true);
        }
      }
      // Another tenant's delivery, with the same recipient id: never listed for TENANT.
      await store.createNotification(
        buildNotification({ tenantId: 't_other', recipientId: 'r-even', deliveries: [{ channel: 'sms', providerAccount: 'sms-a' }] }),
      );
      return made;
    }

    it('carries the recipient, operation, campaign, device and destination of each row', async () => {
      const made = await seed();
      const [first] = (await store.listDeliveries(TENANT, {}, null, 1)).items;
      expect(first).toMatchObject({
        id: made[9]!.deliveryId,
        notificationId: made[9]!.notificationId,
        recipientId: 'r-9',
        operationId: 'login-9',
        campaignId: null,
        deviceId: null,
        destination: 'ada@example.test',
        channel: 'email',
        providerAccount: 'email-b',
      });
    });

    it('filters by terminal reason, state, account and channel, alone and combined, newest first across pages', async () => {
      const made = await seed();
      const ids = (pick: (i: number) => boolean) =>
        made
          .map((m, i) => [m.deliveryId, i] as const)
          .filter(([, i]) => pick(i))
          .map(([id]) => id)
          .reverse();
      expect(await all({})).toEqual(ids(() => true));
      expect(await all({ terminalReason: 'cancelled' })).toEqual(ids((i) => i % 3 === 0));
      expect(await all({ state: 'ready' })).toEqual(ids((i) => i % 3 !== 0));
      expect(await all({ providerAccount: 'sms-a' })).toEqual(ids((i) => i % 2 === 0));
      expect(await all({ providerAccount: 'sms-a', terminalReason: 'cancelled' })).toEqual(ids((i) => i % 6 === 0));
      expect(await all({ channel: 'email', state: 'terminal' })).toEqual(ids((i) => i % 2 === 1 && i % 3 === 0));
      expect(await all({ terminalReason: 'expired' })).toEqual([]);
      expect(await all({ downstreamStatus: 'delivered' })).toEqual([]);
      expect(await all({ campaignId: 'cmp_none' })).toEqual([]);
      expect(await all({ deviceId: 'dev_none' })).toEqual([]);
      expect(await all({ providerAccount: 'sms-a' }, 't_other')).toHaveLength(1);
    });

    it('bounds by creation time: since inclusive, until exclusive, with the other filters', async () => {
      const made = await seed();
      expect(await all({ since: made[3]!.at, until: made[7]!.at })).toEqual([6, 5, 4, 3].map((i) => made[i]!.deliveryId));
      expect(await all({ since: made[3]!.at + 1 })).toEqual([9, 8, 7, 6, 5, 4].map((i) => made[i]!.deliveryId));
      expect(await all({ until: made[2]!.at, providerAccount: 'sms-a' })).toEqual([made[0]!.deliveryId]);
      expect(await all({ since: made[9]!.at + 1 })).toEqual([]);
    });

    it('q finds exactly a delivery id, a notification id, a recipient id or an operation id, for the tenant only', async () => {
      const made = await seed();
      expect(await all({ q: made[4]!.deliveryId })).toEqual([made[4]!.deliveryId]);
      expect(await all({ q: made[5]!.notificationId })).toEqual([made[5]!.deliveryId]);
      expect(await all({ q: 'r-even' })).toEqual([8, 6, 4, 2, 0].map((i) => made[i]!.deliveryId));
      expect(await all({ q: 'r-even', terminalReason: 'cancelled' })).toEqual([6, 0].map((i) => made[i]!.deliveryId));
      expect(await all({ q: 'login-7' })).toEqual([made[7]!.deliveryId]);
      // Exact, not a prefix or a substring.
      expect(await all({ q: 'login-' })).toEqual([]);
      expect(await all({ q: made[4]!.deliveryId, providerAccount: 'email-b' })).toEqual([]);
      expect(await all({ q: 'r-even' }, 't_other')).toHaveLength(1);
    });
  });
}
