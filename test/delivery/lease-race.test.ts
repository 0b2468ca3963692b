/**
 * Leases and fencing: a worker that outlives its lease cannot overwrite what happened after,
 * and two workers never both own a delivery.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ timeoutMs: 5_000, driver });
  });
  afterEach(async () => {
    await h.close();
  });

  describe('lease expiry with two workers racing', () => {
    it('exactly one owns submitting; the slow one is fenced off and its answer kept as evidence', async () => {
      const sent = await h.send(otpBody());
      const a = h.newWorker({ workerId: 'worker-a' });
      const b = h.newWorker({ workerId: 'worker-b' });

      // Worker A's call is slow: it is still in flight when its lease runs out.
      h.sandbox.faults.set({ mode: 'latency', count: 1, latency_ms: 300 });
      const aRun = a.runOnce('sandbox-sms');
      // Wait (bounded) until A's request has reached the sandbox (its faults are spent): the claim
      // alone is not enough, since a worker whose clock passes its lease before the call does not call.
      await vi.waitFor(() => expect(h.sandbox.faults.list()).toEqual([]), { timeout: 2_000, interval: 5 });
      expect((await h.store.countByState()).submitting).toBe(1);

      // While A holds the lease, B can claim nothing.
      expect((await b.runOnce('sandbox-sms')).claimed).toBe(0);

      // The lease runs out: the rescuer declares unknown (the call may have happened).
      h.clock.advance(30_001);
      expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);
      // B still cannot take it: unknown is reconciled, never blindly resent.
      expect((await b.runOnce('sandbox-sms')).claimed).toBe(0);

      // A finally hears "accepted". Its outcome write is refused by the fencing token...
      const aResult = await aRun;
      expect(aResult).toMatchObject({ claimed: 1, applied: 0, stale: 1 });

      // ...but the acknowledgment is evidence: it resolves the unknown, and is recorded as late.
      const d = (await h.get(`/v1/notifications/${sent.json.id}`)).json.deliveries[0];
      expect(d.state).toBe('accepted');
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0].outcome).toBe('lease_expired');
      expect(d.attempts[0].late_outcome).toBe('accepted');
      expect(d.provider_message_id).toBe(h.sandbox.ledger.entries()[0]!.provider_message_id);
      expect(h.sandbox.ledger.entries()).toHaveLength(1);
    });

    it('a late non-acknowledgment stays evidence only: the delivery stays unknown', async () => {
      const sent = await h.send(otpBody());
      const a = h.newWorker({ workerId: 'worker-a' });
      h.sandbox.faults.set({ mode: 'latency', count: 1, latency_ms: 300 });
      h.sandbox.faults.set({ mode: 'server_error', count: 1 });
      const aRun = a.runOnce('sandbox-sms');
      await vi.waitFor(() => expect(h.sandbox.faults.list()).toEqual([]), { timeout: 2_000, interval: 5 });
      h.clock.advance(30_001);
      expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);
      expect(await aRun).toMatchObject({ stale: 1 });
      const d = (await h.get(`/v1/notifications/${sent.json.id}`)).json.deliveries[0];
      expect(d.state).toBe('unknown');
      expect(d.attempts[0].late_outcome).toBe('retryable');
    });

    it('two processes claiming the same backlog never share a delivery', async () => {
      for (let i = 0; i < 60; i++) expect((await h.send(otpBody({ recipient: { id: `u${i}`, phone: '+14155550123' } }))).status).toBe(202);
      // A second connection to the same file stands in for a second process.
      const other = h.openPeerStore();
      const seen = new Map<string, string>();
      try {
        for (let round = 0; round < 10; round++) {
          for (const [name, store] of [
            ['one', h.store],
            ['two', other],
          ] as const) {
            const got = await store.claimBatch({ providerAccount: 'sandbox-sms', workerId: name, now: h.clock.now(), leaseMs: 30_000, limit: 4 });
            for (const c of got) {
              expect(seen.has(c.deliveryId), `${c.deliveryId} claimed twice`).toBe(false);
              seen.set(c.deliveryId, name);
            }
          }
        }
      } finally {
        await other.close();
      }
      expect(seen.size).toBe(60);
      expect(new Set(seen.values())).toEqual(new Set(['one', 'two']));
      expect((await h.store.countByState()).submitting).toBe(60);
    });
  });
});
