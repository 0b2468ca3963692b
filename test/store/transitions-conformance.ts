/**
 * Transitions (the drivers' `transitions.ts`): applyTransitions guarded by state and fencing
 * token, late outcomes, and the sweeper's reads (expired leases, expired pending, next due). Part
 * of the Store conformance suite (`conformance.ts`), run against every driver.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DELIVERY_STATES, type SubmitOutcome, type Transition } from '../../src/domain/index.js';
import type { DeliveryView, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import {
  accepted,
  ACCOUNT,
  ambiguous,
  attemptsOf,
  claim,
  claimFacts,
  claimOne,
  OTHER_TENANT,
  permanent,
  report,
  rescue,
  retryable,
  TENANT,
  useStoreFixture,
} from './core-support.js';
import { HOUR, MINUTE, SECOND, T0, mustDecide, mustGetDelivery, seedDeliveries } from './fixtures.js';

/** Runs this part of the contract against one driver. */
export function transitionsConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${name}`, () => {
    const fx = useStoreFixture(name, makeStore);
    let store: Store;
    beforeEach(() => {
      store = fx.store;
    });

    describe('applyTransitions', () => {
      beforeEach(async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
      });

      it('applies accepted: downstream accepted, provider id kept, attempt closed', async () => {
        const c = await claimOne(store, T0);
        expect(await report(store, c, accepted('pm-42'), T0 + 2 * SECOND)).toEqual({ deliveryId: c.deliveryId, applied: true });
        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d).toMatchObject({
          state: 'accepted',
          downstreamStatus: 'accepted',
          providerMessageId: 'pm-42',
          terminalReason: null,
          leaseVersion: 1,
          attemptCount: 1,
          updatedAt: T0 + 2 * SECOND,
        });
        expect(await attemptsOf(store, d)).toEqual([
          expect.objectContaining({ number: 1, finishedAt: T0 + 2 * SECOND, outcome: 'accepted', providerMessageId: 'pm-42', lateOutcome: null }),
        ]);
        expect(await claim(store, T0 + HOUR / 2)).toEqual([]);
      });

      it('rejects a write with a stale lease version or a wrong expected state and changes nothing', async () => {
        const c = await claimOne(store, T0);
        const before = await mustGetDelivery(store, c.deliveryId);
        const attemptsBefore = await attemptsOf(store, before);
        const transition = mustDecide(claimFacts(c), { type: 'outcome', outcome: accepted() }, T0 + SECOND);
        const write = (state: DeliveryView['state'], leaseVersion: number) => ({
          deliveryId: c.deliveryId,
          expect: { state, leaseVersion },
          transition,
          now: T0 + SECOND,
          attempt: { number: 1, outcome: accepted() },
        });
        expect(await store.applyTransitions([write('submitting', 0), write('submitting', 2), write('ready', 1), write('unknown', 1)])).toEqual(
          [0, 1, 2, 3].map(() => ({ deliveryId: c.deliveryId, applied: false })),
        );
        expect(await mustGetDelivery(store, c.deliveryId)).toEqual(before);
        expect(await attemptsOf(store, before)).toEqual(attemptsBefore);
        expect(await store.applyTransitions([])).toEqual([]);
      });

      it('reports each write of a batch separately, in order', async () => {
        const [second] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + SECOND });
        const [c1, c2] = await claim(store, T0 + SECOND, 2);
        expect(c2!.deliveryId).toBe(second);
        const ok = mustDecide(claimFacts(c1!), { type: 'outcome', outcome: ambiguous }, T0 + 2 * SECOND);
        const results = await store.applyTransitions([
          {
            deliveryId: c1!.deliveryId,
            expect: { state: 'submitting', leaseVersion: 1 },
            transition: ok,
            now: T0 + 2 * SECOND,
            attempt: { number: 1, outcome: ambiguous },
          },
          {
            deliveryId: c2!.deliveryId,
            expect: { state: 'submitting', leaseVersion: 9 },
            transition: ok,
            now: T0 + 2 * SECOND,
            attempt: { number: 1, outcome: ambiguous },
          },
        ]);
        expect(results).toEqual([
          { deliveryId: c1!.deliveryId, applied: true },
          { deliveryId: c2!.deliveryId, applied: false },
        ]);
        expect((await mustGetDelivery(store, c1!.deliveryId)).state).toBe('unknown');
        expect((await mustGetDelivery(store, c2!.deliveryId)).state).toBe('submitting');
      });

      it('applies a batch all or nothing: a write the schema refuses undoes the others', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + SECOND });
        const [c1, c2] = await claim(store, T0 + SECOND, 2);
        const good = mustDecide(claimFacts(c1!), { type: 'outcome', outcome: accepted() }, T0 + 2 * SECOND);
        // A terminal transition without its reason: a programming error, refused by "terminal iff reason".
        const broken: Transition = { ...mustDecide(claimFacts(c2!), { type: 'outcome', outcome: permanent }, T0 + 2 * SECOND), terminalReason: null };
        const before = await Promise.all([c1!, c2!].map((c) => mustGetDelivery(store, c.deliveryId)));
        await expect(
          store.applyTransitions([
            {
              deliveryId: c1!.deliveryId,
              expect: { state: 'submitting', leaseVersion: 1 },
              transition: good,
              now: T0 + 2 * SECOND,
              attempt: { number: 1, outcome: accepted() },
            },
            {
              deliveryId: c2!.deliveryId,
              expect: { state: 'submitting', leaseVersion: 1 },
              transition: broken,
              now: T0 + 2 * SECOND,
              attempt: { number: 1, outcome: permanent },
            },
          ]),
        ).rejects.toThrow();
        expect(await Promise.all([c1!, c2!].map((c) => mustGetDelivery(store, c.deliveryId)))).toEqual(before);
        expect((await attemptsOf(store, before[0]!))[0]).toMatchObject({ outcome: null, finishedAt: null });
      });

      it('fences a paused worker: lease expires, rescuer moves it to unknown, the late accepted write is rejected', async () => {
        const c = await claimOne(store, T0, 'slow-worker');
        expect(c.leaseVersion).toBe(1);
        const expiry = c.leaseUntil;
        expect((await store.listExpiredLeases(expiry, 10)).map((f) => f.deliveryId)).toEqual([c.deliveryId]);
        expect(await rescue(store, c.deliveryId, expiry)).toEqual({ deliveryId: c.deliveryId, applied: true });

        const afterRescue = await mustGetDelivery(store, c.deliveryId);
        expect(afterRescue).toMatchObject({
          state: 'unknown',
          leaseVersion: 1,
          downstreamStatus: null,
          providerMessageId: null,
          lastErrorCode: 'lease_expired',
        });
        expect(await attemptsOf(store, afterRescue)).toEqual([
          expect.objectContaining({ number: 1, outcome: 'lease_expired', errorCode: 'lease_expired', finishedAt: expiry, workerId: 'slow-worker' }),
        ]);
        expect(await store.listExpiredLeases(expiry + HOUR, 10)).toEqual([]);

        // The worker wakes up and reports what the provider said, with its old token.
        expect(await report(store, c, accepted('pm-late'), expiry + 5 * SECOND)).toEqual({ deliveryId: c.deliveryId, applied: false });
        expect(await mustGetDelivery(store, c.deliveryId)).toEqual(afterRescue);

        // What it learned is kept as evidence on the attempt; the state does not move.
        await store.recordLateOutcome({ deliveryId: c.deliveryId, attemptNumber: c.attemptNumber, outcome: accepted('pm-late') });
        expect(await mustGetDelivery(store, c.deliveryId)).toEqual(afterRescue);
        expect(await attemptsOf(store, afterRescue)).toEqual([
          expect.objectContaining({ number: 1, outcome: 'lease_expired', lateOutcome: 'accepted', providerMessageId: 'pm-late' }),
        ]);
      });

      it('fences by version, not only by state: a reclaimed delivery refuses the first lease holder', async () => {
        const c1 = await claimOne(store, T0, 'w1');
        await rescue(store, c1.deliveryId, c1.leaseUntil);
        // Reconciliation: the provider authoritatively has no such message, so another attempt is allowed.
        const unknown = await mustGetDelivery(store, c1.deliveryId);
        const now = c1.leaseUntil + SECOND;
        const retry = mustDecide(unknown, { type: 'evidence', found: false, authoritative: true, windowClosed: false }, now);
        expect(retry.to).toBe('retryable');
        expect(await store.applyTransitions([{ deliveryId: c1.deliveryId, expect: { state: 'unknown', leaseVersion: 1 }, transition: retry, now }])).toEqual([
          { deliveryId: c1.deliveryId, applied: true },
        ]);
        const c2 = await claimOne(store, retry.nextAttemptAt!, 'w2');
        expect(c2).toMatchObject({ deliveryId: c1.deliveryId, attemptNumber: 2, leaseVersion: 2 });

        // w1 resumes: the row is `submitting` again, but under w2's lease.
        expect(await report(store, c1, accepted('pm-w1'), c2.leaseUntil - SECOND)).toEqual({ deliveryId: c1.deliveryId, applied: false });
        expect(await mustGetDelivery(store, c1.deliveryId)).toMatchObject({ state: 'submitting', leaseVersion: 2, providerMessageId: null });
        expect(await report(store, c2, accepted('pm-w2'), c2.leaseUntil - SECOND)).toEqual({ deliveryId: c1.deliveryId, applied: true });
        const d = await mustGetDelivery(store, c1.deliveryId);
        expect(d).toMatchObject({ state: 'accepted', providerMessageId: 'pm-w2' });
        expect((await attemptsOf(store, d)).map((a) => [a.number, a.outcome, a.workerId])).toEqual([
          [1, 'lease_expired', 'w1'],
          [2, 'accepted', 'w2'],
        ]);
      });

      it('schedules a retry: claimable again only at next_attempt_at, as attempt 2 with lease version 2', async () => {
        const c = await claimOne(store, T0);
        const now = T0 + 3 * SECOND;
        expect((await report(store, c, retryable, now)).applied).toBe(true);
        const d = await mustGetDelivery(store, c.deliveryId);
        // TEST_POLICY: 1 s after the first attempt, no jitter.
        expect(d).toMatchObject({ state: 'retryable', nextAttemptAt: now + SECOND, lastErrorCode: 'http_503', attemptCount: 1, leaseVersion: 1 });
        expect(await attemptsOf(store, d)).toEqual([
          expect.objectContaining({ number: 1, outcome: 'retryable', errorCode: 'http_503', errorMessage: 'service unavailable', finishedAt: now }),
        ]);
        expect(await store.nextDueAt(ACCOUNT, now)).toBe(now + SECOND);

        expect(await claim(store, now + SECOND - 1)).toEqual([]);
        const again = await claimOne(store, now + SECOND);
        expect(again).toMatchObject({ deliveryId: c.deliveryId, attemptNumber: 2, leaseVersion: 2 });
        const attempts = await attemptsOf(store, d);
        expect(attempts.map((a) => [a.number, a.outcome])).toEqual([
          [1, 'retryable'],
          [2, null],
        ]);
        expect(await store.nextDueAt(ACCOUNT, now + SECOND)).toBeNull();
      });

      it('honours a throttle Retry-After as the earliest next attempt and records it', async () => {
        const c = await claimOne(store, T0);
        const throttled: SubmitOutcome = { kind: 'throttled', code: 'http_429', message: 'slow down', retryAfterMs: 30 * SECOND };
        expect((await report(store, c, throttled, T0 + SECOND)).applied).toBe(true);
        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d.state).toBe('retryable');
        expect(d.nextAttemptAt).toBeGreaterThanOrEqual(T0 + 31 * SECOND);
        expect(await attemptsOf(store, d)).toEqual([expect.objectContaining({ outcome: 'throttled', retryAfterMs: 30 * SECOND })]);
        expect(await claim(store, T0 + 31 * SECOND - 1)).toEqual([]);
      });

      it('ends in terminal with the reason: rejected on a permanent error, exhausted after the last attempt', async () => {
        const c = await claimOne(store, T0);
        expect((await report(store, c, permanent, T0 + SECOND)).applied).toBe(true);
        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d).toMatchObject({ state: 'terminal', terminalReason: 'rejected', nextAttemptAt: null, lastErrorCode: 'http_400' });
        expect(await attemptsOf(store, d)).toEqual([expect.objectContaining({ outcome: 'permanent', errorCode: 'http_400' })]);

        const [other] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + SECOND });
        let now = T0 + SECOND;
        for (let attempt = 1; attempt <= 3; attempt++) {
          const ci = await claimOne(store, now);
          expect(ci).toMatchObject({ deliveryId: other, attemptNumber: attempt, leaseVersion: attempt });
          expect((await report(store, ci, retryable, now)).applied).toBe(true);
          now = (await mustGetDelivery(store, other!)).nextAttemptAt ?? now;
        }
        expect(await mustGetDelivery(store, other!)).toMatchObject({ state: 'terminal', terminalReason: 'exhausted', attemptCount: 3 });
        expect(await store.countByState()).toMatchObject({ terminal: 2 });
      });

      it('moves an ambiguous outcome to unknown, which is neither claimable nor a lease to rescue', async () => {
        const c = await claimOne(store, T0);
        expect((await report(store, c, ambiguous, T0 + SECOND)).applied).toBe(true);
        expect(await mustGetDelivery(store, c.deliveryId)).toMatchObject({ state: 'unknown', lastErrorCode: 'timeout' });
        expect(await claim(store, T0 + HOUR / 2)).toEqual([]);
        expect(await store.listExpiredLeases(T0 + HOUR / 2, 10)).toEqual([]);
        expect(await store.nextDueAt(ACCOUNT, T0 + HOUR / 2)).toBeNull();

        const evidence = mustDecide(await mustGetDelivery(store, c.deliveryId), { type: 'evidence', found: true, providerMessageId: 'pm-found' }, T0 + MINUTE);
        expect(
          await store.applyTransitions([{ deliveryId: c.deliveryId, expect: { state: 'unknown', leaseVersion: 1 }, transition: evidence, now: T0 + MINUTE }]),
        ).toEqual([{ deliveryId: c.deliveryId, applied: true }]);
        expect(await mustGetDelivery(store, c.deliveryId)).toMatchObject({ state: 'accepted', downstreamStatus: 'accepted', providerMessageId: 'pm-found' });
      });

      it('cancels a ready delivery without an attempt', async () => {
        const [id] = (await store.listDeliveries(TENANT, {}, null, 1)).items.map((d) => d.id);
        const d = await mustGetDelivery(store, id!);
        const cancel = mustDecide(d, { type: 'cancel' }, T0 + SECOND);
        expect(await store.applyTransitions([{ deliveryId: d.id, expect: { state: 'ready', leaseVersion: 0 }, transition: cancel, now: T0 + SECOND }])).toEqual(
          [{ deliveryId: d.id, applied: true }],
        );
        const after = await mustGetDelivery(store, d.id);
        expect(after).toMatchObject({ state: 'terminal', terminalReason: 'cancelled', attemptCount: 0 });
        expect(await attemptsOf(store, after)).toEqual([]);
        expect(await claim(store, T0 + 2 * SECOND)).toEqual([]);
      });
    });

    describe('sweeper queries', () => {
      it('listExpiredLeases: lease_until == now is expired, just before is not; limit respected', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: ACCOUNT });
        const claimed = [await claimOne(store, T0 + 10 * SECOND), await claimOne(store, T0 + 20 * SECOND), await claimOne(store, T0 + 30 * SECOND)];
        const [l1, l2, l3] = claimed.map((c) => c.leaseUntil) as [number, number, number];
        expect(await store.listExpiredLeases(l1 - 1, 10)).toEqual([]);
        const atL1 = await store.listExpiredLeases(l1, 10);
        expect(atL1).toHaveLength(1);
        expect(atL1[0]).toMatchObject({
          deliveryId: claimed[0]!.deliveryId,
          state: 'submitting',
          attemptCount: 1,
          leaseVersion: 1,
          expiresAt: claimed[0]!.expiresAt,
        });
        expect((await store.listExpiredLeases(l2, 10)).map((f) => f.deliveryId).sort()).toEqual([claimed[0]!, claimed[1]!].map((c) => c.deliveryId).sort());
        expect(await store.listExpiredLeases(l3, 2)).toHaveLength(2);
        expect((await store.listExpiredLeases(l3, 10)).map((f) => f.deliveryId).sort()).toEqual(claimed.map((c) => c.deliveryId).sort());
      });

      it('listExpiredPending: expires_at == now is expired, just before is not; only ready/retryable; limit respected', async () => {
        const ready = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: ACCOUNT, ttlMs: MINUTE });
        const [e1, e2, e3] = [T0 + MINUTE, T0 + MINUTE + SECOND, T0 + MINUTE + 2 * SECOND];
        // On another account, expiring at the same three times: one goes retryable, one unknown, one stays submitting.
        const more = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'acct-x', ttlMs: MINUTE, createdAt: T0 });
        const cx = await claim(store, T0 + 2 * SECOND, 10, 'acct-x');
        expect(cx).toHaveLength(3);
        const byId = new Map(cx.map((c) => [c.deliveryId, c]));
        await report(store, byId.get(more[0]!)!, retryable, T0 + 3 * SECOND);
        await report(store, byId.get(more[1]!)!, ambiguous, T0 + 3 * SECOND);

        expect(await store.listExpiredPending(e1 - 1, 10)).toEqual([]);
        const atE1 = await store.listExpiredPending(e1, 10);
        expect(atE1.map((f) => f.deliveryId).sort()).toEqual([ready[0]!, more[0]!].sort());
        expect(atE1.find((f) => f.deliveryId === more[0])).toMatchObject({ state: 'retryable', attemptCount: 1, leaseVersion: 1, expiresAt: e1 });
        expect(atE1.find((f) => f.deliveryId === ready[0])).toMatchObject({ state: 'ready', attemptCount: 0, leaseVersion: 0, expiresAt: e1 });
        expect((await store.listExpiredPending(e2, 10)).map((f) => f.deliveryId).sort()).toEqual([ready[0]!, ready[1]!, more[0]!].sort());
        expect(await store.listExpiredPending(e3, 2)).toHaveLength(2);
        expect(await store.listExpiredPending(e3, 10)).toHaveLength(4);

        // The expiry sweep writes what decide says, guarded like any other transition.
        const facts = atE1.find((f) => f.deliveryId === ready[0])!;
        const t = mustDecide(facts, { type: 'expire' }, e1);
        expect(
          await store.applyTransitions([
            { deliveryId: facts.deliveryId, expect: { state: facts.state, leaseVersion: facts.leaseVersion }, transition: t, now: e1 },
          ]),
        ).toEqual([{ deliveryId: facts.deliveryId, applied: true }]);
        expect(await mustGetDelivery(store, facts.deliveryId)).toMatchObject({ state: 'terminal', terminalReason: 'expired' });
        expect((await store.listExpiredPending(e1, 10)).map((f) => f.deliveryId)).toEqual([more[0]]);
      });

      it('nextDueAt: earliest next attempt among the account’s claimable, unexpired deliveries, or null', async () => {
        expect(await store.nextDueAt(ACCOUNT, T0)).toBeNull();
        await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: ACCOUNT, createdAt: T0 + 5 * SECOND });
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-other', createdAt: T0 });
        // The answer may lie in the past (overdue) or the future (not yet due).
        expect(await store.nextDueAt(ACCOUNT, T0)).toBe(T0 + 5 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + MINUTE)).toBe(T0 + 5 * SECOND);
        expect(await store.nextDueAt('acct-other', T0)).toBe(T0);
        const c = await claimOne(store, T0 + 5 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 5 * SECOND)).toBe(T0 + 6 * SECOND);
        await claimOne(store, T0 + 6 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 6 * SECOND)).toBeNull();
        await report(store, c, retryable, T0 + 7 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 7 * SECOND)).toBe(T0 + 8 * SECOND);
      });

      it('nextDueAt leaves out deliveries at or past expiry: they wait for the sweeper, not a claim', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0, ttlMs: MINUTE });
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + 10 * SECOND, ttlMs: HOUR });
        expect(await store.nextDueAt(ACCOUNT, T0 + MINUTE - 1)).toBe(T0);
        expect(await store.nextDueAt(ACCOUNT, T0 + MINUTE)).toBe(T0 + 10 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 10 * SECOND + HOUR)).toBeNull();
      });

      it('countByState: every state, zero included', async () => {
        const empty = await store.countByState();
        expect(Object.keys(empty).sort()).toEqual([...DELIVERY_STATES].sort());
        expect(Object.values(empty).every((n) => n === 0)).toBe(true);

        await seedDeliveries(store, { tenantId: TENANT, count: 5, providerAccount: ACCOUNT });
        await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + 10 * SECOND });
        const [a, b, c] = await claim(store, T0 + 4 * SECOND, 3);
        await report(store, a!, accepted(), T0 + 5 * SECOND);
        await report(store, b!, permanent, T0 + 5 * SECOND);
        expect(c).toBeDefined();
        expect(await store.countByState()).toEqual({ ready: 3, submitting: 1, accepted: 1, unknown: 0, retryable: 0, terminal: 1 });
      });
    });
  });
}
