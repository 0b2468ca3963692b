/**
 * The code fast path (src/delivery/otp-fast-path.ts): the API process sends a code it has just
 * committed, claimed, leased and fenced like any worker claim. It sends once; a worker racing it
 * never sends the code again; a lease that runs out during its call makes the delivery `unknown`
 * like any other; and without a permit it leaves the code to the workers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OtpFastPath } from '../../src/delivery/otp-fast-path.js';
import { DEFAULT_LANES, lanePermitPlans } from '../../src/domain/index.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('code fast path on %s', (driver) => {
  let h: Harness;
  let fast: OtpFastPath | null = null;
  afterEach(async () => {
    await fast?.drain();
    fast = null;
    await h?.close();
  });

  /** A harness whose intake hands every committed notification to a fast path on its own sender ("api"). */
  const start = async () => {
    h = await createHarness({ driver, timeoutMs: 5_000, intake: { onCommitted: (n) => fast?.offer(n) } });
    fast = new OtpFastPath({ sender: h.newSender({ workerId: 'api' }), logger: silentLogger });
  };
  const delivery = async (id: string) => (await h.get(`/v1/notifications/${id}`)).json.deliveries[0];

  it('sends a just-committed code once, from the process that committed it, with its attempt persisted under its lease', async () => {
    await start();
    const sent = await h.send(otpBody());
    expect(sent.status).toBe(202);
    await fast!.drain();
    expect(h.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(1);
    const d = await delivery(sent.json.id);
    expect(d.state).toBe('accepted');
    expect(d.attempts).toHaveLength(1);
    // Nothing left for a worker: it claims nothing, and the provider heard of the code once.
    expect((await h.worker.runOnce('sandbox-sms')).claimed).toBe(0);
    expect(h.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(1);
  });

  it('a worker claiming at the same moment never sends the code a second time', async () => {
    await start();
    const worker = h.newWorker({ workerId: 'worker-b', store: h.openPeerStore() });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      // The worker's claim starts as intake's commit returns and the fast path starts its own.
      const [sent] = await Promise.all([h.send(otpBody({ recipient: { id: `u${i}`, phone: `+1415555${String(1000 + i)}` } })), worker.runOnce('sandbox-sms')]);
      ids.push(sent.json.id);
      await Promise.all([fast!.drain(), worker.runOnce('sandbox-sms')]);
    }
    const entries = h.sandbox.ledger.entries({ channel: 'sms' });
    expect(entries).toHaveLength(12);
    expect(new Set(entries.map((e) => e.destination)).size).toBe(12);
    for (const id of ids) {
      const d = await delivery(id);
      expect(d.state).toBe('accepted');
      expect(d.attempts).toHaveLength(1);
    }
  });

  it('a lease that runs out during its call makes the delivery unknown, and its late answer is evidence, as for a worker', async () => {
    await start();
    h.sandbox.faults.set({ mode: 'latency', count: 1, latency_ms: 300 });
    const sent = await h.send(otpBody());
    // Wait (bounded) until the fast path's request has reached the sandbox (its fault is spent).
    await vi.waitFor(() => expect(h.sandbox.faults.list()).toEqual([]), { timeout: 2_000, interval: 5 });
    h.clock.advance(30_001);
    expect((await h.sweeper.runOnce()).leasesRescued).toBe(1);
    expect((await delivery(sent.json.id)).state).toBe('unknown');
    // Never resent blindly: a worker cannot claim it.
    expect((await h.worker.runOnce('sandbox-sms')).claimed).toBe(0);
    await fast!.drain();
    const d = await delivery(sent.json.id);
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].outcome).toBe('lease_expired');
    expect(d.attempts[0].late_outcome).toBe('accepted');
    expect(h.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(1);
  });

  it('without a permit now it claims nothing, and a worker sends the code once permits resume', async () => {
    await start();
    const account = h.config.provider_accounts.find((a) => a.id === 'sandbox-sms')!;
    const resumeAt = await h.store.limiter.throttleAccount({
      providerAccount: 'sandbox-sms',
      now: h.clock.now(),
      retryAfterMs: 5_000,
      limit: { ratePerSecond: account.rate_per_second, burst: account.burst },
      // Every row of the account, the auth lane's own included (as a worker's throttle pauses them).
      rows: lanePermitPlans(account, account.lanes ?? DEFAULT_LANES)[0]!.throttleRows,
    });
    const sent = await h.send(otpBody());
    await fast!.drain();
    expect(h.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(0);
    expect((await delivery(sent.json.id)).state).toBe('ready');
    h.clock.set(resumeAt);
    expect((await h.worker.runOnce('sandbox-sms')).claimed).toBe(1);
    expect(h.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(1);
  });

  it('leaves other purposes to the workers', async () => {
    await start();
    const sent = await h.send({ ...otpBody(), purpose: 'transactional' });
    await fast!.drain();
    expect(h.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(0);
    expect((await delivery(sent.json.id)).state).toBe('ready');
  });
});
