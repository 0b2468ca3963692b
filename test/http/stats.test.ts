/**
 * GET /v1/stats (issue 14, part 6) on both drivers: the caller's tenant, read from the store
 * (so a second API process over the same store answers the same), every state and reason with
 * zeros, due work per account, lane and purpose, the per-account failures, budget and throttle
 * pause, the per-minute series (accepted, confirmed, failed, unknown) and the user reports; a bad
 * window is a problem document; GET /v1/stats/counters is gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { DELIVERY_STATES, TERMINAL_REASONS } from '../../src/domain/index.js';
import { createHarness, DRIVERS, otpBody, type Harness, type HarnessOptions, silentLogger } from '../helpers/harness.js';

const MINUTE = 60_000;
const otpTo = (i: number, over: Record<string, unknown> = {}) => otpBody({ recipient: { id: `user-${i}`, phone: `+1415555${String(2000 + i)}` }, ...over });

describe.each(DRIVERS)('GET /v1/stats on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });
  const start = async (opts: Omit<HarnessOptions, 'driver'> = {}) => {
    h = await createHarness({ driver, ...opts });
  };
  const stats = async (query = '') => {
    const r = await h.get(`/v1/stats${query}`);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return r.json;
  };

  it('answers an empty tenant with every state and reason at zero and 60 one-minute buckets ending with now; needs a key', async () => {
    await start();
    h.clock.advance(30_000); // mid-minute
    const s = await stats();
    expect(s.at).toBe(new Date(h.clock.now()).toISOString());
    expect(s.deliveries).toEqual(Object.fromEntries(DELIVERY_STATES.map((k) => [k, 0])));
    expect(s.terminal).toEqual(Object.fromEntries(TERMINAL_REASONS.map((k) => [k, 0])));
    expect(s).toMatchObject({
      unknown: { count: 0, oldest_age_seconds: 0 },
      due: [],
      accepted_without_progress: [],
      deadline_misses_last_hour: 0,
      review_queue_size: 0,
      reports: { duplicate: 0, not_received: 0 },
    });
    expect(s.provider_accounts.map((a: { id: string }) => a.id).sort()).toEqual(['sandbox-email', 'sandbox-push', 'sandbox-sms']);
    expect(s.provider_accounts[0]).toMatchObject({ failures_last_15m: 0, retry_budget: 'healthy', paused_until: null });
    expect(s.series.window).toBe('hour');
    expect(s.series.bucket_seconds).toBe(60);
    expect(s.series.points).toHaveLength(60);
    const minute = Math.floor(h.clock.now() / MINUTE) * MINUTE;
    expect(s.series.points.at(-1)).toEqual({
      t: new Date(minute).toISOString(),
      accepted: 0,
      confirmed: 0,
      failed: 0,
      unknown: 0,
      failed_by_account: {},
      refused_attempts: 0,
    });
    expect(s.series.points[0].t).toBe(new Date(minute - 59 * MINUTE).toISOString());
    expect((await h.app.inject({ method: 'GET', url: '/v1/stats' })).statusCode).toBe(401);
  });

  it('shows the unknown, the due, the throttled and the accepted, per account and minute, and only for the caller’s tenant', async () => {
    await start();
    // Another tenant's traffic: never in this tenant's answer.
    await h.store.ensureTenant({ id: 'other', name: 'Other' }, h.clock.now());
    const otherKey = generateApiKey();
    await h.store.createApiKey({ id: 'key_other', tenantId: 'other', keyHash: hashApiKey(otherKey), label: 'other', now: h.clock.now() });
    // Both tenants send through the same accounts (docs/tenants.md: an assigned account is its tenants' only).
    for (const a of h.config.provider_accounts) for (const t of [h.tenantId, 'other']) await h.store.tenants.assignAccount(t, a.id, h.clock.now());
    expect((await h.send(otpTo(99), { authorization: `Bearer ${otherKey}` })).status).toBe(202);
    await h.worker.drain();

    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    expect((await h.send(otpTo(1))).status).toBe(202);
    await h.worker.drain();
    h.clock.advance(MINUTE);
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 40 });
    expect((await h.send(otpTo(2))).status).toBe(202);
    await h.worker.drain();
    // Queued behind the pause: due, not sent.
    expect((await h.send(otpTo(3))).status).toBe(202);
    h.clock.advance(5_000);
    await h.worker.drain();
    const s = await stats();
    expect(s.deliveries).toMatchObject({ unknown: 1, retryable: 1, ready: 1, accepted: 0 });
    expect(s.unknown).toEqual({ count: 1, oldest_age_seconds: 65 });
    expect(s.due).toEqual([{ provider_account: 'sandbox-sms', lane: 'auth', purpose: 'otp', count: 1, oldest_age_seconds: 5 }]);
    const sms = s.provider_accounts.find((a: { id: string }) => a.id === 'sandbox-sms');
    expect(sms).toEqual({
      id: 'sandbox-sms',
      // Messages, not attempts: the throttled one waits to retry after a definite refusal (a failed
      // message); the unknown one is no failure, and no refused attempt either.
      failures_last_15m: 1,
      refused_attempts_last_15m: 1,
      retry_budget: 'healthy',
      paused_until: new Date(h.clock.now() - 5_000 + 40_000).toISOString(),
    });
    // The minute the delivery still unknown became so, then the minute of the 429 (a failed message
    // of sandbox-sms, and a refused attempt). The unknown series agrees with the unknown count.
    const [prev, last] = s.series.points.slice(-2);
    expect(prev).toMatchObject({ accepted: 0, unknown: 1, failed: 0, refused_attempts: 0 });
    expect(last).toMatchObject({ accepted: 0, unknown: 0, failed: 1, failed_by_account: { 'sandbox-sms': 1 }, refused_attempts: 1 });
    expect(s.series.points.reduce((n: number, p: { unknown: number }) => n + p.unknown, 0)).toBe(s.unknown.count);
    // The other tenant sees its own acceptance only.
    const theirs = await h.app.inject({ method: 'GET', url: '/v1/stats', headers: { authorization: `Bearer ${otherKey}` } });
    expect(theirs.json().deliveries).toMatchObject({ accepted: 1, unknown: 0, ready: 0, retryable: 0 });
    expect(theirs.json().series.points.reduce((n: number, p: { accepted: number }) => n + p.accepted, 0)).toBe(1);
  });

  it('counts a confirmation when the downstream status first reaches sent, in its bucket, and a day window of 96 quarter hours', async () => {
    await start({ callbacks: true });
    const sent = await h.send({
      recipient: { id: 'user-mail', email: 'mail@example.com' },
      purpose: 'transactional',
      channels: ['email'],
      content: { subject: 'Receipt', text: 'Receipt' },
      ttl_seconds: 3600,
    });
    expect(sent.status).toBe(202);
    await h.worker.drain();
    await h.sandbox.idle();
    await h.evidence.runOnce();
    const s = await stats();
    const last = s.series.points.at(-1);
    // Sent and delivered both arrived: one delivery confirmed once.
    expect(last).toMatchObject({ accepted: 1, confirmed: 1, failed: 0, unknown: 0 });
    const day = await stats('?window=day');
    expect(day.series).toMatchObject({ window: 'day', bucket_seconds: 900 });
    expect(day.series.points).toHaveLength(96);
    expect(day.series.points.at(-1)).toMatchObject({ accepted: 1, confirmed: 1 });
  });

  it('refuses an unknown window with a problem document, and GET /v1/stats/counters no longer exists', async () => {
    await start();
    const r = await h.get('/v1/stats?window=week');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((await h.get('/v1/stats/counters')).status).toBe(404);
  });

  it('reads the store: a second API process over the same store answers the same', async () => {
    await start();
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
    expect((await h.send(otpTo(5))).status).toBe(202);
    await h.worker.drain();
    const a = await stats();
    expect(a.terminal.rejected).toBe(1);
    expect(a.review_queue_size).toBe(1);
    const peer = await createHarnessPeerApp(h);
    const b = await peer.inject({ method: 'GET', url: '/v1/stats', headers: { authorization: `Bearer ${h.apiKey}` } });
    expect(b.json()).toEqual(a);
    await peer.close();
  });
});

/** A second API app over another connection to the harness's store (as another process), on the same clock. */
async function createHarnessPeerApp(h: Harness) {
  const { buildApp } = await import('../../src/http/app.js');
  const { IntakeService } = await import('../../src/intake/intake-service.js');
  const { ReplayService } = await import('../../src/delivery/replay-service.js');
  const store = h.openPeerStore();
  return buildApp({
    store,
    intake: new IntakeService({ store, accounts: h.config.provider_accounts, clock: h.clock, logger: silentLogger }),
    replay: new ReplayService({ store, clock: h.clock }),
    accounts: h.config.provider_accounts,
    clock: h.clock,
    logger: false,
  });
}
