/**
 * The worker retries each delivery on its purpose's ladder, end to end: real sandbox, real
 * store, an injected clock driven to each next_attempt_at (no sleeping).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LADDERS, plannedOffsetsMs } from '../../src/domain/index.js';
import { createHarness, otpBody, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const deliveryOf = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries[0];

/** Runs the worker at every next_attempt_at until the delivery stops being retryable. */
async function driveToEnd(notificationId: string, worker = h.newWorker({ random: () => 0 })) {
  for (let i = 0; i < 50; i++) {
    await worker.drain();
    const d = await deliveryOf(notificationId);
    if (d.state !== 'retryable') return d;
    h.clock.set(Date.parse(d.next_attempt_at));
  }
  throw new Error('did not finish');
}

describe('purpose ladders through the worker', () => {
  it('otp: 13 attempts at the documented offsets, then exhausted', async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 100 });
    const sent = await h.send(otpBody({ ttl_seconds: 600 }));
    const start = h.clock.now();
    const d = await driveToEnd(sent.json.id);
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'exhausted' });
    const offsets = d.attempts.map((a: any) => Date.parse(a.started_at) - start);
    expect(offsets).toEqual(plannedOffsetsMs(LADDERS.otp));
    expect(offsets).toHaveLength(13);
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
  });

  it('otp: stops at expiry instead of scheduling past it', async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 100 });
    const sent = await h.send(otpBody({ ttl_seconds: 60 }));
    const d = await driveToEnd(sent.json.id);
    expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'expired' });
    // Offsets 0, 1, 3, 7, 13, 22, 35, 53 s fit in a minute; the next (78 s) would not.
    expect(d.attempts).toHaveLength(8);
  });

  it('a 429 with Retry-After: 90 moves the next attempt at least 90 s out, on every purpose', async () => {
    for (const purpose of ['otp', 'transactional', 'conversational', 'marketing', 'alert']) {
      // The previous purpose's 429 paused the whole account for 90 s (the shared limiter); after
      // it, permits come back at the account's rate, so give them a second, and let the previous
      // purpose's retry through before the next 429 is armed.
      h.clock.advance(91_000);
      await h.worker.drain();
      h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 90 });
      const sent = await h.send(otpBody({ purpose, ttl_seconds: 3600, recipient: { id: `r-${purpose}`, phone: '+14155550123' } }));
      const t0 = h.clock.now();
      await h.newWorker({ random: () => 0 }).drain();
      const d = await deliveryOf(sent.json.id);
      expect(d.state, purpose).toBe('retryable');
      expect(Date.parse(d.next_attempt_at) - t0, purpose).toBeGreaterThanOrEqual(90_000);
    }
  });

  it('a 429 pauses the whole account: no other delivery of it is attempted before Retry-After has passed', async () => {
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 30 });
    const first = await h.send(otpBody({ recipient: { id: 'r-a', phone: '+14155550123' } }));
    await h.worker.drain();
    expect((await deliveryOf(first.json.id)).state).toBe('retryable');
    const other = await h.send(otpBody({ purpose: 'transactional', recipient: { id: 'r-b', phone: '+14155550124' } }));
    h.clock.advance(29_999);
    expect((await h.worker.drain()).claimed).toBe(0);
    expect((await deliveryOf(other.json.id)).state).toBe('ready');
    expect(h.sandbox.ledger.entries()).toHaveLength(0);
    h.clock.advance(1_000);
    await h.worker.drain();
    expect((await deliveryOf(other.json.id)).state).toBe('accepted');
  });

  it('a permanent error stops at once on every purpose', async () => {
    for (const purpose of ['otp', 'transactional', 'conversational', 'marketing', 'alert']) {
      h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
      const sent = await h.send(otpBody({ purpose, recipient: { id: `p-${purpose}`, phone: '+14155550123' } }));
      await h.newWorker().drain();
      expect(await deliveryOf(sent.json.id), purpose).toMatchObject({ state: 'terminal', terminal_reason: 'rejected' });
    }
  });

  it('transactional waits minutes, not seconds, between its first retries', async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 2 });
    const sent = await h.send(otpBody({ purpose: 'transactional', channels: ['email'] }));
    const t0 = h.clock.now();
    await h.newWorker({ random: () => 0 }).drain();
    const d = await deliveryOf(sent.json.id);
    // equal jitter at random = 0 is half the planned 30 s wait.
    expect(Date.parse(d.next_attempt_at) - t0).toBe(15_000);
  });
});
