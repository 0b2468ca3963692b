/**
 * The delivery counters (issue 4, item 8), counted where the events happen: the worker (API
 * attempts, accepted and ambiguous submissions, expiries it decides), the sweeper (lease rescues,
 * expired pending deliveries), the replay service (replays) and the resend route (user resends).
 * The harness's intake, app, workers and sweeper share one DeliveryCounters (`h.counters`).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import type { CounterName } from '../../src/metrics/counters.js';
import type { ProviderAdapter } from '../../src/providers/provider.js';
import type { Store } from '../../src/store/store.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness, WORKER_DEFAULTS } from '../helpers/harness.js';

const smsOtp = { channel: 'sms', purpose: 'otp' } as const;

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver, timeoutMs: 5_000 });
  });
  afterEach(async () => {
    await h.close();
  });

  /** Every counter as `name/channel/purpose → value`. */
  const counts = () => Object.fromEntries(h.counters.snapshot().map((s) => [`${s.name}/${s.channel}/${s.purpose}`, s.value]));
  const count = (name: CounterName, labels: { channel: 'email' | 'sms' | 'push'; purpose: 'otp' | 'transactional' } = smsOtp) => h.counters.get(name, labels);
  const deliveryOf = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries[0];

  it('an accepted send counts one API attempt and one accepted submission, nothing else', async () => {
    expect((await h.send(otpBody())).status).toBe(202);
    await h.worker.drain();
    expect(counts()).toEqual({ 'api_attempts/sms/otp': 1, 'accepted_submissions/sms/otp': 1 });
  });

  it('labels are the delivery channel and purpose', async () => {
    expect((await h.send(otpBody({ purpose: 'transactional', channels: ['email', 'sms'] }))).status).toBe(202);
    await h.worker.drain();
    expect(counts()).toEqual({
      'accepted_submissions/email/transactional': 1,
      'accepted_submissions/sms/transactional': 1,
      'api_attempts/email/transactional': 1,
      'api_attempts/sms/transactional': 1,
    });
  });

  it('a lost response counts one attempt and one ambiguous submission', async () => {
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    await h.send(otpBody());
    await h.worker.drain();
    expect(counts()).toEqual({ 'api_attempts/sms/otp': 1, 'ambiguous_submissions/sms/otp': 1 });
  });

  it('rate-limited, then accepted: two attempts, one accepted', async () => {
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 5 });
    const sent = await h.send(otpBody());
    await h.worker.drain();
    h.clock.set(Date.parse((await deliveryOf(sent.json.id)).next_attempt_at));
    expect((await h.worker.drain()).claimed).toBe(1);
    expect((await deliveryOf(sent.json.id)).state).toBe('accepted');
    expect(counts()).toEqual({ 'api_attempts/sms/otp': 2, 'accepted_submissions/sms/otp': 1 });
  });

  it('an expired pending delivery swept counts one expired challenge, with its labels, and no attempt', async () => {
    await h.send(otpBody({ purpose: 'transactional', channels: ['email'], ttl_seconds: 10 }));
    h.clock.advance(10_000);
    expect((await h.sweeper.runOnce()).expired).toBe(1);
    expect(counts()).toEqual({ 'expired_challenges/email/transactional': 1 });
    // A second pass finds nothing more to count.
    await h.sweeper.runOnce();
    expect(count('expired_challenges', { channel: 'email', purpose: 'transactional' })).toBe(1);
  });

  it('a retry that no longer fits before expiry ends the delivery expired in the worker: counted once', async () => {
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 60 });
    await h.send(otpBody({ ttl_seconds: 30 }));
    await h.worker.drain();
    expect(counts()).toEqual({ 'api_attempts/sms/otp': 1, 'expired_challenges/sms/otp': 1 });
  });

  it('expired before the call started: no API attempt, one expired challenge', async () => {
    await h.send(otpBody({ ttl_seconds: 10 }));
    const worker = new DeliveryWorker({
      store: withSlowClaim(h.store, h.clock, 10_000),
      adapters: new Map([['sandbox-sms', neverCalled()]]),
      clock: h.clock,
      logger: silentLogger,
      workerId: 'slow-claim',
      settings: WORKER_DEFAULTS,
      counters: h.counters,
    });
    expect(await worker.runOnce('sandbox-sms')).toMatchObject({ claimed: 1, applied: 1 });
    expect(counts()).toEqual({ 'expired_challenges/sms/otp': 1 });
  });

  it('a lease rescued by the sweeper counts one ambiguous submission', async () => {
    await h.send(otpBody());
    expect(await h.store.claimBatch({ providerAccount: 'sandbox-sms', workerId: 'doomed', now: h.clock.now(), leaseMs: 30_000, limit: 10 })).toHaveLength(1);
    h.clock.advance(30_000);
    expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);
    expect(counts()).toEqual({ 'ambiguous_submissions/sms/otp': 1 });
  });

  it('a late acknowledgment after a rescue: one ambiguous (the rescue) and one accepted, counted once', async () => {
    await h.send(otpBody());
    h.sandbox.faults.set({ mode: 'latency', count: 1, latency_ms: 300 });
    const run = h.worker.runOnce('sandbox-sms');
    // The call has started (the sandbox holds the request), not just the claim: see lease-race.test.ts.
    await vi.waitFor(() => expect(h.sandbox.faults.list()).toEqual([]), { timeout: 2_000, interval: 5 });
    h.clock.advance(30_001);
    expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);
    expect(await run).toMatchObject({ stale: 1 });
    expect(counts()).toEqual({ 'api_attempts/sms/otp': 1, 'ambiguous_submissions/sms/otp': 1, 'accepted_submissions/sms/otp': 1 });
  });

  it('a replay counts one replay; a refused one counts none', async () => {
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
    const sent = await h.send(otpBody());
    await h.worker.drain();
    const d = await deliveryOf(sent.json.id);
    expect(d.terminal_reason).toBe('rejected');
    expect((await h.post(`/v1/deliveries/${d.id}/retry`)).status).toBe(202);
    expect(count('replays')).toBe(1);
    // Already ready again: refused, not counted.
    expect((await h.post(`/v1/deliveries/${d.id}/retry`)).status).toBe(409);
    expect(count('replays')).toBe(1);
  });

  it('a bulk replay counts each delivery it replayed', async () => {
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 2 });
    await h.send(otpBody({ recipient: { id: 'u1', phone: '+14155550123' } }));
    await h.send(otpBody({ recipient: { id: 'u2', phone: '+14155550124' } }));
    await h.worker.drain();
    const r = await h.post('/v1/deliveries/retry', { filter: { channel: 'sms' } });
    expect(r.json).toMatchObject({ matched: 2, scheduled: 2 });
    expect(count('replays')).toBe(2);
  });

  it('a resend counts one user resend per channel; its idempotent repeat does not', async () => {
    const first = await h.send(otpBody());
    const key = { 'idempotency-key': '"resend-1"' };
    const r = await h.post(`/v1/notifications/${first.json.id}/resend`, undefined, key);
    expect(r.status).toBe(202);
    expect(count('user_resends')).toBe(1);
    const again = await h.post(`/v1/notifications/${first.json.id}/resend`, undefined, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // The resend is a new generation: it superseded the original, still pending.
    expect(counts()).toEqual({ 'user_resends/sms/otp': 1, 'superseded_deliveries/sms/otp': 1 });
  });

  it('are no longer served by the API: GET /v1/stats/counters is gone (GET /metrics exports them; GET /v1/stats reads the store)', async () => {
    await h.send(otpBody());
    await h.worker.drain();
    expect(counts()).toEqual({ 'api_attempts/sms/otp': 1, 'accepted_submissions/sms/otp': 1 });
    expect((await h.get('/v1/stats/counters')).status).toBe(404);
  });
});

/** The same store, except that claimBatch takes `ms` of (manual) time after its query read `now`. */
function withSlowClaim(store: Store, clock: ManualClock, ms: number): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'claimBatch') {
        return async (req: Parameters<Store['claimBatch']>[0]) => {
          const claimed = await target.claimBatch(req);
          clock.advance(ms);
          return claimed;
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** An adapter that must not be called. */
function neverCalled(): ProviderAdapter {
  return {
    kind: 'never',
    capabilities: {} as ProviderAdapter['capabilities'],
    submit: async () => {
      throw new Error('the provider must not be called');
    },
    close: async () => {},
  };
}
