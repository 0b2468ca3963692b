/** The two clocks: Retry-After as a lower bound on the attempt clock; expiry ends everything. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver });
  });
  afterEach(async () => {
    await h.close();
  });

  const deliveryOf = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries[0];

  describe('Retry-After', () => {
    it('is honoured as a lower bound: no call before it, one after', async () => {
      h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 5 });
      const sent = await h.send(otpBody());
      const t0 = h.clock.now();
      await h.worker.drain();

      let d = await deliveryOf(sent.json.id);
      expect(d.state).toBe('retryable');
      expect(d.attempts[0]).toMatchObject({ outcome: 'throttled', retry_after_ms: 5000 });
      const next = Date.parse(d.next_attempt_at);
      expect(next).toBeGreaterThanOrEqual(t0 + 5_000);
      expect(next).toBeLessThanOrEqual(t0 + 5_000 + 500); // at most 10% jitter on top

      h.clock.set(next - 1);
      expect((await h.worker.drain()).claimed).toBe(0);
      expect(h.sandbox.ledger.entries()).toHaveLength(0);

      h.clock.set(next);
      expect((await h.worker.drain()).claimed).toBe(1);
      d = await deliveryOf(sent.json.id);
      expect(d.state).toBe('accepted');
      expect(d.attempts.map((a: any) => a.outcome)).toEqual(['throttled', 'accepted']);
      expect(h.sandbox.ledger.entries()).toHaveLength(1);
    });

    it('a server error is retried with backoff using the same idempotency key', async () => {
      h.sandbox.faults.set({ mode: 'server_error', count: 2 });
      const sent = await h.send(otpBody());
      for (let i = 0; i < 3; i++) {
        await h.worker.drain();
        h.clock.advance(60_000);
      }
      const d = await deliveryOf(sent.json.id);
      expect(d.state).toBe('accepted');
      expect(d.attempts.map((a: any) => a.outcome)).toEqual(['retryable', 'retryable', 'accepted']);
      expect(h.sandbox.ledger.entries().map((e) => e.idempotency_key)).toEqual([d.idempotency_key]);
    });

    it('a permanent rejection ends the delivery at once, naming the reason', async () => {
      h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
      const sent = await h.send(otpBody());
      await h.worker.drain();
      const d = await deliveryOf(sent.json.id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'rejected', last_error_code: 'invalid_destination' });
      h.clock.advance(3600_000);
      expect((await h.worker.drain()).claimed).toBe(0);
    });
  });

  describe('expiry', () => {
    it('a delivery whose expires_at passed goes terminal/expired without a call', async () => {
      const sent = await h.send(otpBody({ ttl_seconds: 10 }));
      h.clock.advance(10_000);
      expect((await h.worker.drain()).claimed).toBe(0);
      expect((await h.sweeper.runOnce()).expired).toBe(1);
      const d = await deliveryOf(sent.json.id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'expired', attempts: [] });
      expect(h.sandbox.ledger.entries()).toHaveLength(0);
    });

    it('a retry that would fall at or after expiry is not scheduled: terminal/expired now', async () => {
      h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 30 });
      const sent = await h.send(otpBody({ ttl_seconds: 20 }));
      await h.worker.drain();
      const d = await deliveryOf(sent.json.id);
      expect(d).toMatchObject({ state: 'terminal', terminal_reason: 'expired', next_attempt_at: null });
      expect(d.attempts).toHaveLength(1);
    });

    it('a retryable delivery that expires while waiting is swept to terminal/expired', async () => {
      h.sandbox.faults.set({ mode: 'server_error', count: 1 });
      const sent = await h.send(otpBody({ ttl_seconds: 60 }));
      await h.worker.drain();
      expect((await deliveryOf(sent.json.id)).state).toBe('retryable');
      h.clock.advance(60_000);
      expect((await h.sweeper.runOnce()).expired).toBe(1);
      expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'terminal', terminal_reason: 'expired' });
      expect(h.sandbox.ledger.entries()).toHaveLength(0);
    });
  });

  describe('stopping', () => {
    it('a clean stop leaves nothing submitting: in-flight calls finish and are recorded', async () => {
      for (let i = 0; i < 5; i++) await h.send(otpBody({ recipient: { id: `u${i}`, phone: '+14155550123' } }));
      h.sandbox.faults.set({ mode: 'latency', probability: 1, latency_ms: 100 });
      const w = h.newWorker();
      w.start();
      for (let i = 0; i < 500 && (await h.store.countByState()).submitting === 0; i++) await new Promise((r) => setTimeout(r, 5));
      await w.stop();
      const counts = await h.store.countByState();
      expect(counts.submitting).toBe(0);
      expect(counts.accepted + counts.ready).toBe(5);
      expect(h.sandbox.ledger.entries()).toHaveLength(counts.accepted);
    });
  });
});
