/**
 * Claims and leases (the drivers' `claims.ts`): claimBatch's order, fencing tokens and attempt
 * rows, and two processes claiming and rescuing the same rows. Part of the Store conformance suite
 * (`conformance.ts`), run against every driver.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { ACCOUNT, attemptsOf, claim, claimOne, LEASE_MS, rescue, TENANT, useStoreFixture } from './core-support.js';
import { HOUR, MINUTE, SECOND, T0, mustDecide, mustGetDelivery, seedDeliveries } from './fixtures.js';

/** Runs this part of the contract against one driver. */
export function claimsConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${name}`, () => {
    const fx = useStoreFixture(name, makeStore);
    let store: Store;
    beforeEach(() => {
      store = fx.store;
    });
    const peer = fx.peer;

    describe('claimBatch', () => {
      it('claims only due, unexpired, ready deliveries of the account, up to the limit, each once', async () => {
        const now = T0 + 10 * SECOND;
        const due = await seedDeliveries(store, { tenantId: TENANT, count: 5, providerAccount: ACCOUNT });
        await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: 'acct-other' });
        // Created after `now`: not due yet.
        const later = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: now + 1 });
        // Expired before `now`.
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0, ttlMs: 5 * SECOND });

        const first = await claim(store, now, 3, ACCOUNT, 'worker-1');
        expect(first).toHaveLength(3);
        const second = await claim(store, now, 10, ACCOUNT, 'worker-2');
        expect(second).toHaveLength(2);
        expect(await claim(store, now, 10)).toEqual([]);
        const ids = [...first, ...second].map((c) => c.deliveryId);
        expect(new Set(ids).size).toBe(5);
        expect([...ids].sort()).toEqual([...due].sort());

        for (const c of first) {
          expect(c).toMatchObject({ providerAccount: ACCOUNT, tenantId: TENANT, attemptNumber: 1, leaseVersion: 1, leaseUntil: now + LEASE_MS });
          const d = await mustGetDelivery(store, c.deliveryId);
          expect(d).toMatchObject({ state: 'submitting', attemptCount: 1, leaseVersion: 1, updatedAt: now });
          expect(c).toMatchObject({
            notificationId: d.notificationId,
            channel: d.channel,
            purpose: d.purpose,
            idempotencyKey: d.idempotencyKey,
            expiresAt: d.expiresAt,
            destination: 'ada@example.test',
            content: { subject: `Subject ${d.notificationId}`, text: `Body of ${d.notificationId}`, html: null },
          });
          expect(await attemptsOf(store, d)).toEqual([
            {
              number: 1,
              startedAt: now,
              finishedAt: null,
              outcome: null,
              providerMessageId: null,
              errorCode: null,
              errorMessage: null,
              retryAfterMs: null,
              workerId: 'worker-1',
              lateOutcome: null,
              ambiguityPolicy: null,
              resolution: null,
              decision: null,
              nextStageDecision: null,
              // The account the attempt used (migration 0031); it stayed there.
              providerAccount: 'acct-email',
              failoverReason: null,
            },
          ]);
        }
        expect((await claim(store, now + 1, 10)).map((c) => c.deliveryId)).toEqual(later);
      });

      it('never claims a delivery at its expires_at, and does one just before', async () => {
        const [a] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, ttlMs: MINUTE });
        const [b] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-b', ttlMs: MINUTE, createdAt: T0 });
        expect(await claim(store, T0 + MINUTE, 10, ACCOUNT)).toEqual([]);
        expect((await mustGetDelivery(store, a!)).state).toBe('ready');
        expect((await claim(store, T0 + MINUTE - 1, 10, 'acct-b')).map((c) => c.deliveryId)).toEqual([b]);
      });

      it('never reclaims a submitting delivery, even after its lease ran out', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
        const c = await claimOne(store, T0);
        expect(await claim(store, c.leaseUntil + MINUTE)).toEqual([]);
        expect(await rescue(store, c.deliveryId, c.leaseUntil + MINUTE)).toEqual({ deliveryId: c.deliveryId, applied: true });
        // An expired lease becomes unknown, never ready: the call may have happened.
        expect(await claim(store, c.leaseUntil + 2 * MINUTE)).toEqual([]);
        expect((await mustGetDelivery(store, c.deliveryId)).state).toBe('unknown');
      });

      it('lets two store instances claiming in interleaved batches never share a delivery', async () => {
        const other = await peer();
        await other.migrate();
        const all = await seedDeliveries(store, { tenantId: TENANT, count: 200, providerAccount: ACCOUNT, ttlMs: 2 * HOUR });
        const now = T0 + HOUR;
        const byA: string[] = [];
        const byB: string[] = [];
        for (let round = 0; round < 100; round++) {
          const [a, b] = await Promise.all([claim(store, now, 7, ACCOUNT, 'A'), claim(other, now, 7, ACCOUNT, 'B')]);
          byA.push(...a.map((c) => c.deliveryId));
          byB.push(...b.map((c) => c.deliveryId));
          if (a.length === 0 && b.length === 0) break;
        }
        expect(byA.length).toBeGreaterThan(0);
        expect(byB.length).toBeGreaterThan(0);
        expect(byA.length + byB.length).toBe(200);
        expect(new Set([...byA, ...byB]).size).toBe(200);
        expect([...byA, ...byB].sort()).toEqual([...all].sort());
        expect(byA.filter((id) => byB.includes(id))).toEqual([]);
        expect(await store.countByState()).toMatchObject({ submitting: 200, ready: 0 });
        for (const id of all) expect((await mustGetDelivery(other, id)).leaseVersion).toBe(1);
      });
    });

    describe('two rescuers racing for one expired lease (fault checklist 16/17)', () => {
      it('moves the delivery to unknown exactly once', async () => {
        const other = await peer();
        await other.migrate();
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
        const c = await claimOne(store, T0);
        const now = c.leaseUntil + SECOND;

        // Both rescuers read the same facts before either writes.
        const [seenA, seenB] = await Promise.all([store.listExpiredLeases(now, 10), other.listExpiredLeases(now, 10)]);
        expect(seenA).toEqual(seenB);
        expect(seenA).toHaveLength(1);
        const write = (facts: (typeof seenA)[number]) => ({
          deliveryId: facts.deliveryId,
          expect: { state: facts.state, leaseVersion: facts.leaseVersion },
          transition: mustDecide(facts, { type: 'lease_expired' }, now),
          now,
          attempt: { number: facts.attemptCount, outcome: { kind: 'lease_expired' as const } },
        });
        const [ra, rb] = await Promise.all([store.applyTransitions([write(seenA[0]!)]), other.applyTransitions([write(seenB[0]!)])]);
        expect([ra[0]!.applied, rb[0]!.applied].sort()).toEqual([false, true]);

        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d).toMatchObject({ state: 'unknown', leaseVersion: 1, attemptCount: 1, updatedAt: now });
        expect(await attemptsOf(store, d)).toEqual([expect.objectContaining({ number: 1, outcome: 'lease_expired', finishedAt: now })]);
        expect(await store.countByState()).toMatchObject({ unknown: 1, submitting: 0, ready: 0 });
        expect(await claim(other, now + MINUTE)).toEqual([]);
      });

      it('keeps at most one live lease per delivery while workers keep claiming', async () => {
        const other = await peer();
        await other.migrate();
        await seedDeliveries(store, { tenantId: TENANT, count: 20, providerAccount: ACCOUNT });
        let now = T0 + HOUR / 4;
        const holders = new Map<string, number>();
        for (let round = 0; round < 5; round++) {
          const [a, b] = await Promise.all([claim(store, now, 3, ACCOUNT, 'A'), claim(other, now, 3, ACCOUNT, 'B')]);
          for (const c of [...a, ...b]) {
            expect(holders.has(c.deliveryId)).toBe(false);
            holders.set(c.deliveryId, c.leaseVersion);
          }
          now += LEASE_MS + 1;
          // Expired leases go to unknown; none of them may be claimed again.
          for (const f of await store.listExpiredLeases(now, 100)) expect((await rescue(other, f.deliveryId, now)).applied).toBe(true);
        }
        expect(holders.size).toBe(20);
        expect(await store.countByState()).toMatchObject({ unknown: 20, submitting: 0, ready: 0 });
      });
    });
  });
}
