/**
 * The limiter and per-lane claim parts of the Store contract, run against every driver: the
 * shared GCRA state grants no more than its bound whoever asks (a peer store is another
 * process), a lane's claim sees only its purposes, and a 429 pauses the whole account.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lanePermitPlans, tenantLimiterRow, windowBound, withTenantRow, type LimiterRow } from '../../src/domain/index.js';
import type { PermitReservation } from '../../src/store/limiter-store.js';
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

    const SHARED: LimiterRow = { row: '*', limit: ACCOUNT_LIMIT }; // 100/s: one permit per 10 ms, burst 10
    const reserve = (s: Store, now: number, requested: number, rows: LimiterRow[] = [SHARED]) =>
      s.limiter.reservePermits({ providerAccount: ACCOUNT, now, requested, rows });

    it('a refund with nobody in between gives the permits back exactly: the next grant is what it would have been', async () => {
      const r = await reserve(store, T0, 10);
      expect(r.granted).toBe(10);
      expect(await store.limiter.refundPermits(r, 7)).toEqual(['*']);
      // As if 3 had been granted at T0: 7 left of the burst, and no more.
      expect((await reserve(store, T0, 10)).granted).toBe(7);
      expect((await reserve(store, T0, 1)).granted).toBe(0);
    });

    it('a refund after anybody else drew on the row is refused: the permits are forfeited, never granted twice', async () => {
      const a = await reserve(store, T0, 10); // the whole burst
      const peer = await fx.openPeer!();
      const b = await reserve(peer, T0 + 50, 10); // 5 permits have accrued in 50 ms
      expect(b.granted).toBe(5);
      // a's 10 are unused, but b was granted on the state a wrote: giving them back now would let
      // the window starting at T0 + 50 hold b's 5, 10 more at once, and then the rate.
      expect(await store.limiter.refundPermits(a, 10)).toEqual([]);
      expect((await reserve(store, T0 + 50, 10)).granted).toBe(0);
      // Over the window [T0 + 50, T0 + 1050), asking every 10 ms, the grants stay within the bound.
      let inWindow = b.granted;
      for (let t = 60; t < 1050; t += 10) inWindow += (await reserve(t % 20 === 0 ? peer : store, T0 + t, 10)).granted;
      expect(inWindow).toBeLessThanOrEqual(windowBound({ ...ACCOUNT_LIMIT, windowMs: 1000 }));
    });

    it('a throttle after a reservation wins over its refund: the pause is never shortened', async () => {
      const a = await reserve(store, T0, 10);
      await store.limiter.throttleAccount({ providerAccount: ACCOUNT, now: T0, retryAfterMs: 2 * SECOND, limit: ACCOUNT_LIMIT });
      expect(await store.limiter.refundPermits(a, 10)).toEqual([]);
      expect((await reserve(store, T0 + 2 * SECOND - 1, 1)).granted).toBe(0);
    });

    it('reservations, claims and delayed refunds from two stores never put more than the bound in any window', async () => {
      const peer = await fx.openPeer!();
      const stores = [store, peer];
      // A fixed pseudo-random schedule (a linear congruential generator): requests of 1-12 at
      // steps of 0-14 ms, each refunding 0 to all of its permits either at once or after the
      // next request (which may have drawn on the row meanwhile).
      let seed = 7;
      const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      const spent: Array<{ at: number; n: number }> = [];
      let pending: { r: PermitReservation; unused: number; at: number } | null = null;
      const settle = async (p: { r: PermitReservation; unused: number; at: number }) => {
        const back = await stores[rand(2)]!.limiter.refundPermits(p.r, p.unused);
        spent.push({ at: p.at, n: p.r.granted - (back.length > 0 ? p.unused : 0) });
      };
      for (let t = 0; t < 3000; t += rand(15)) {
        const r = await reserve(stores[rand(2)]!, T0 + t, 1 + rand(12));
        if (pending) await settle(pending);
        pending = null;
        if (r.granted === 0) continue;
        const p = { r, unused: rand(r.granted + 1), at: T0 + t };
        if (rand(2) === 0) await settle(p);
        else pending = p;
      }
      if (pending) await settle(pending);
      const bound = windowBound({ ...ACCOUNT_LIMIT, windowMs: 1000 });
      for (const { at } of spent) {
        const inWindow = spent.filter((x) => x.at >= at && x.at < at + 1000).reduce((a, x) => a + x.n, 0);
        expect(inWindow).toBeLessThanOrEqual(bound);
      }
      // Refunds did give permits back: far more was spent than without them (3 s at 100/s).
      expect(spent.reduce((a, x) => a + x.n, 0)).toBeGreaterThan(250);
    });

    it('concurrent permitted claims from two stores never spend one permit twice nor claim one delivery twice', async () => {
      await seedDeliveries(store, { tenantId: TENANT, count: 30, providerAccount: ACCOUNT, channel: 'sms', purpose: 'transactional' });
      const peer = await fx.openPeer!();
      const now = T0 + 40 * SECOND;
      const claim = (s: Store, workerId: string) =>
        s.limiter.claimWithPermits({
          providerAccount: ACCOUNT,
          workerId,
          now,
          leaseMs: 30 * SECOND,
          limit: 8,
          lane: 'bulk',
          laneLimit: BULK_LIMIT,
          accountLimit: ACCOUNT_LIMIT,
        });
      const results = await Promise.all([claim(store, 'w1'), claim(peer, 'w2'), claim(store, 'w3'), claim(peer, 'w4')]);
      const ids = results.flatMap((r) => r.claimed.map((c) => c.deliveryId));
      expect(new Set(ids).size).toBe(ids.length);
      // The burst (10) at one instant, however the four interleave; the queue (30) was not the limit.
      expect(ids.length).toBe(10);
      expect((await ask(store, now, 10, 'auth', ACCOUNT_LIMIT)).granted).toBe(0);
    });

    it("a lane with a guaranteed share draws on its own row while the campaign's shared row is spent, and the account stays within its bound", async () => {
      const account = { rate_per_second: 100, burst: 10 };
      const lanes = [
        { name: 'auth', purposes: ['otp', 'alert'] as const, guaranteed_share: 0.2 },
        { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'] as const, guaranteed_share: 0 },
      ];
      const [auth, bulk] = lanePermitPlans(account, lanes);
      expect(auth!.scheme).toBe('split');
      await seedDeliveries(store, { tenantId: TENANT, count: 150, providerAccount: ACCOUNT, channel: 'sms', purpose: 'marketing' });
      await seedDeliveries(store, { tenantId: TENANT, count: 40, providerAccount: ACCOUNT, channel: 'sms', purpose: 'otp', createdAt: T0 + 1 });
      const base = T0 + 200 * SECOND;
      const claim = (lane: typeof auth, purposes: readonly ('otp' | 'alert' | 'marketing')[], at: number, limit: number) =>
        store.limiter.claimWithPermits({
          providerAccount: ACCOUNT,
          purposes,
          workerId: 'w',
          now: at,
          leaseMs: 30 * SECOND,
          limit,
          lane: lane!.name,
          laneLimit: ACCOUNT_LIMIT,
          accountLimit: ACCOUNT_LIMIT,
          sources: lane!.sources,
        });
      const grants: Array<{ at: number; n: number; lane: string }> = [];
      for (let t = 0; t < 2000; t += 10) {
        const b = await claim(bulk, ['marketing'], base + t, 20);
        grants.push({ at: base + t, n: b.claimed.length, lane: 'bulk' });
        if (t % 50 === 0) {
          const a = await claim(auth, ['otp', 'alert'], base + t, 4);
          grants.push({ at: base + t, n: a.claimed.length, lane: 'auth' });
        }
      }
      const codes = grants.filter((g) => g.lane === 'auth').reduce((a, g) => a + g.n, 0);
      // 2 s at auth's own 20/s (and its burst of 2): the campaign never took the codes' share.
      expect(codes).toBeGreaterThanOrEqual(40);
      const bound = windowBound({ ratePerSecond: 100, burst: 10, windowMs: 1000 });
      for (const { at } of grants) {
        expect(grants.filter((x) => x.at >= at && x.at < at + 1000).reduce((a, x) => a + x.n, 0)).toBeLessThanOrEqual(bound);
      }
    });

    it('a tenant with a rate share of 0.25 never exceeds 0.25·R in any window while another tenant saturates the account, and the account total holds', async () => {
      const account = { rate_per_second: 100, burst: 10 };
      const lanes = [
        { name: 'auth', purposes: ['otp', 'alert'] as const, guaranteed_share: 0.2 },
        { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'] as const, guaranteed_share: 0 },
      ];
      const [, bulk] = lanePermitPlans(account, lanes);
      const acmeRow = tenantLimiterRow(account, { tenantId: 'acme', share: 0.25 });
      expect(acmeRow).toEqual({ row: 'tenant:acme', limit: { ratePerSecond: 25, burst: 2 } });
      for (const id of ['acme', 'beta']) await store.ensureTenant({ id, name: id }, T0);
      await seedDeliveries(store, { tenantId: 'beta', count: 200, providerAccount: ACCOUNT, channel: 'sms', purpose: 'marketing' });
      await seedDeliveries(store, { tenantId: 'acme', count: 200, providerAccount: ACCOUNT, channel: 'sms', purpose: 'marketing' });
      const base = T0 + 500 * SECOND;
      const claim = (at: number, tenant: { tenantId: string } | { exceptTenants: string[] }, sources: readonly (readonly LimiterRow[])[]) =>
        store.limiter.claimWithPermits({
          providerAccount: ACCOUNT,
          purposes: ['marketing'],
          workerId: 'w',
          now: at,
          leaseMs: 30 * SECOND,
          limit: 20,
          lane: 'bulk',
          laneLimit: ACCOUNT_LIMIT,
          accountLimit: ACCOUNT_LIMIT,
          sources,
          ...tenant,
        });
      const grants: Array<{ at: number; n: number; tenant: string }> = [];
      for (let t = 0; t < 3000; t += 10) {
        // acme asks first every other round, so it is never simply starved by beta's claims.
        const order = (t / 10) % 2 === 0 ? ['acme', 'beta'] : ['beta', 'acme'];
        for (const who of order) {
          const r =
            who === 'acme'
              ? await claim(base + t, { tenantId: 'acme' }, withTenantRow(bulk!.sources, acmeRow))
              : await claim(base + t, { exceptTenants: ['acme'] }, bulk!.sources);
          expect(new Set(r.claimed.map((c) => c.tenantId))).toEqual(new Set(r.claimed.length > 0 ? [who] : []));
          grants.push({ at: base + t, n: r.claimed.length, tenant: who });
        }
      }
      const inWindow = (at: number, tenant?: string) =>
        grants.filter((x) => x.at >= at && x.at < at + 1000 && (tenant === undefined || x.tenant === tenant)).reduce((a, x) => a + x.n, 0);
      const acmeBound = windowBound({ ...acmeRow.limit, windowMs: 1000 });
      const accountBound = windowBound({ ratePerSecond: 100, burst: 10, windowMs: 1000 });
      expect(acmeBound).toBe(26);
      for (const { at } of grants) {
        expect(inWindow(at, 'acme')).toBeLessThanOrEqual(acmeBound);
        expect(inWindow(at)).toBeLessThanOrEqual(accountBound);
      }
      const total = (tenant: string) => grants.filter((g) => g.tenant === tenant).reduce((a, g) => a + g.n, 0);
      // 3 s: acme gets its share (not far under 75), beta the rest of the bulk lane's 80/s.
      expect(total('acme')).toBeGreaterThanOrEqual(60);
      expect(total('acme')).toBeLessThanOrEqual(2 + 75);
      expect(total('beta')).toBeGreaterThanOrEqual(100);
    });

    it("refunds keep a tenant's bound: reservations on its row with delayed refunds from two stores never exceed share·R in a window", async () => {
      const peer = await fx.openPeer!();
      const stores = [store, peer];
      const acmeRow = tenantLimiterRow({ rate_per_second: 100, burst: 10 }, { tenantId: 'acme', share: 0.25 });
      let seed = 11;
      const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      // Per row, what it counts as spent: a refund refused on a row (forfeited) counts as spent there.
      const spent: Array<{ at: number; shared: number; tenantRow: number; tenant: string }> = [];
      let pending: { r: PermitReservation; unused: number; at: number; tenant: string } | null = null;
      let refundedOnTenantRow = 0;
      const settle = async (p: NonNullable<typeof pending>) => {
        const back = await stores[rand(2)]!.limiter.refundPermits(p.r, p.unused);
        const on = (row: string) => p.r.granted - (back.includes(row) ? p.unused : 0);
        if (back.includes(acmeRow.row)) refundedOnTenantRow += p.unused;
        spent.push({ at: p.at, shared: on('*'), tenantRow: p.tenant === 'acme' ? on(acmeRow.row) : 0, tenant: p.tenant });
      };
      for (let t = 0; t < 3000; t += rand(15)) {
        const tenant = rand(3) === 0 ? 'beta' : 'acme';
        const r = await reserve(stores[rand(2)]!, T0 + t, 1 + rand(12), tenant === 'acme' ? [SHARED, acmeRow] : [SHARED]);
        if (pending) await settle(pending);
        pending = null;
        if (r.granted === 0) continue;
        const p = { r, unused: rand(r.granted + 1), at: T0 + t, tenant };
        if (rand(2) === 0) await settle(p);
        else pending = p;
      }
      if (pending) await settle(pending);
      const acmeBound = windowBound({ ...acmeRow.limit, windowMs: 1000 });
      const sum = (at: number, f: (x: (typeof spent)[number]) => number) => spent.filter((x) => x.at >= at && x.at < at + 1000).reduce((a, x) => a + f(x), 0);
      for (const { at } of spent) {
        expect(sum(at, (x) => x.tenantRow)).toBeLessThanOrEqual(acmeBound);
        expect(sum(at, (x) => x.shared)).toBeLessThanOrEqual(windowBound({ ...ACCOUNT_LIMIT, windowMs: 1000 }));
      }
      expect(spent.some((x) => x.tenant === 'beta') && spent.some((x) => x.tenant === 'acme')).toBe(true);
      // Refunds did apply on the tenant's row (those with nobody in between), and what the
      // row counts as spent stayed at its rate: 3 s at 25/s and its burst of 2.
      expect(refundedOnTenantRow).toBeGreaterThan(0);
      expect(spent.reduce((a, x) => a + x.tenantRow, 0)).toBeLessThanOrEqual(2 + 75);
    });

    it('a claim of named deliveries takes only those, fenced like any claim, and a concurrent claim never takes them too', async () => {
      const ids = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: ACCOUNT, channel: 'sms', purpose: 'otp' });
      const peer = await fx.openPeer!();
      const now = T0 + 10 * SECOND;
      const named = (s: Store, deliveryIds: string[]) =>
        s.limiter.claimWithPermits({
          providerAccount: ACCOUNT,
          purposes: ['otp', 'alert'],
          deliveryIds,
          workerId: 'api',
          now,
          leaseMs: 30 * SECOND,
          limit: deliveryIds.length,
          lane: 'auth',
          laneLimit: ACCOUNT_LIMIT,
          accountLimit: ACCOUNT_LIMIT,
        });
      const [mine, theirs] = await Promise.all([
        named(store, [ids[1]!]),
        peer.claimBatch({ providerAccount: ACCOUNT, purposes: ['otp'], workerId: 'worker', now, leaseMs: 30 * SECOND, limit: 10 }),
      ]);
      const all = [...mine.claimed.map((c) => c.deliveryId), ...theirs.map((c) => c.deliveryId)];
      expect(all.sort()).toEqual([...ids].sort());
      expect(mine.claimed.every((c) => c.deliveryId === ids[1])).toBe(true);
      for (const c of mine.claimed) expect(c).toMatchObject({ attemptNumber: 1, leaseVersion: 1, leaseUntil: now + 30 * SECOND });
      // Already submitting: a second named claim finds nothing, and spends nothing.
      expect((await named(store, [ids[1]!])).claimed).toEqual([]);
      const d = await store.getDelivery(ids[1]!);
      expect(d?.state).toBe('submitting');
    });
  });
}
