/**
 * The observability part of the Store contract, run against every driver: deliveries per state
 * and terminal reason with each group's oldest update and review count, and due, unexpired work
 * per provider account (what GET /metrics reads).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { ClaimedDelivery, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { MINUTE, SECOND, T0, mustDecide, seedDeliveries } from './fixtures.js';

const TENANT = 't_alpha';
const OTHER_TENANT = 't_beta';
const LEASE_MS = 30 * SECOND;
const ambiguous: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no response within 10 s' };
const permanent: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: 'http_400', message: 'no such mailbox' };

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

/** Runs the observability contract against one driver. */
export function observabilityConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Observability conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
      await store.ensureTenant({ id: OTHER_TENANT, name: 'Beta' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it('is empty on an empty store', async () => {
      expect(await store.observability.systemState({ now: T0, unknownAfterMs: MINUTE })).toEqual({ deliveries: [], due: [] });
    });

    it('counts every tenant per state and reason, with the oldest update and the review count of each group', async () => {
      // Four on acct-email (alpha), created T0..T0+3s; two on acct-sms (beta) at T0+10s.
      await seedDeliveries(store, { tenantId: TENANT, count: 4, providerAccount: 'acct-email' });
      await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 2, providerAccount: 'acct-sms', channel: 'sms', createdAt: T0 + 10 * SECOND });
      const claimed = await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: T0 + 20 * SECOND, leaseMs: LEASE_MS, limit: 2 });
      expect(claimed).toHaveLength(2);
      await report(store, claimed[0]!, ambiguous, T0 + 21 * SECOND);
      await report(store, claimed[1]!, permanent, T0 + 22 * SECOND);

      const now = T0 + 21 * SECOND + MINUTE;
      const state = await store.observability.systemState({ now, unknownAfterMs: MINUTE });
      const groups = [...state.deliveries].sort((a, b) => a.state.localeCompare(b.state));
      expect(groups).toEqual([
        { state: 'ready', terminalReason: null, count: 4, oldestUpdatedAt: T0 + 2 * SECOND, inReview: 0 },
        { state: 'terminal', terminalReason: 'rejected', count: 1, oldestUpdatedAt: T0 + 22 * SECOND, inReview: 1 },
        // Updated exactly `unknownAfterMs` ago: in review (review_list's `updated_at <= now - unknownAfterMs`).
        { state: 'unknown', terminalReason: null, count: 1, oldestUpdatedAt: T0 + 21 * SECOND, inReview: 1 },
      ]);
      const younger = await store.observability.systemState({ now: now - 1, unknownAfterMs: MINUTE });
      expect(younger.deliveries.find((g) => g.state === 'unknown')!.inReview).toBe(0);
    });

    it('counts due, unexpired work per account: not what is scheduled later, claimed, or past expiry', async () => {
      await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'acct-email' }); // due at T0, T0+1s, T0+2s
      await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-sms', channel: 'sms', createdAt: T0 + 5 * SECOND, ttlMs: MINUTE });
      const at = T0 + 10 * SECOND;
      // One claimed (the oldest): no longer waiting.
      expect(await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w1', now: at, leaseMs: LEASE_MS, limit: 1 })).toHaveLength(1);
      const due = (now: number) =>
        store.observability
          .systemState({ now, unknownAfterMs: MINUTE })
          .then((s) => [...s.due].sort((a, b) => a.providerAccount.localeCompare(b.providerAccount)));
      expect(await due(at)).toEqual([
        { providerAccount: 'acct-email', count: 2, oldestDueAt: T0 + SECOND },
        { providerAccount: 'acct-sms', count: 1, oldestDueAt: T0 + 5 * SECOND },
      ]);
      // Before its next_attempt_at a delivery is not due; at its expiry it is no longer useful.
      expect(await due(T0 + SECOND / 2)).toEqual([]);
      expect((await due(T0 + 5 * SECOND + MINUTE)).map((d) => d.providerAccount)).toEqual(['acct-email']);
    });
  });
}
