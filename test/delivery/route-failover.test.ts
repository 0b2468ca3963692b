/**
 * The worker's failover along a route (docs/routing.md), on both drivers with an injected clock:
 * two sandbox SMS accounts in one route, faults armed for the next send (which the primary
 * takes). A throttled primary moves the code to the backup within one ladder step, in the write
 * that schedules the retry, where it is sent under the backup's own key (an `unknown` there is
 * looked up under it); a 5xx while the primary is paused moves as `account_paused`; an invalid number does not move; an `unknown` stays under
 * `wait_for_evidence` and moves under `accept_duplicate`, recorded; a pinned account never moves.
 * Each move shows on GET /v1/deliveries/:id (the attempt's account and reason) and is counted in
 * herald_failovers_total{channel,from_account,to_account,reason}; a delivery that stays is not.
 * When the first account delivers the moved code after all, both accounts' delivered callbacks are
 * merged, the duplicate counted once (herald_duplicates_across_accounts_total) and shown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EVERY_TENANT, accountIdempotencyKey, type AmbiguityPolicy, type Route } from '../../src/domain/index.js';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

const route: Route = { tenantId: EVERY_TENANT, channel: 'sms', purpose: 'otp', accounts: ['sandbox-sms', 'sms-backup'], order: 'fixed' };
const backup = (accounts: ProviderAccountConfig[]): ProviderAccountConfig[] => [{ ...accounts.find((a) => a.id === 'sandbox-sms')!, id: 'sms-backup' }];
/** SMS accounts without look-up, so an `unknown` is settled by the ambiguity policy. */
/** The process's failover count for one move from the primary to the backup. */
const failovers = (h: Harness, reason: string) =>
  h.counters.series.failovers.get({ channel: 'sms', from_account: 'sandbox-sms', to_account: 'sms-backup', reason });
