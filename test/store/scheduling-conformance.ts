/**
 * The scheduling part of the Store contract, run against every driver: a tenant's policy stored
 * and replaced, and the frequency caps' take: at most `max` per rolling period per recipient,
 * channel and purpose, a retry keeping its slot, the refusal naming when the cap allows one more,
 * and never a slot too many when two connections (two workers) take at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FrequencyCap } from '../../src/domain/index.js';
import type { CapTake, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { T0 } from './fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const CAPS: FrequencyCap[] = [
  { max: 2, periodMs: DAY },
  { max: 5, periodMs: 7 * DAY },
];

export function schedulingConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`scheduling conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
    });
    afterEach(() => f.cleanup());

    const take = (s: Store, deliveryId: string, now: number, over: Partial<CapTake> = {}) =>
      s.scheduling.takeCapSlot({ tenantId: 'ten_a', recipientId: 'fan-1', channel: 'sms', purpose: 'marketing', deliveryId, caps: CAPS, now, ...over });

    it("stores a tenant's policy, replaces it whole, and keeps tenants apart", async () => {
      expect(await store.scheduling.getPolicy('ten_a')).toBeNull();
      const policy = { time_zone: 'Europe/Berlin', quiet_hours: { marketing: { start: '20:00', end: '09:00' }, conversational: null } };
      await store.scheduling.putPolicy('ten_a', policy, T0);
      expect(await store.scheduling.getPolicy('ten_a')).toEqual({ policy, updatedAt: T0 });
      const next = { frequency_caps: { marketing: { caps: [{ max: 1, period_seconds: 86_400 }], action: 'suppress' as const } } };
      await store.scheduling.putPolicy('ten_a', next, T0 + HOUR);
      expect(await store.scheduling.getPolicy('ten_a')).toEqual({ policy: next, updatedAt: T0 + HOUR });
      expect(await store.scheduling.getPolicy('ten_b')).toBeNull();
    });

    it('takes at most max per rolling period, keeps a retry in its slot, and says when the cap allows one more', async () => {
      expect(await take(store, 'd1', T0)).toEqual({ ok: true });
      expect(await take(store, 'd2', T0 + HOUR)).toEqual({ ok: true });
      // A retry of a counted delivery is still one message.
      expect(await take(store, 'd1', T0 + 2 * HOUR)).toEqual({ ok: true });
      expect(await take(store, 'd3', T0 + 2 * HOUR)).toEqual({ ok: false, allowsAt: T0 + DAY });
      // Other channels, purposes, recipients and tenants count apart.
      expect(await take(store, 'd4', T0 + 2 * HOUR, { channel: 'email' })).toEqual({ ok: true });
      expect(await take(store, 'd5', T0 + 2 * HOUR, { purpose: 'conversational' })).toEqual({ ok: true });
      expect(await take(store, 'd6', T0 + 2 * HOUR, { recipientId: 'fan-2' })).toEqual({ ok: true });
      expect(await take(store, 'd7', T0 + 2 * HOUR, { tenantId: 'ten_b' })).toEqual({ ok: true });
      // Rolling: one day after the first send, one slot is free again.
      expect(await take(store, 'd3', T0 + DAY - 1)).toEqual({ ok: false, allowsAt: T0 + DAY });
      expect(await take(store, 'd3', T0 + DAY)).toEqual({ ok: true });
      expect(await take(store, 'd8', T0 + DAY)).toEqual({ ok: false, allowsAt: T0 + DAY + HOUR });
      // The week's cap binds after five: two a day for three days is refused on the sixth.
      expect(await take(store, 'd8', T0 + 2 * DAY + HOUR)).toEqual({ ok: true });
      expect(await take(store, 'd9', T0 + 2 * DAY + 2 * HOUR)).toEqual({ ok: true });
      expect(await take(store, 'd10', T0 + 3 * DAY + 3 * HOUR)).toEqual({ ok: false, allowsAt: T0 + 7 * DAY });
    });

    it('never lets a slot too many through when two connections take at once', async () => {
      const peer = await f.openPeer!();
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => take(i % 2 ? peer : store, `race-${i}`, T0 + i)));
      expect(results.filter((r) => r.ok)).toHaveLength(2);
      expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.allowsAt > T0 + DAY - 1)).toBe(true);
    });

    it("takes a batch's slots in one call, in order per key, and two connections' batches in opposite orders neither deadlock nor over-take", async () => {
      const t = (deliveryId: string, recipientId: string, now = T0): CapTake => ({
        tenantId: 'ten_a',
        recipientId,
        channel: 'sms',
        purpose: 'marketing',
        deliveryId,
        caps: CAPS,
        now,
      });
      expect(await store.scheduling.takeCapSlots([t('b1', 'fan-1'), t('b2', 'fan-2'), t('b3', 'fan-1'), t('b4', 'fan-1')])).toEqual([
        { ok: true },
        { ok: true },
        { ok: true },
        { ok: false, allowsAt: T0 + DAY },
      ]);
      // A retry in a batch keeps its slot; a week later the key's old rows are pruned as it is written.
      expect(await store.scheduling.takeCapSlots([t('b3', 'fan-1', T0 + HOUR)])).toEqual([{ ok: true }]);
      expect(await store.scheduling.takeCapSlots([t('b5', 'fan-1', T0 + 8 * DAY), t('b6', 'fan-1', T0 + 8 * DAY)])).toEqual([{ ok: true }, { ok: true }]);
      expect(await store.scheduling.takeCapSlots([t('b7', 'fan-1', T0 + 8 * DAY)])).toEqual([{ ok: false, allowsAt: T0 + 9 * DAY }]);

      const peer = await f.openPeer!();
      const keys = ['x-1', 'x-2', 'x-3'];
      const runs = await Promise.all(
        Array.from({ length: 6 }, (_, i) => {
          const order = i % 2 ? [...keys].reverse() : keys;
          return (i % 2 ? peer : store).scheduling.takeCapSlots(order.map((r) => t(`r${i}-${r}`, r, T0 + i)));
        }),
      );
      for (const r of keys) {
        const ok = runs.flatMap((run, i) => (i % 2 ? [...keys].reverse() : keys).map((k, j) => (k === r ? run[j]! : null))).filter((x) => x?.ok);
        expect(ok).toHaveLength(2);
      }
    });
  });
}
