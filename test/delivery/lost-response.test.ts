/**
 * The case Herald exists for: the provider accepts a message and the answer is lost. The
 * delivery must say `unknown`, the provider must have exactly one submission, and no worker,
 * restarted or not, may send it again.
 */
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

  async function deliveryOf(notificationId: string) {
    const r = await h.get(`/v1/notifications/${notificationId}`);
    expect(r.status).toBe(200);
    return r.json.deliveries[0];
  }

  describe('lost response after accept', () => {
    it('records unknown, keeps one ledger entry, and never resends, even after a worker restart', async () => {
      h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
      const sent = await h.send(otpBody());
      expect(sent.status).toBe(202);

      const first = await h.worker.drain();
      expect(first.claimed).toBe(1);

      const d = await deliveryOf(sent.json.id);
      expect(d.state).toBe('unknown');
      expect(d.terminal_reason).toBeNull();
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0].outcome).toBe('unknown');
      expect(h.sandbox.ledger.entries()).toHaveLength(1);
      expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(1);

      // A restarted worker (new process: new adapters, new id) finds nothing to send.
      await h.worker.stop();
      const restarted = h.newWorker({ workerId: 'worker-restarted' });
      h.clock.advance(60_000);
      expect((await restarted.drain()).claimed).toBe(0);
      const sweep = await h.sweeper.runOnce();
      expect(sweep.leasesRescued).toBe(0);
      expect((await restarted.drain()).claimed).toBe(0);

      expect(h.sandbox.ledger.countByKey(d.idempotency_key)).toBe(1);
      expect((await deliveryOf(sent.json.id)).state).toBe('unknown');
    });

    it('a timeout before the provider accepted is still unknown: Herald cannot tell, so it does not guess', async () => {
      h.sandbox.faults.set({ mode: 'timeout_before_accept', count: 1 });
      const sent = await h.send(otpBody());
      await h.worker.drain();
      const d = await deliveryOf(sent.json.id);
      expect(d.state).toBe('unknown');
      expect(d.attempts[0].error.code).toMatch(/timeout/);
      expect(h.sandbox.ledger.entries()).toHaveLength(0);
      expect((await h.newWorker().drain()).claimed).toBe(0);
    });

    it('a crash after the attempt was committed (no outcome ever written) becomes unknown at lease expiry, never ready', async () => {
      const sent = await h.send(otpBody());
      // Claim as a worker that then dies: the attempt row and lease are committed, nothing else.
      const claimed = await h.store.claimBatch({ providerAccount: 'sandbox-sms', workerId: 'doomed', now: h.clock.now(), leaseMs: 30_000, limit: 10 });
      expect(claimed).toHaveLength(1);
      expect((await deliveryOf(sent.json.id)).state).toBe('submitting');

      h.clock.advance(29_999);
      expect((await h.sweeper.runOnce()).leasesRescued).toBe(0);
      h.clock.advance(1);
      expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);

      const d = await deliveryOf(sent.json.id);
      expect(d.state).toBe('unknown');
      expect(d.attempts[0].outcome).toBe('lease_expired');
      expect((await h.newWorker().drain()).claimed).toBe(0);
      expect(h.sandbox.ledger.entries()).toHaveLength(0);
    });
  });
});