const policy = (p: AmbiguityPolicy) => (a: ProviderAccountConfig) => (a.channel === 'sms' ? { ...a, ambiguity_policy: p, capabilities: { lookup: false } } : a);

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  let n = 0;
  const sendCode = async (over: Record<string, unknown> = {}): Promise<string> => {
    const r = await h.send(otpBody({ recipient: { id: `u-${n++}`, phone: '+14155550123' }, ...over }));
    expect(r.status).toBe(202);
    expect(r.json.deliveries[0].provider_account).toBe('sandbox-sms');
    return r.json.deliveries[0].id;
  };
  const deliveryOf = async (id: string) => (await h.get(`/v1/deliveries/${id}`)).json;

  it('a throttled primary moves the code to the backup within one ladder step, recorded on the attempt', async () => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route] } });
    const id = await sendCode();
    // A 429 without Retry-After: the wait on the primary is unbounded, longer than the ladder's step.
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, throttle_headers: 'none' });
    const sentAt = h.clock.now();
    await h.worker.drain();
    let d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'retryable', provider_account: 'sms-backup' });
    expect(failovers(h, 'throttled')).toBe(1);
    const step = Date.parse(d.next_attempt_at) - sentAt;
    expect(step).toBeGreaterThan(0);
    expect(step).toBeLessThanOrEqual(10_000);
    h.clock.set(Date.parse(d.next_attempt_at));
    await h.worker.drain();
    d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'accepted', provider_account: 'sms-backup' });
    expect(d.attempts.map((a: Record<string, unknown>) => [a.provider_account, a.outcome, a.failover_reason])).toEqual([
      ['sandbox-sms', 'throttled', 'throttled'],
      ['sms-backup', 'accepted', null],
    ]);
  });

  it('a code answered 5xx while throttling pauses its account moves to the backup as account_paused', async () => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route] } });
    const id = await sendCode();
    // Another worker's 429 paused the primary for five minutes; this call was already under way.
    await h.store.limiter.throttleAccount({
      providerAccount: 'sandbox-sms',
      now: h.clock.now(),
      retryAfterMs: 5 * 60_000,
      limit: { ratePerSecond: 10, burst: 10 },
    });
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    await h.worker.drain();
    const d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'retryable', provider_account: 'sms-backup' });
    expect(d.attempts).toMatchObject([{ provider_account: 'sandbox-sms', outcome: 'retryable', failover_reason: 'account_paused' }]);
    expect(failovers(h, 'account_paused')).toBe(1);
  });

  it('the backup sends under its own key, and an unknown there is looked up under that key', async () => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route] } });
    const id = await sendCode();
    const key = (await deliveryOf(id)).idempotency_key;
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, throttle_headers: 'none' });
    await h.worker.drain();
    h.clock.set(Date.parse((await deliveryOf(id)).next_attempt_at));
    // The backup takes the code but its answer is lost.
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    await h.worker.drain();
    expect(await deliveryOf(id)).toMatchObject({ state: 'unknown', provider_account: 'sms-backup' });
    const onBackup = accountIdempotencyKey(key, 'sms-backup', 'sandbox-sms');
    expect(h.sandbox.ledger.entries().map((e) => e.idempotency_key)).toEqual([onBackup]);
    // The look-up asks for the backup's key and finds the code there: accepted, nothing resent.
    expect(await h.reconciler.runOnce()).toMatchObject({ resent: 0 });
    const d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'accepted', provider_account: 'sms-backup', idempotency_key: key });
    expect(h.sandbox.ledger.entries()).toHaveLength(1);
  });

  it('an invalid number does not fail over; a pinned account never moves', async () => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route] } });
    const invalid = await sendCode();
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
    await h.worker.drain();
    const d = await deliveryOf(invalid);
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'rejected', provider_account: 'sandbox-sms' });
    expect(d.attempts).toMatchObject([
      { provider_account: 'sandbox-sms', outcome: 'permanent', error: { code: 'invalid_destination' }, failover_reason: null },
    ]);

    const pinned = await sendCode({ provider_accounts: { sms: 'sandbox-sms' } });
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    await h.worker.drain();
    const p = await deliveryOf(pinned);
    expect(p).toMatchObject({ state: 'retryable', provider_account: 'sandbox-sms' });
    expect(p.attempts).toMatchObject([{ provider_account: 'sandbox-sms', outcome: 'retryable', failover_reason: null }]);
    expect(h.counters.series.failovers.snapshot()).toEqual([]);
  });

  it('a code retried on its own account is delivered there once: its report is not read for a duplicate across accounts', async () => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route] } });
    const pinned = await sendCode({ provider_accounts: { sms: 'sandbox-sms' } });
    h.sandbox.faults.set({ mode: 'server_error', count: 1 });
    await h.worker.drain();
    h.clock.set(Date.parse((await deliveryOf(pinned)).next_attempt_at));
    await h.worker.drain();
    const d = (await h.store.getDelivery(pinned))!;
    expect(d).toMatchObject({ state: 'accepted', providerAccount: 'sandbox-sms', attemptCount: 2 });
    await h.store.evidence.recordProviderEvents([
      {
        providerAccount: 'sandbox-sms',
        eventId: 'p-1',
        status: 'delivered',
        providerMessageId: d.providerMessageId,
        reference: null,
        suppress: null,
        occurredAt: null,
        receivedAt: h.clock.now(),
      },
    ]);
    expect((await h.store.evidence.listPendingEvidence(10)).map((e) => e.delivery.moved)).toEqual([false]);
    const evidence = h.store.evidence;
    const read = evidence.deliveryEvidence.bind(evidence);
    let reads = 0;
    evidence.deliveryEvidence = (...args) => {
      reads++;
      return read(...args);
    };
    await h.evidence.runOnce();
    // The applier read no callbacks (GET /v1/deliveries/:id below reads them, so it comes after).
    expect(reads).toBe(0);
    expect((await deliveryOf(pinned)).downstream_status).toBe('delivered');
    expect(h.counters.series.duplicatesAcrossAccounts.snapshot()).toEqual([]);
  });

  /** A code whose first send is accepted by the primary but its answer lost (`unknown`), then one reconciliation pass under `p`. */
  const unknownOnPrimary = async (p: AmbiguityPolicy) => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route] }, account: policy(p) });
    const id = await sendCode();
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    await h.worker.drain();
    return { id, pass: await h.reconciler.runOnce() };
  };

  it('an unknown on the primary stays under wait_for_evidence', async () => {
    const { id, pass } = await unknownOnPrimary('wait_for_evidence');
    expect(pass).toMatchObject({ resent: 0 });
    const d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'unknown', provider_account: 'sandbox-sms' });
    expect(d.attempts).toMatchObject([{ provider_account: 'sandbox-sms', outcome: 'unknown', failover_reason: null }]);
    expect(h.counters.series.failovers.snapshot()).toEqual([]);
  });

  it('an unknown on the primary moves to the backup under accept_duplicate, recorded as such', async () => {
    const { id, pass } = await unknownOnPrimary('accept_duplicate');
    expect(pass).toMatchObject({ resent: 1 });
    expect(failovers(h, 'accept_duplicate')).toBe(1);
    expect(await deliveryOf(id)).toMatchObject({ state: 'retryable', provider_account: 'sms-backup' });
    await h.worker.drain();
    const d = await deliveryOf(id);
    expect(d).toMatchObject({ state: 'accepted', provider_account: 'sms-backup' });
    expect(d.attempts).toMatchObject([
      { provider_account: 'sandbox-sms', outcome: 'unknown', ambiguity_policy: 'accept_duplicate', failover_reason: 'accept_duplicate' },
      { provider_account: 'sms-backup', outcome: 'accepted', failover_reason: null },
    ]);
  });

  it('the primary delivering a moved code after all is a duplicate across accounts: merged, counted once, shown', async () => {
    const { id } = await unknownOnPrimary('accept_duplicate');
    await h.worker.drain();
    const d = (await h.store.getDelivery(id))!;
    expect(d).toMatchObject({ state: 'accepted', providerAccount: 'sms-backup' });
    const event = (account: string, eventId: string, status: 'delivered' | 'read', by: { pmid?: string; reference?: string }, afterMs: number) => ({
      providerAccount: account,
      eventId,
      status,
      providerMessageId: by.pmid ?? null,
      reference: by.reference ?? null,
      suppress: null,
      occurredAt: null,
      receivedAt: h.clock.now() + afterMs,
    });
    const duplicates = () => h.counters.series.duplicatesAcrossAccounts.get({ channel: 'sms', accounts: 'sms-backup,sandbox-sms' });
    // The backup's own report: one account, no duplicate.
    await h.store.evidence.recordProviderEvents([event('sms-backup', 'b-1', 'delivered', { pmid: d.providerMessageId! }, 0)]);
    expect((await h.store.evidence.listPendingEvidence(10)).map((e) => e.delivery.moved)).toEqual([true]);
    await h.evidence.runOnce();
    expect(duplicates()).toBe(0);
    expect((await deliveryOf(id)).duplicate_across_accounts).toBeNull();
    // The primary's, under the reference it was sent with (its message id was lost with the answer): merged into the same delivery.
    await h.store.evidence.recordProviderEvents([event('sandbox-sms', 'a-1', 'delivered', { pmid: 'lost-on-primary', reference: d.idempotencyKey }, 1_000)]);
    await h.evidence.runOnce();
    expect(duplicates()).toBe(1);
    const shown = await deliveryOf(id);
    expect(shown.duplicate_across_accounts).toEqual({ accounts: ['sms-backup', 'sandbox-sms'] });
    expect(shown.evidence.filter((e: { kind: string }) => e.kind === 'callback')).toMatchObject([
      { provider_account: 'sms-backup', status: 'delivered', effect: 'applied' },
      { provider_account: 'sandbox-sms', status: 'delivered' },
    ]);
    // A later read report of either account is the same duplicate: not counted again.
    await h.store.evidence.recordProviderEvents([event('sandbox-sms', 'a-2', 'read', { reference: d.idempotencyKey }, 2_000)]);
    await h.evidence.runOnce();
    expect(duplicates()).toBe(1);
  });
});
