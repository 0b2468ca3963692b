/**
 * Never send on a lapsed lease (issue 10, item 6). A worker frozen between its claim and its
 * call (GC pause, blocked query, SIGSTOP, suspended VM) may wake after its lease was rescued,
 * reconciliation found nothing, and another worker sent the delivery under the same key. The
 * fencing token cannot stop the frozen worker's send (it guards Herald's rows, not the
 * provider), so the worker checks, before each call, that its lease still covers the whole
 * call: now + timeout_ms + margin < lease end. The sandbox's ledger is the referee.
 *
 * Numbers used below: lease 30 s, the harness accounts' timeout 2 s, margin max(1 s, 10 % of
 * the lease) = 3 s, so a call may start until 25 s after its claim.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import type { ProviderAdapter, SubmitRequest } from '../../src/providers/provider.js';
import type { Store } from '../../src/store/store.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness, WORKER_DEFAULTS } from '../helpers/harness.js';

const LEASE_MS = 30_000;
const CALL_DEADLINE_MS = LEASE_MS - 2_000 - 3_000;
const ACCOUNT = 'sandbox-sms';

/**
 * The same store, except that its send-time check (`sendabilityOf`, the one query between a
 * claim and its calls) blocks until `thaw()`: a worker using it freezes after its claim (attempt
 * row and lease committed) and before any call. `frozen` resolves once it is stuck there.
 */
