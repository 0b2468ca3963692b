/**
 * What the core Store conformance files share: the tenants and account every test seeds, the
 * outcomes a worker reports, and the worker's, rescuer's and operator's writes built from `decide`.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { decide, type SubmitOutcome, type Transition } from '../../src/domain/index.js';
import type { ClaimedDelivery, DeliveryView, Store, TransitionResult } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { HOUR, MINUTE, SECOND, T0, TEST_POLICY, mustDecide, type DecisionFacts } from './fixtures.js';

export const TENANT = 't_alpha';
export const OTHER_TENANT = 't_beta';
export const ACCOUNT = 'acct-email';
export const LEASE_MS = 30 * SECOND;
export const IDEM = { lockMs: MINUTE, retentionMs: 24 * HOUR };

export const accepted = (id = 'pm-1'): SubmitOutcome => ({ kind: 'accepted', providerMessageId: id });
export const retryable: SubmitOutcome = { kind: 'retryable', code: 'http_503', message: 'service unavailable' };
export const permanent: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: 'http_400', message: 'no such mailbox' };
export const ambiguous: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no response within 10 s' };

/** What a worker knows from its claim alone: it decides from this, not from a fresh read. */
export function claimFacts(c: ClaimedDelivery): DecisionFacts {
  return { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null };
}

/** A worker reporting its call's outcome with its own fencing token. */
export async function report(store: Store, c: ClaimedDelivery, outcome: SubmitOutcome, now: number): Promise<TransitionResult> {
  const transition = mustDecide(claimFacts(c), { type: 'outcome', outcome }, now);
  const results = await store.applyTransitions([
    {
      deliveryId: c.deliveryId,
      expect: { state: 'submitting', leaseVersion: c.leaseVersion },
      transition,
      now,
      attempt: { number: c.attemptNumber, outcome },
    },
  ]);
  expect(results).toHaveLength(1);
  return results[0]!;
}

/** The lease rescuer's write for one expired lease, built from what listExpiredLeases returned. */
export async function rescue(store: Store, deliveryId: string, now: number): Promise<TransitionResult> {
  const facts = (await store.listExpiredLeases(now, 100)).find((f) => f.deliveryId === deliveryId);
  if (!facts) throw new Error(`${deliveryId} is not an expired lease at ${now}`);
  const transition = mustDecide(facts, { type: 'lease_expired' }, now);
  const [r] = await store.applyTransitions([
    {
      deliveryId,
      expect: { state: facts.state, leaseVersion: facts.leaseVersion },
      transition,
      now,
      attempt: { number: facts.attemptCount, outcome: { kind: 'lease_expired' } },
    },
  ]);
  return r!;
}

export async function claim(store: Store, now: number, limit = 10, account = ACCOUNT, workerId = 'w1'): Promise<ClaimedDelivery[]> {
  return store.claimBatch({ providerAccount: account, workerId, now, leaseMs: LEASE_MS, limit });
}

export async function claimOne(store: Store, now: number, workerId = 'w1'): Promise<ClaimedDelivery> {
  const claimed = await claim(store, now, 1, ACCOUNT, workerId);
  expect(claimed).toHaveLength(1);
  return claimed[0]!;
}

export async function attemptsOf(store: Store, d: DeliveryView) {
  const n = await store.getNotification(d.tenantId, d.notificationId);
  return n!.deliveries.find((x) => x.id === d.id)!.attempts;
}

/** An operator's replay decision for a delivery as read (terminal reason included); throws if refused. */
export function replayOf(d: DeliveryView, now: number, acceptDuplicateRisk = false): Transition {
  const decision = decide(
    { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt },
    { type: 'replay', acceptDuplicateRisk },
    { now, policy: TEST_POLICY, random: () => 0.5 },
  );
  if (!decision.ok) throw new Error(`decide refused replay in ${d.state}/${d.terminalReason}: ${decision.reason}`);
  return decision;
}

/** The store under test, reachable from a suite's tests once its `beforeEach` ran. */
export interface StoreUnderTest {
  readonly store: Store;
  /** Another instance on the same database, as a second process would open it. */
  peer(): Promise<Store>;
}

/**
 * Registers the hooks every core conformance file shares: a fresh migrated store per test with
 * both tenants, closed after it. Call it first inside the suite's `describe`.
 */
export function useStoreFixture(name: string, makeStore: () => Promise<StoreFixture>): StoreUnderTest {
  let fx: StoreFixture | undefined;
  beforeEach(async () => {
    fx = await makeStore();
    await fx.store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
    await fx.store.ensureTenant({ id: OTHER_TENANT, name: 'Beta' }, T0);
  });
  afterEach(async () => {
    await fx?.cleanup();
    fx = undefined;
  });
  return {
    get store(): Store {
      if (!fx) throw new Error(`${name}: the store is opened in beforeEach`);
      return fx.store;
    },
    async peer(): Promise<Store> {
      if (!fx?.openPeer) throw new Error(`${name}: the factory must provide openPeer() for the two-process tests`);
      return fx.openPeer();
    },
  };
}
