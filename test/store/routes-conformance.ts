/**
 * The routes part of the Store contract, run against every driver: a change is recorded once per
 * route change number (a second process that evaluated the same state records nothing), the
 * latest change of each account in each route is what the evaluator starts from, and the
 * figures count each account's accepted deliveries of the window and the slow ones among them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountIdempotencyKey, type AccountFigures, type SubmitOutcome } from '../../src/domain/index.js';
import type { ClaimedDelivery, RouteChangeRecord, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { MINUTE, SECOND, T0, mustDecide, seedDeliveries } from './fixtures.js';

const TENANT = 'tnt_routes';
const figures = (account: string, over: Partial<AccountFigures> = {}): AccountFigures => ({
  account,
  accepted: 20,
  slow: 5,
  calls: 40,
  failures: 3,
  pausedSince: null,
  ...over,
});
const change = (over: Partial<RouteChangeRecord>): RouteChangeRecord => ({
  routeKey: '*/sms/otp',
  seq: 1,
  providerAccount: 'sms-a',
  action: 'demote',
  reasons: ['slow_delivery'],
  figures: figures(over.providerAccount ?? 'sms-a'),
  decidedAt: T0,
  ...over,
});

async function acceptAll(store: Store, account: string, now: number): Promise<void> {
  await answerAll(store, account, now, (c) => ({ kind: 'accepted', providerMessageId: `m-${c.deliveryId}` }));
}

/** Claims every due delivery of the account and records `outcomeOf` for each, moving it to `moveTo` when given; returns the claims. */
async function answerAll(
  store: Store,
  account: string,
  now: number,
  outcomeOf: (c: ClaimedDelivery) => SubmitOutcome,
  moveTo?: string,
): Promise<ClaimedDelivery[]> {
  const claimed: ClaimedDelivery[] = await store.claimBatch({ providerAccount: account, workerId: 'w1', now, leaseMs: 30 * SECOND, limit: 50 });
  const results = await store.applyTransitions(
    claimed.map((c) => {
      const outcome = outcomeOf(c);
      const transition = mustDecide(
        { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null },
        { type: 'outcome', outcome },
        now,
      );
      return {
        deliveryId: c.deliveryId,
        expect: { state: 'submitting' as const, leaseVersion: c.leaseVersion },
        transition,
        now,
        attempt: { number: c.attemptNumber, outcome },
        ...(moveTo === undefined ? {} : { move: { to: moveTo, reason: 'retryable' as const } }),
      };
    }),
  );
  expect(results.every((r) => r.applied)).toBe(true);
  return claimed;
}

