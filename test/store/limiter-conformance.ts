/**
 * The limiter and per-lane claim parts of the Store contract, run against every driver: the
 * shared GCRA state grants no more than its bound whoever asks (a peer store is another
 * process), a lane's claim sees only its purposes, and a 429 pauses the whole account.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { windowBound } from '../../src/domain/index.js';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0, seedDeliveries } from './fixtures.js';

const TENANT = 't_alpha';
const ACCOUNT = 'acct-sms';
const ACCOUNT_LIMIT = { ratePerSecond: 100, burst: 10 };
const BULK_LIMIT = { ratePerSecond: 80, burst: 10 };

/** Runs the limiter contract against one driver. */
export function limiterConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Limiter and lane claims conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    const ask = (s: Store, now: number, requested: number, lane = 'bulk', laneLimit = BULK_LIMIT) =>
      s.limiter.acquirePermits({ providerAccount: ACCOUNT, lane, now, requested, laneLimit, accountLimit: ACCOUNT_LIMIT });

    it('grants the burst from idle, then one permit per emission interval, and says when to come back', async () => {
      expect(await ask(store, T0, 25)).toEqual({ granted: 10, retryAt: T0 + 13 }); // bulk: 80/s → 12.5 ms per permit
      expect(await ask(store, T0, 1)).toMatchObject({ granted: 0 });
      const later = await ask(store, T0 + 125, 5); // 125 ms at 80/s: 10 permits' worth, capped by request
      expect(later.granted).toBe(5);
      // Another account is independent.
      expect(
        await store.limiter.acquirePermits({
          providerAccount: 'other',
          lane: 'bulk',
          now: T0,
          requested: 3,
          laneLimit: BULK_LIMIT,
          accountLimit: ACCOUNT_LIMIT,
        }),
      ).toEqual({ granted: 3, retryAt: null });
    });

    it('shares one budget between processes: concurrent requests from two stores never exceed the bound', async () => {
      const peer = await fx.openPeer!();
      let granted = 0;
      // One second of steady asking from both, 10 ms apart, interleaved in parallel.
      for (let t = 0; t < 1000; t += 10) {
        const rs = await Promise.all([
          ask(store, T0 + t, 4, 'auth', ACCOUNT_LIMIT),
          ask(peer, T0 + t, 4, 'auth', ACCOUNT_LIMIT),
          ask(store, T0 + t, 4, 'auth', ACCOUNT_LIMIT),
        ]);
        granted += rs.reduce((a, r) => a + r.granted, 0);
      }
      expect(granted).toBeLessThanOrEqual(windowBound({ ...ACCOUNT_LIMIT, windowMs: 1000 }));
      expect(granted).toBeGreaterThanOrEqual(100);
    });

    it('a lane under its cap still shares the account limit with the other lanes', async () => {
      // bulk takes its burst; auth can still take the account's remaining burst, then both wait.
      expect((await ask(store, T0, 10)).granted).toBe(10);
      expect((await ask(store, T0, 10, 'auth', ACCOUNT_LIMIT)).granted).toBe(0); // the account's burst is spent
      expect((await ask(store, T0 + 10, 10, 'auth', ACCOUNT_LIMIT)).granted).toBe(1);
    });

    it('a 429 pauses every lane of the account until Retry-After has passed', async () => {
      const resumeAt = await store.limiter.throttleAccount({ providerAccount: ACCOUNT, now: T0, retryAfterMs: 2 * SECOND, limit: ACCOUNT_LIMIT });
      expect(resumeAt).toBe(T0 + 2 * SECOND);
      expect((await ask(store, T0 + 2 * SECOND - 1, 1)).granted).toBe(0);
      expect((await ask(store, T0 + 2 * SECOND - 1, 1, 'auth', ACCOUNT_LIMIT)).granted).toBe(0);
      expect((await ask(store, T0 + 2 * SECOND, 1)).granted).toBe(1);
    });

    it('claimWithPermits takes no more than the limiter grants, spends one permit per row claimed, and says when to return only if the limiter cut it short', async () => {
      await seedDeliveries(store, { tenantId: TENANT, count: 12, providerAccount: ACCOUNT, channel: 'sms', purpose: 'transactional' });
      const now = T0 + 20 * SECOND;
      const claim = (limit: number, at = now) =>
        store.limiter.claimWithPermits({
          providerAccount: ACCOUNT,
          workerId: 'w',
          now: at,
          leaseMs: 30 * SECOND,
          limit,
          lane: 'bulk',
          laneLimit: BULK_LIMIT,
          accountLimit: ACCOUNT_LIMIT,
        });
      // The burst (10) is the limit: 10 of 12 claimed, and a time to come back.
      const first = await claim(16);
      expect(first.claimed).toHaveLength(10);
      expect(first.retryAt).toBe(now + 13);
      // No permit left now: nothing claimed, nothing spent.
      expect(await claim(16)).toEqual({ claimed: [], retryAt: now + 13 });
      // Later the queue (2 rows) is the limit, not the limiter: no retry time...
      const second = await claim(16, now + 1_000);
      expect(second.claimed).toHaveLength(2);
      expect(second.retryAt).toBeNull();
      // ...and only the 2 permits were spent: 8 more are available at once for another lane.
      expect((await ask(store, now + 1_000, 10, 'auth', ACCOUNT_LIMIT)).granted).toBe(8);
    });

    it('claims and finds due work per lane: a code is claimed ahead of an older marketing backlog', async () => {
      const marketing = await seedDeliveries(store, { tenantId: TENANT, count: 5, providerAccount: ACCOUNT, channel: 'sms', purpose: 'marketing' });
      const [otp] = await seedDeliveries(store, {
        tenantId: TENANT,
        count: 1,
        providerAccount: ACCOUNT,
        channel: 'sms',
        purpose: 'otp',
        createdAt: T0 + 10 * SECOND,
      });
      const now = T0 + 20 * SECOND;
      expect(await store.nextDueAt(ACCOUNT, now, ['otp', 'alert'])).toBe(T0 + 10 * SECOND);
      expect(await store.nextDueAt(ACCOUNT, now, ['marketing'])).toBe(T0);
      expect(await store.nextDueAt(ACCOUNT, now)).toBe(T0);
      const auth = await store.claimBatch({ providerAccount: ACCOUNT, purposes: ['otp', 'alert'], workerId: 'w', now, leaseMs: 30 * SECOND, limit: 2 });
      expect(auth.map((c) => c.deliveryId)).toEqual([otp]);
      const bulk = await store.claimBatch({
        providerAccount: ACCOUNT,
        purposes: ['transactional', 'conversational', 'marketing'],
        workerId: 'w',
        now,
        leaseMs: 30 * SECOND,
        limit: 3,
      });
      expect(bulk.map((c) => c.deliveryId)).toEqual(marketing.slice(0, 3));
      expect(await store.nextDueAt(ACCOUNT, now, ['otp', 'alert'])).toBeNull();
      const rest = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w', now, leaseMs: 30 * SECOND, limit: 10 });
      expect(rest.map((c) => c.deliveryId)).toEqual(marketing.slice(3));
    });
  });
}