function freezeBeforeCall(store: Store): { store: Store; frozen: Promise<void>; thaw: () => void } {
  let markFrozen!: () => void;
  const frozen = new Promise<void>((resolve) => (markFrozen = resolve));
  let thaw!: () => void;
  const thawed = new Promise<void>((resolve) => (thaw = resolve));
  const preferences = new Proxy(store.preferences, {
    get(target, prop, receiver) {
      if (prop === 'sendabilityOf') {
        return async (...args: Parameters<Store['preferences']['sendabilityOf']>) => {
          markFrozen();
          await thawed;
          return target.sendabilityOf(...args);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'preferences') return preferences;
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, frozen, thaw };
}

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver, timeoutMs: 2_000 });
  });
  afterEach(async () => {
    await h.close();
  });

  const deliveryOf = async (notificationId: string) => (await h.get(`/v1/notifications/${notificationId}`)).json.deliveries[0];
  const counts = () => Object.fromEntries(h.counters.snapshot().map((s) => [`${s.name}/${s.channel}/${s.purpose}`, s.value]));
  const retryBudget = async () => (await h.get('/v1/provider-accounts')).json.items.find((a: { id: string }) => a.id === ACCOUNT).retry_budget;

  /** Sends one OTP and starts worker A on it, frozen between its claim and its call. */
  const startFrozen = async () => {
    const sent = await h.send(otpBody());
    expect(sent.status).toBe(202);
    const freeze = freezeBeforeCall(h.store);
    const a = h.newWorker({ workerId: 'worker-a', store: freeze.store, leaseMs: LEASE_MS });
    const run = a.runOnce(ACCOUNT);
    await freeze.frozen;
    const d = await deliveryOf(sent.json.id);
    expect(d).toMatchObject({ state: 'submitting', attempt_count: 1 });
    return { id: sent.json.id as string, key: d.idempotency_key as string, run, thaw: freeze.thaw };
  };

  it('a worker frozen past its lease while another worker sends the delivery does not send it again', async () => {
    const a = await startFrozen();

    // A's lease runs out while it is frozen: the rescuer declares unknown.
    h.clock.advance(LEASE_MS + 1);
    expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);
    // After the look-up grace (30 s) the provider authoritatively has nothing: retry, same key.
    h.clock.advance(30_000);
    expect(await h.reconciler.runOnce()).toMatchObject({ notFoundByLookup: 1 });
    const retrying = await deliveryOf(a.id);
    expect(retrying.state).toBe('retryable');
    h.clock.set(Date.parse(retrying.next_attempt_at));

    // Worker B sends it.
    const b = h.newWorker({ workerId: 'worker-b', leaseMs: LEASE_MS });
    expect(await b.runOnce(ACCOUNT)).toMatchObject({ claimed: 1, applied: 1, stale: 0 });
    expect(h.sandbox.ledger.countByKey(a.key)).toBe(1);

    // A wakes. Its lease is long gone: it must not call, and its "not sent" is refused by the
    // fencing token and kept as a late outcome, resolving nothing.
    a.thaw();
    expect(await a.run).toMatchObject({ claimed: 1, applied: 0, stale: 1 });

    expect(h.sandbox.ledger.countByKey(a.key)).toBe(1);
    const d = await deliveryOf(a.id);
    expect(d.state).toBe('accepted');
    expect(d.provider_message_id).toBe(h.sandbox.ledger.entries({ idempotency_key: a.key })[0]!.provider_message_id);
    expect(d.attempts).toHaveLength(2);
    expect(d.attempts[0]).toMatchObject({
      number: 1,
      worker_id: 'worker-a',
      outcome: 'lease_expired',
      late_outcome: 'retryable',
      resolution: 'not_found_by_lookup',
    });
    expect(d.attempts[1]).toMatchObject({ number: 2, worker_id: 'worker-b', outcome: 'accepted' });
    // One provider call (B's): A's skipped call is neither an API attempt nor a call in the account's health.
    expect(counts()).toEqual({ 'api_attempts/sms/otp': 1, 'accepted_submissions/sms/otp': 1, 'ambiguous_submissions/sms/otp': 1 });
    expect(await retryBudget()).toMatchObject({ calls: 1, failures: 0 });
  });

  it('frozen past its call deadline but not its lease: renews the lease first, then sends once', async () => {
    const a = await startFrozen();
    // 28 s: past the call deadline (25 s), inside the lease (30 s): nothing rescues it, and the
    // worker renews the lease (answered before it ended) before calling, so the call fits again.
    h.clock.advance(28_000);
    expect((await h.sweeper.runOnce()).leasesRescued).toBe(0);
    a.thaw();
    expect(await a.run).toMatchObject({ claimed: 1, applied: 1, stale: 0 });

    expect(h.sandbox.ledger.countByKey(a.key)).toBe(1);
    const d = await deliveryOf(a.id);
    expect(d.state).toBe('accepted');
    expect(d.attempts.map((t: { outcome: string }) => t.outcome)).toEqual(['accepted']);
    expect(await retryBudget()).toMatchObject({ calls: 1, failures: 0 });
  });

  it('frozen past its lease, not yet rescued: a renewal answered too late does not count; not sent, closed as retryable, sent once by the retry', async () => {
    const a = await startFrozen();
    // 31 s: past the lease (30 s), but no rescuer has run. The renewal before the call is
    // answered after the lease ended, so a rescuer may already have read it as expired: the
    // worker does not rely on it and makes no call.
    h.clock.advance(31_000);
    a.thaw();
    expect(await a.run).toMatchObject({ claimed: 1, applied: 1, stale: 0 });

    expect(h.sandbox.ledger.countByKey(a.key)).toBe(0);
    const skipped = await deliveryOf(a.id);
    expect(skipped.state).toBe('retryable');
    expect(skipped.attempts).toHaveLength(1);
    expect(skipped.attempts[0]).toMatchObject({ outcome: 'retryable', error: { code: 'lease_lapsed_before_send' }, late_outcome: null });
    expect(counts()).toEqual({});
    expect(await retryBudget()).toMatchObject({ calls: 0, failures: 0 });

    h.clock.set(Date.parse(skipped.next_attempt_at));
    await h.worker.drain();
    expect(h.sandbox.ledger.countByKey(a.key)).toBe(1);
    const d = await deliveryOf(a.id);
    expect(d.state).toBe('accepted');
    expect(d.attempts.map((t: { outcome: string }) => t.outcome)).toEqual(['retryable', 'accepted']);
  });

  it('frozen for less than its call deadline: it still calls', async () => {
    const a = await startFrozen();
    // 20 s: 5 s before the call deadline, which is also the transport's write deadline (its
    // socket must be ready by then, in real time: ample for a local sandbox).
    h.clock.advance(CALL_DEADLINE_MS - 5_000);
    a.thaw();
    expect(await a.run).toMatchObject({ claimed: 1, applied: 1, stale: 0 });
    expect(h.sandbox.ledger.countByKey(a.key)).toBe(1);
    expect((await deliveryOf(a.id)).state).toBe('accepted');
  });

  it("the transport's write deadline is the earlier of the last useful moment (expiry less the arrival allowance) and the lease's call deadline", async () => {
    const requests: SubmitRequest[] = [];
    const recorder: ProviderAdapter = {
      kind: 'fake',
      capabilities: { lookup: false, dedupesByKey: false },
      submit: async (r) => {
        requests.push(r);
        return { kind: 'accepted', providerMessageId: `SM${requests.length}` };
      },
      close: async () => {},
    };
    const worker = new DeliveryWorker({
      store: h.store,
      adapters: new Map([[ACCOUNT, recorder]]),
      clock: h.clock,
      logger: silentLogger,
      workerId: 'w-recorder',
      settings: { ...WORKER_DEFAULTS, lease_ms: LEASE_MS },
      accounts: h.config.provider_accounts,
    });
    // Herald's clock stands still during a run, so the time the transport is given is exact; it
    // is counted from the wall clock's now, which the run is bracketed by.
    const sendByOffset = async (ttlSeconds: number) => {
      await h.send(otpBody({ ttl_seconds: ttlSeconds, recipient: { id: `u-${ttlSeconds}`, phone: '+14155550123' } }));
      const before = Date.now();
      await worker.runOnce(ACCOUNT);
      const after = Date.now();
      const sendBy = requests.at(-1)!.sendBy!;
      return { min: sendBy - after, max: sendBy - before };
    };
    // Expiry 300 s away: the lease decides, 25 s.
    const byLease = await sendByOffset(300);
    expect(byLease.min).toBeLessThanOrEqual(CALL_DEADLINE_MS);
    expect(byLease.max).toBeGreaterThanOrEqual(CALL_DEADLINE_MS);
    // Expiry 10 s away: expiry less the SMS channel's arrival allowance (1 s) decides.
    const byExpiry = await sendByOffset(10);
    expect(byExpiry.min).toBeLessThanOrEqual(9_000);
    expect(byExpiry.max).toBeGreaterThanOrEqual(9_000);
  });

  it('a worker whose lease cannot cover an account timeout + margin refuses to start', () => {
    // 3 s lease: 2 s timeout + 1 s margin leave no time at all.
    expect(() => h.newWorker({ leaseMs: 3_000 })).toThrow(/a 3000 ms lease cannot cover a call to provider account sandbox-email: its timeout_ms \(2000\)/);
    expect(() => h.newWorker({ leaseMs: 3_001 })).not.toThrow();
  });
});