export function routesConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Routes store conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Routes' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it('records a change once per change number, with its figures, and reads each account’s latest', async () => {
      expect(await store.routes.recordChange(change({}))).toBe(true);
      // Another process evaluated the same state: the number is taken, nothing is written.
      expect(await store.routes.recordChange(change({ providerAccount: 'sms-b' }))).toBe(false);
      expect(await store.routes.recordChange(change({ seq: 2, action: 'restore', reasons: [], decidedAt: T0 + 10 * MINUTE }))).toBe(true);
      expect(await store.routes.recordChange(change({ routeKey: 'acme/sms/default', seq: 1, providerAccount: 'sms-b', decidedAt: T0 + MINUTE }))).toBe(true);
      const latest = (await store.routes.latestChanges()).sort((a, b) => a.routeKey.localeCompare(b.routeKey));
      expect(latest).toEqual(
        [
          change({ seq: 2, action: 'restore', reasons: [], decidedAt: T0 + 10 * MINUTE }),
          change({ routeKey: 'acme/sms/default', seq: 1, providerAccount: 'sms-b', decidedAt: T0 + MINUTE }),
        ].sort((a, b) => a.routeKey.localeCompare(b.routeKey)),
      );
      const recent = await store.routes.recentChanges(T0 + 30 * SECOND, 10);
      expect(recent.map((c) => [c.routeKey, c.seq])).toEqual([
        ['*/sms/otp', 2],
        ['acme/sms/default', 1],
      ]);
      expect(recent[0]!.figures).toEqual(figures('sms-a'));
    });

    it('keeps when a throttling pause began while 429s extend it (or follow within a minute of its end), and forgets a lapsed one', async () => {
      const limit = { ratePerSecond: 10, burst: 10 };
      const pause = (now: number, retryAfterMs: number) => store.limiter.throttleAccount({ providerAccount: 'sms-a', now, retryAfterMs, limit });
      expect(await store.routes.accountPauses(T0)).toEqual([]);
      expect(await pause(T0, 5 * MINUTE)).toBe(T0 + 5 * MINUTE);
      expect(await store.routes.accountPauses(T0 + MINUTE)).toEqual([{ providerAccount: 'sms-a', pausedSince: T0, pausedUntil: T0 + 5 * MINUTE }]);
      // A 429 while paused extends the pause; it began at T0 still.
      await pause(T0 + 2 * MINUTE, 5 * MINUTE);
      // The first call after the pause is answered 429 again, 20 s after it ended: the same pause.
      await pause(T0 + 7 * MINUTE + 20 * SECOND, 5 * MINUTE);
      expect(await store.routes.accountPauses(T0 + 11 * MINUTE)).toEqual([
        { providerAccount: 'sms-a', pausedSince: T0, pausedUntil: T0 + 12 * MINUTE + 20 * SECOND },
      ]);
      // Lapsed: no pause is read.
      expect(await store.routes.accountPauses(T0 + 13 * MINUTE)).toEqual([]);
      // A 429 more than a minute after the pause ended begins a new one.
      const later = T0 + 14 * MINUTE;
      await pause(later, 30 * SECOND);
      expect(await store.routes.accountPauses(later)).toEqual([{ providerAccount: 'sms-a', pausedSince: later, pausedUntil: later + 30 * SECOND }]);
    });

    it('sends a moved delivery under its new account’s own key, finds it by that key (look-ups, callbacks)', async () => {
      const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'sms-a', channel: 'sms', createdAt: T0 });
      const key = (await store.getDelivery(id!))!.idempotencyKey;
      const fail: SubmitOutcome = { kind: 'retryable', code: 'server_error', message: '503' };
      const [first] = await answerAll(store, 'sms-a', T0 + SECOND, () => fail, 'sms-b');
      expect(first!.idempotencyKey).toBe(key);
      const onB = accountIdempotencyKey(key, 'sms-b', 'sms-a');
      expect(onB).not.toBe(key);
      // On sms-b its answer is lost: the reconciler looks it up under sms-b's key.
      const [second] = await answerAll(store, 'sms-b', T0 + 10 * MINUTE, () => ({ kind: 'unknown', code: 'timeout', message: 'no answer' }));
      expect(second!.idempotencyKey).toBe(onB);
      expect((await store.evidence.listUnknownDue({ now: T0 + 11 * MINUTE, limit: 10 })).map((u) => [u.deliveryId, u.idempotencyKey])).toEqual([[id, onB]]);
      // A callback of sms-b naming its key finds the delivery; the delivery keeps its one key.
      await store.evidence.recordProviderEvents([
        {
          providerAccount: 'sms-b',
          eventId: 'ev-b',
          status: 'delivered',
          providerMessageId: null,
          reference: onB,
          suppress: null,
          occurredAt: null,
          receivedAt: T0 + 11 * MINUTE,
        },
      ]);
      expect((await store.evidence.listPendingEvidence(10)).map((p) => [p.delivery.deliveryId, p.reference])).toEqual([[id, key]]);
      expect((await store.getDelivery(id!))!.idempotencyKey).toBe(key);
    });

    it('a delivery moved back to the account it was created on sends under its delivery key again', async () => {
      const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'sms-a', channel: 'sms', createdAt: T0 });
      const key = (await store.getDelivery(id!))!.idempotencyKey;
      const fail: SubmitOutcome = { kind: 'retryable', code: 'server_error', message: '503' };
      await answerAll(store, 'sms-a', T0 + SECOND, () => fail, 'sms-b');
      const [onB] = await answerAll(store, 'sms-b', T0 + 10 * MINUTE, () => fail, 'sms-a');
      expect(onB!.idempotencyKey).toBe(accountIdempotencyKey(key, 'sms-b', 'sms-a'));
      const [back] = await answerAll(store, 'sms-a', T0 + 20 * MINUTE, (c) => ({ kind: 'accepted', providerMessageId: `m-${c.deliveryId}` }));
      expect(back!.idempotencyKey).toBe(key);
    });

    it('counts each account’s accepted deliveries of the window, slow once not delivered after the threshold', async () => {
      await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'sms-a', channel: 'sms', createdAt: T0 });
      await acceptAll(store, 'sms-a', T0 + 5 * SECOND);
      await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: 'sms-b', channel: 'sms', createdAt: T0 + 5 * MINUTE });
      await acceptAll(store, 'sms-b', T0 + 6 * MINUTE);
      const at = (now: number) =>
        store.routes
          .acceptedFigures({ since: now - 15 * MINUTE, now, slowAfterMs: 5 * MINUTE })
          .then((r) => r.sort((a, b) => a.providerAccount.localeCompare(b.providerAccount)));
      // At T0 + 7 min: sms-a's three were accepted 7 min ago and are not delivered (slow); sms-b's one minute ago (not yet).
      expect(await at(T0 + 7 * MINUTE)).toEqual([
        { providerAccount: 'sms-a', accepted: 3, slow: 3, meanDeliveredMs: null },
        { providerAccount: 'sms-b', accepted: 2, slow: 0, meanDeliveredMs: null },
      ]);
      // At T0 + 16 min sms-a's acceptances left the window.
      expect(await at(T0 + 16 * MINUTE)).toEqual([{ providerAccount: 'sms-b', accepted: 2, slow: 2, meanDeliveredMs: null }]);
    });

    it('gives the mean acceptance → delivered time of the deliveries with a delivered callback, and counts them on time when under the threshold', async () => {
      const [first] = await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: 'sms-b', channel: 'sms', createdAt: T0 });
      await acceptAll(store, 'sms-b', T0 + MINUTE);
      const d = (await store.getDelivery(first!))!;
      await store.evidence.recordProviderEvents([
        {
          providerAccount: 'sms-b',
          eventId: 'ev-delivered',
          status: 'delivered',
          providerMessageId: `m-${first}`,
          reference: null,
          suppress: null,
          occurredAt: null,
          receivedAt: T0 + MINUTE + 90 * SECOND,
        },
      ]);
      const [pending] = await store.evidence.listPendingEvidence(10);
      const guard = { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus };
      const write = { deliveryId: first!, transition: null, providerMessageId: null, resolvesAttempt: null, suppress: null, rowIds: [pending!.rowId] };
      expect(await store.evidence.applyEvidence([{ ...write, expect: guard, downstreamStatus: 'delivered', now: T0 + 3 * MINUTE }])).toEqual([true]);
      const now = T0 + 10 * MINUTE;
      // The delivered one took 90 s (on time); the other is still not delivered 9 minutes after acceptance (slow).
      expect(await store.routes.acceptedFigures({ since: now - 15 * MINUTE, now, slowAfterMs: 5 * MINUTE })).toEqual([
        { providerAccount: 'sms-b', accepted: 2, slow: 1, meanDeliveredMs: 90 * SECOND },
      ]);
    });
  });
}
