/**
 * The evidence part of the Store contract, run against every driver: provider events are
 * deduplicated by event id and parked until their delivery is known and not in flight;
 * evidence writes are guarded; suppressions and the reconciler's queue behave the same in
 * SQLite and PostgreSQL.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { ProviderEventRecord } from '../../src/store/evidence-store.js';
import type { ClaimedDelivery, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { MINUTE, SECOND, T0, mustDecide, mustGetDelivery, seedDeliveries } from './fixtures.js';

const TENANT = 't_alpha';
const ACCOUNT = 'acct-email';

const event = (over: Partial<ProviderEventRecord> & { eventId: string }): ProviderEventRecord => ({
  providerAccount: ACCOUNT,
  status: 'delivered',
  providerMessageId: null,
  reference: null,
  occurredAt: null,
  suppress: null,
  receivedAt: T0,
  ...over,
});

async function claimOne(store: Store, now: number): Promise<ClaimedDelivery> {
  const [c] = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now, leaseMs: 30 * SECOND, limit: 1 });
  if (!c) throw new Error('nothing to claim');
  return c;
}

async function report(store: Store, c: ClaimedDelivery, outcome: SubmitOutcome, now: number): Promise<void> {
  const transition = mustDecide(
    { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null },
    { type: 'outcome', outcome },
    now,
  );
  const [r] = await store.applyTransitions([
    { deliveryId: c.deliveryId, expect: { state: 'submitting', leaseVersion: c.leaseVersion }, transition, now, attempt: { number: c.attemptNumber, outcome } },
  ]);
  expect(r!.applied).toBe(true);
}

const UNKNOWN: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no answer' };

/** Runs the evidence contract against one driver. */
export function evidenceConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Evidence store conformance: ${name}`, () => {
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

    it('records each provider event once: a repeat in the same batch or a later one is a duplicate', async () => {
      expect(await store.evidence.recordProviderEvents([event({ eventId: 'e1' }), event({ eventId: 'e2' }), event({ eventId: 'e1' })])).toEqual({
        inserted: 2,
        duplicates: 1,
      });
      expect(await store.evidence.recordProviderEvents([event({ eventId: 'e2' }), event({ eventId: 'e3' })])).toEqual({ inserted: 1, duplicates: 1 });
      // The same event id from another account is another event.
      expect(await store.evidence.recordProviderEvents([event({ eventId: 'e1', providerAccount: 'acct-sms' })])).toEqual({ inserted: 1, duplicates: 0 });
      expect(await store.evidence.recordProviderEvents([])).toEqual({ inserted: 0, duplicates: 0 });
    });

    it('concurrent callers share writes, and each learns exactly which of its own events were new', async () => {
      // A burst of callbacks: calls made while one insert is in flight share the next. The same
      // event from two callers (a provider retrying at once) is new for exactly one of them.
      const calls = await Promise.all([
        store.evidence.recordProviderEvents([event({ eventId: 'c1' }), event({ eventId: 'c2' })]),
        store.evidence.recordProviderEvents([event({ eventId: 'c2' }), event({ eventId: 'c3' })]),
        store.evidence.recordProviderEvents([event({ eventId: 'c3' })]),
        store.evidence.recordProviderEvents([event({ eventId: 'c4' }), event({ eventId: 'c4' })]),
        ...Array.from({ length: 20 }, (_, i) => store.evidence.recordProviderEvents([event({ eventId: `burst-${i}` })])),
      ]);
      expect(calls[0]).toEqual({ inserted: 2, duplicates: 0 });
      expect(calls[1]).toEqual({ inserted: 1, duplicates: 1 });
      expect(calls[2]).toEqual({ inserted: 0, duplicates: 1 });
      expect(calls[3]).toEqual({ inserted: 1, duplicates: 1 });
      expect(calls.slice(4)).toEqual(Array.from({ length: 20 }, () => ({ inserted: 1, duplicates: 0 })));
      expect(await store.evidence.recordProviderEvents([event({ eventId: 'c1' }), event({ eventId: 'burst-0' }), event({ eventId: 'c5' })])).toEqual({
        inserted: 1,
        duplicates: 2,
      });
    });

    it('parks events until their delivery is known and not in flight, matching by provider id or by reference', async () => {
      const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
      const d0 = await mustGetDelivery(store, id!);
      await store.evidence.recordProviderEvents([
        event({ eventId: 'by-pmid', providerMessageId: 'pm-42', status: 'sent' }),
        event({ eventId: 'by-ref', reference: d0.idempotencyKey, status: 'delivered' }),
        event({ eventId: 'nobody', providerMessageId: 'pm-unknown' }),
      ]);
      // Ready: matched by reference only (the provider id is not known yet).
      expect((await store.evidence.listPendingEvidence(10)).map((e) => e.eventId)).toEqual(['by-ref']);
      const c = await claimOne(store, T0);
      // In flight: everything waits for the call's own answer.
      expect(await store.evidence.listPendingEvidence(10)).toEqual([]);
      await report(store, c, { kind: 'accepted', providerMessageId: 'pm-42' }, T0 + SECOND);
      const pending = await store.evidence.listPendingEvidence(10);
      expect(pending.map((e) => e.eventId)).toEqual(['by-pmid', 'by-ref']);
      expect(pending[0]!.delivery).toMatchObject({
        deliveryId: id,
        state: 'accepted',
        downstreamStatus: 'accepted',
        providerMessageId: 'pm-42',
        tenantId: TENANT,
      });
      expect(pending[1]!.status).toBe('delivered');
    });

    it('applies evidence guarded by state, fencing token and downstream status, settling the events once', async () => {
      const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
      const c = await claimOne(store, T0);
      await report(store, c, UNKNOWN, T0 + SECOND);
      const d = await mustGetDelivery(store, id!);
      expect(d.state).toBe('unknown');
      await store.evidence.recordProviderEvents([event({ eventId: 'ev1', reference: d.idempotencyKey, providerMessageId: 'pm-7', status: 'delivered' })]);
      const [p] = await store.evidence.listPendingEvidence(10);
      const transition = mustDecide(d, { type: 'evidence', found: true, providerMessageId: 'pm-7' }, T0 + 2 * SECOND);
      const write = {
        rowIds: [p!.rowId],
        deliveryId: id!,
        expect: { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus },
        downstreamStatus: 'delivered' as const,
        transition,
        providerMessageId: 'pm-7',
        resolvesAttempt: c.attemptNumber,
        suppress: null,
        now: T0 + 2 * SECOND,
      };
      // A stale expectation (someone merged a status meanwhile) changes nothing and keeps the event parked.
      expect(await store.evidence.applyEvidence([{ ...write, expect: { ...write.expect, downstreamStatus: 'sent' } }])).toEqual([false]);
      expect(await store.evidence.listPendingEvidence(10)).toHaveLength(1);
      expect(await store.evidence.applyEvidence([write])).toEqual([true]);
      const after = await mustGetDelivery(store, id!);
      expect(after).toMatchObject({ state: 'accepted', downstreamStatus: 'delivered', providerMessageId: 'pm-7', terminalReason: null });
      expect(await store.evidence.listPendingEvidence(10)).toEqual([]);
      // Applying the same write again is refused by the guard (the state moved on).
      expect(await store.evidence.applyEvidence([write])).toEqual([false]);
      const n = await store.getNotification(TENANT, after.notificationId);
      expect(n!.deliveries[0]!.attempts[0]).toMatchObject({ outcome: 'unknown', resolution: 'callback' });
    });

    it('settles an event that changes nothing, and adds a suppression once', async () => {
      const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
      const c = await claimOne(store, T0);
      await report(store, c, { kind: 'accepted', providerMessageId: 'pm-9' }, T0 + SECOND);
      const d = await mustGetDelivery(store, id!);
      await store.evidence.recordProviderEvents([event({ eventId: 'old', providerMessageId: 'pm-9', status: 'accepted', suppress: 'bounced' })]);
      const [p] = await store.evidence.listPendingEvidence(10);
      const suppress = { tenantId: TENANT, channel: d.channel, destination: 'ada@example.test', reason: 'bounced' as const, sourceDeliveryId: id! };
      const ok = await store.evidence.applyEvidence([
        {
          rowIds: [p!.rowId],
          deliveryId: id!,
          expect: { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus },
          downstreamStatus: d.downstreamStatus,
          transition: null,
          providerMessageId: null,
          resolvesAttempt: null,
          suppress,
          now: T0 + 2 * SECOND,
        },
      ]);
      expect(ok).toEqual([true]);
      expect(await store.evidence.listPendingEvidence(10)).toEqual([]);
      expect(await mustGetDelivery(store, id!)).toMatchObject({ state: 'accepted', downstreamStatus: 'accepted' });
      expect(await store.preferences.getSuppression(TENANT, 'email', 'ada@example.test')).toMatchObject({ reason: 'bounced', sourceDeliveryId: id });
      expect(await store.preferences.getSuppression(TENANT, 'sms', 'ada@example.test')).toBeNull();
      expect(await store.preferences.getSuppression('t_other', 'email', 'ada@example.test')).toBeNull();
      expect(await store.preferences.listSuppressions(TENANT, 10)).toHaveLength(1);
    });

    it('orphans parked events nobody claims after retention, and deletes settled ones past it', async () => {
      await store.evidence.recordProviderEvents([event({ eventId: 'lost', providerMessageId: 'pm-never', receivedAt: T0 })]);
      expect(await store.evidence.pruneProviderEvents({ before: T0, now: T0 + MINUTE })).toEqual({ orphaned: 0, deleted: 0 });
      expect(await store.evidence.pruneProviderEvents({ before: T0 + 1, now: T0 + MINUTE })).toEqual({ orphaned: 1, deleted: 0 });
      expect(await store.evidence.pruneProviderEvents({ before: T0 + 2 * MINUTE, now: T0 + 3 * MINUTE })).toEqual({ orphaned: 0, deleted: 1 });
      // Gone from dedupe memory too: the same id is a new event now.
      expect(await store.evidence.recordProviderEvents([event({ eventId: 'lost' })])).toEqual({ inserted: 1, duplicates: 0 });
    });

    it('queues unknown deliveries for reconciliation, defers them, and records the policy and resolution on the attempt', async () => {
      const ids = await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: ACCOUNT });
      const c1 = await claimOne(store, T0 + 5 * SECOND);
      await report(store, c1, UNKNOWN, T0 + 6 * SECOND);
      const c2 = await claimOne(store, T0 + 7 * SECOND);
      await report(store, c2, UNKNOWN, T0 + 8 * SECOND);
      const due = await store.evidence.listUnknownDue({ now: T0 + 9 * SECOND, limit: 10 });
      expect(due.map((u) => u.deliveryId)).toEqual(ids);
      expect(due[0]).toMatchObject({ providerAccount: ACCOUNT, attemptCount: 1, unknownSince: T0 + 6 * SECOND, channel: 'email', retryLadder: null });
      expect(await store.evidence.listUnknownDue({ now: T0 + 9 * SECOND, limit: 10, providerAccounts: ['acct-sms'] })).toEqual([]);

      const u1 = due[0]!;
      expect(
        await store.evidence.deferReconcile({
          deliveryId: u1.deliveryId,
          leaseVersion: u1.leaseVersion,
          at: T0 + MINUTE,
          attemptNumber: 1,
          policy: 'wait_for_evidence',
        }),
      ).toBe(true);
      expect(
        await store.evidence.deferReconcile({ deliveryId: u1.deliveryId, leaseVersion: u1.leaseVersion + 1, at: T0, attemptNumber: 1, policy: null }),
      ).toBe(false);
      expect((await store.evidence.listUnknownDue({ now: T0 + 10 * SECOND, limit: 10 })).map((u) => u.deliveryId)).toEqual([ids[1]]);
      expect((await store.evidence.listUnknownDue({ now: T0 + MINUTE, limit: 10 })).map((u) => u.deliveryId)).toEqual(ids);
      // Deferring does not make it look recently changed: unknown-since stays.
      expect((await store.evidence.listUnknownDue({ now: T0 + MINUTE, limit: 10 }))[0]!.unknownSince).toBe(T0 + 6 * SECOND);

      const d1 = await mustGetDelivery(store, u1.deliveryId);
      const closed = mustDecide(d1, { type: 'ambiguity_policy', policy: 'wait_for_evidence', dedupesByKey: false, windowClosed: true }, T0 + 2 * MINUTE);
      const write = { deliveryId: d1.id, expect: { state: d1.state, leaseVersion: d1.leaseVersion }, transition: closed, now: T0 + 2 * MINUTE };
      expect(await store.evidence.resolveUnknown({ write, attemptNumber: 1, policy: 'wait_for_evidence', resolution: 'window_closed' })).toBe(true);
      expect(await store.evidence.resolveUnknown({ write, attemptNumber: 1, policy: 'wait_for_evidence', resolution: 'window_closed' })).toBe(false);
      expect(await mustGetDelivery(store, d1.id)).toMatchObject({ state: 'terminal', terminalReason: 'unresolved' });
      const n = await store.getNotification(TENANT, d1.notificationId);
      expect(n!.deliveries[0]!.attempts[0]).toMatchObject({ ambiguityPolicy: 'wait_for_evidence', resolution: 'window_closed' });
      expect((await store.evidence.listUnknownDue({ now: T0 + 3 * MINUTE, limit: 10 })).map((u) => u.deliveryId)).toEqual([ids[1]]);

      // A policy resend: retryable now, claimable at once with the same key.
      const d2 = await mustGetDelivery(store, ids[1]!);
      const resend = mustDecide(d2, { type: 'ambiguity_policy', policy: 'accept_duplicate', dedupesByKey: false, windowClosed: false }, T0 + 3 * MINUTE);
      expect(
        await store.evidence.resolveUnknown({
          write: { deliveryId: d2.id, expect: { state: 'unknown', leaseVersion: d2.leaseVersion }, transition: resend, now: T0 + 3 * MINUTE },
          attemptNumber: 1,
          policy: 'accept_duplicate',
          resolution: 'policy_resend',
        }),
      ).toBe(true);
      const again = await claimOne(store, T0 + 3 * MINUTE);
      expect(again).toMatchObject({ deliveryId: d2.id, attemptNumber: 2, idempotencyKey: d2.idempotencyKey });
    });
  });
}
