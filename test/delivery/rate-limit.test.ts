/**
 * The shared rate limiter against an independent referee: the sandbox, limited to R sends per
 * second on SMS (it answers 429 above that), counts what it receives. Two and four workers,
 * each on its own store connection as separate processes would be, must together stay at or
 * under R in every one-second window, sliding, and never draw a 429. And a code submitted
 * while a campaign saturates the account must not wait behind the campaign.
 *
 * These run on the wall clock (the referee counts real seconds); they check counts, not speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { quotaSafeRate } from '../../src/domain/index.js';
import type { LedgerEntry } from '../../src/sandbox/ledger.js';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const QUOTA = 200;
const BURST = 5;
// Sends granted at one instant reach the sandbox up to ~200 ms apart on a loaded 2-core
// machine (event loop, pool, socket), so the account is configured for that spread.
const RATE = quotaSafeRate({ quota: QUOTA, burst: BURST, skewMs: 200 });

/** The most ledger entries received within any sliding window of `ms`. */
function maxInWindow(entries: LedgerEntry[], ms: number): number {
  const times = entries.map((e) => Date.parse(e.received_at)).sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= ms) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

const sms = (i: number, purpose: string) => ({
  recipient: { id: `r-${i}`, phone: `+1415555${String(1000 + i).padStart(4, '0')}` },
  purpose,
  channels: ['sms'],
  content: { text: `message ${i}` },
  ttl_seconds: 600,
});

describe.each(DRIVERS)('shared rate limiter on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  const start = async () => {
    h = await createHarness({
      driver,
      wallClock: true,
      account: (a) => (a.channel === 'sms' ? { ...a, rate_per_second: RATE, burst: BURST } : a),
    });
    h.sandbox.quota.set({ sms: QUOTA });
    // The wall clock can be in the tenant's night (UTC): the campaign's marketing messages must go
    // at once here, so quiet hours and the frequency caps are off for this tenant.
    await h.store.scheduling.putPolicy(h.tenantId, { quiet_hours: { marketing: null }, frequency_caps: { marketing: null } }, h.clock.now());
  };

  it('shows each account’s lanes with their guaranteed and maximum rates', async () => {
    await start();
    const r = await h.get('/v1/provider-accounts');
    const account = r.json.items.find((a: { id: string }) => a.id === 'sandbox-sms');
    expect(account.rate_per_second).toBe(RATE);
    expect(account.lanes).toEqual([
      { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: 0.2, guaranteed_rate: RATE * 0.2, max_rate: RATE },
      { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0, guaranteed_rate: 0, max_rate: RATE * 0.8 },
    ]);
  });

  for (const workers of [2, 4]) {
    it(`${workers} workers on separate connections never exceed the account's rate in any one-second window`, async () => {
      await start();
      const N = 700;
      for (let i = 0; i < N; i++) expect((await h.send(sms(i, i % 5 === 0 ? 'otp' : 'transactional'))).status).toBe(202);
      const pool = Array.from({ length: workers }, (_, i) => h.newWorker({ workerId: `w${i}`, store: h.openPeerStore(), batchSize: 32 }));
      for (const w of pool) w.start();
      await expect.poll(() => h.sandbox.ledger.entries({ channel: 'sms' }).length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(N);
      await Promise.all(pool.map((w) => w.stop()));
      const entries = h.sandbox.ledger.entries({ channel: 'sms' });
      expect(entries).toHaveLength(N);
      expect(maxInWindow(entries, 1000)).toBeLessThanOrEqual(QUOTA);
      expect(h.sandbox.ledger.maxPerSecond('sms')).toBeLessThanOrEqual(QUOTA);
      // No 429 was ever drawn: exactly one provider call per delivery, all accepted.
      expect(h.counters.total('api_attempts')).toBe(N);
      expect((await h.store.countByState()).accepted).toBe(N);
      // Non-vacuity: the limiter was the bottleneck (the sends took at least N / RATE seconds' worth of windows).
      expect(maxInWindow(entries, 1000)).toBeGreaterThan(QUOTA / 2);
    }, 60_000);
  }

  it('a code submitted during a saturated campaign jumps the backlog: it is sent within its lane budget, not after the campaign', async () => {
    await start();
    const N = 900; // ~5.6 s of campaign at the bulk lane's 80% of the rate
    const created = await h.post('/v1/campaigns', {
      channel: 'sms',
      purpose: 'marketing',
      content: { text: 'Winter sale' },
      deadline_at: new Date(Date.now() + 3_600_000).toISOString(),
      audience: { recipients: Array.from({ length: N }, (_, i) => ({ id: `c-${i}`, phone: `+1415556${String(i).padStart(4, '0')}` })) },
      start: 'if_feasible',
    });
    expect(created.status).toBe(201);
    expect(created.json.status).toBe('running');
    await h.campaigns.runOnce(); // fan-out: the whole audience is queued at once (it is < 30 s of the lane's rate)
    const pool = [
      h.newWorker({ workerId: 'w0', store: h.openPeerStore(), batchSize: 32 }),
      h.newWorker({ workerId: 'w1', store: h.openPeerStore(), batchSize: 32 }),
    ];
    for (const w of pool) w.start();
    await expect.poll(() => h.sandbox.ledger.entries({ channel: 'sms' }).length, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(150);
    const code = await h.send(sms(5000, 'otp'));
    for (const w of pool) w.wake.notify('sandbox-sms');
    const key = (await h.get(`/v1/notifications/${code.json.id}`)).json.deliveries[0].idempotency_key;
    await expect.poll(() => h.sandbox.ledger.countByKey(key), { timeout: 20_000, interval: 50 }).toBe(1);
    const sentBefore = h.sandbox.ledger.entries({ channel: 'sms' }).length;
    await expect.poll(() => h.sandbox.ledger.entries({ channel: 'sms' }).length, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(N + 1);
    await Promise.all(pool.map((w) => w.stop()));
    // The code went out while most of the campaign was still queued behind it.
    expect(sentBefore).toBeLessThan(N / 2);
    expect(maxInWindow(h.sandbox.ledger.entries({ channel: 'sms' }), 1000)).toBeLessThanOrEqual(QUOTA);
    await h.campaigns.runOnce();
    expect((await h.get(`/v1/campaigns/${created.json.id}`)).json.progress).toMatchObject({ accepted: N });
  }, 60_000);
});
