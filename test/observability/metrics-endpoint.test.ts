/**
 * GET /metrics (issue 14, part 1) on both drivers through the harness: the exposition parses
 * strictly and names every series with its HELP and TYPE; the store gauges move when the
 * sandbox's faults and the manual clock move the system; the process counters are exported per
 * channel and purpose; no label carries personal data; a configured token is required.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNELS, DELIVERY_STATES, DOWNSTREAM_STATUSES, PURPOSES, TERMINAL_REASONS } from '../../src/domain/index.js';
import { CALLBACK_REFUSAL_REASONS, COUNTER_NAMES, LATENCY_BUCKETS_SECONDS, REFUSAL_CLASSES, THROTTLE_SCOPES } from '../../src/metrics/counters.js';
import { CAMPAIGN_DELIVERY_STATUSES } from '../../src/store/observability-store.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';
import { parseExposition, type Family } from './exposition.js';

const GAUGES = [
  'herald_deliveries',
  'herald_deliveries_terminal',
  'herald_deliveries_unknown',
  'herald_unknown_oldest_age_seconds',
  'herald_due_deliveries',
  'herald_due_oldest_age_seconds',
  'herald_review_queue_size',
];
const COUNTERS = COUNTER_NAMES.map((n) => `herald_${n}_total`);
const OTP_SMS = { provider_account: 'sandbox-sms', lane: 'auth', purpose: 'otp' };
/** Every label name a series may carry, each from a closed set. */
const CLOSED_LABELS: Record<string, readonly string[]> = {
  state: DELIVERY_STATES,
  reason: [...TERMINAL_REASONS, ...CALLBACK_REFUSAL_REASONS],
  channel: CHANNELS,
  purpose: PURPOSES,
  provider_account: ['sandbox-email', 'sandbox-sms', 'sandbox-push'],
  lane: ['auth', 'bulk'],
  class: REFUSAL_CLASSES,
  scope: THROTTLE_SCOPES,
  status: [...DOWNSTREAM_STATUSES, 'online', 'offline', ...CAMPAIGN_DELIVERY_STATUSES],
  le: [...LATENCY_BUCKETS_SECONDS.map(String), '+Inf'],
};

async function scrape(h: Harness, headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const r = await h.app.inject({ method: 'GET', url: '/metrics', headers });
  expect(r.statusCode, r.body).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(r.body);
}

/** The value of one series; throws when it is absent (an absent series is not a zero). */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const f = families.get(name);
  if (!f) throw new Error(`no family ${name}`);
  const s = f.samples.find((x) => x.name === name && JSON.stringify(Object.entries(x.labels).sort()) === JSON.stringify(Object.entries(labels).sort()));
  if (!s) throw new Error(`no series ${name}${JSON.stringify(labels)}`);
  return s.value;
}

describe.each(DRIVERS)('GET /metrics on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    // cacheMs 0: each scrape reads the store (the cache has its own test below).
    h = await createHarness({ driver, metrics: { cacheMs: 0 } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('parses strictly, and names every series with its HELP and TYPE, without an API key', async () => {
    const families = await scrape(h);
    for (const name of GAUGES) {
      expect(families.get(name)?.type, name).toBe('gauge');
      expect(families.get(name)?.help, name).toMatch(/\w{3,}/);
    }
    for (const name of COUNTERS) {
      expect(families.get(name)?.type, name).toBe('counter');
      expect(families.get(name)?.help, name).toMatch(/\w{3,}/);
    }
    // Every state and reason reports, zero included; every configured account reports its due work.
    for (const state of DELIVERY_STATES) expect(value(families, 'herald_deliveries', { state })).toBe(0);
    for (const reason of TERMINAL_REASONS) expect(value(families, 'herald_deliveries_terminal', { reason })).toBe(0);
    // Default lanes: auth carries otp and alert, bulk the other purposes.
    for (const provider_account of CLOSED_LABELS.provider_account!) {
      for (const purpose of PURPOSES) {
        const lane = purpose === 'otp' || purpose === 'alert' ? 'auth' : 'bulk';
        expect(value(families, 'herald_due_deliveries', { provider_account, lane, purpose })).toBe(0);
        expect(value(families, 'herald_due_oldest_age_seconds', { provider_account, lane, purpose })).toBe(0);
      }
    }
    expect(value(families, 'herald_deliveries_unknown')).toBe(0);
    expect(value(families, 'herald_unknown_oldest_age_seconds')).toBe(0);
    expect(value(families, 'herald_review_queue_size')).toBe(0);
  });

  it('an unknown raises herald_deliveries_unknown, its age grows with the clock, and it joins the review queue after 15 minutes', async () => {
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    expect((await h.send(otpBody())).status).toBe(202);
    await h.worker.drain();
    let m = await scrape(h);
    expect(value(m, 'herald_deliveries', { state: 'unknown' })).toBe(1);
    expect(value(m, 'herald_deliveries_unknown')).toBe(1);
    expect(value(m, 'herald_unknown_oldest_age_seconds')).toBe(0);
    expect(value(m, 'herald_ambiguous_submissions_total', { channel: 'sms', purpose: 'otp' })).toBe(1);
    expect(value(m, 'herald_api_attempts_total', { channel: 'sms', purpose: 'otp' })).toBe(1);
    h.clock.advance(90_000);
    m = await scrape(h);
    expect(value(m, 'herald_unknown_oldest_age_seconds')).toBe(90);
    expect(value(m, 'herald_review_queue_size')).toBe(0);
    h.clock.advance(15 * 60_000);
    m = await scrape(h);
    expect(value(m, 'herald_unknown_oldest_age_seconds')).toBe(990);
    expect(value(m, 'herald_review_queue_size')).toBe(1);
  });

  it('an expired code shows in deliveries by terminal reason expired, and in the expired-challenges counter', async () => {
    expect((await h.send(otpBody({ ttl_seconds: 10 }))).status).toBe(202);
    h.clock.advance(10_000);
    expect((await h.sweeper.runOnce()).expired).toBe(1);
    const m = await scrape(h);
    expect(value(m, 'herald_deliveries', { state: 'terminal' })).toBe(1);
    expect(value(m, 'herald_deliveries_terminal', { reason: 'expired' })).toBe(1);
    expect(value(m, 'herald_expired_challenges_total', { channel: 'sms', purpose: 'otp' })).toBe(1);
    // No longer useful, so no longer due.
    expect(value(m, 'herald_due_deliveries', OTP_SMS)).toBe(0);
  });

  it('a due but unsent message raises the oldest-due age of its account only', async () => {
    expect((await h.send(otpBody())).status).toBe(202);
    expect((await h.send(otpBody({ recipient: { id: 'user-2', phone: '+14155550124' } }))).status).toBe(202);
    h.clock.advance(30_000);
    const m = await scrape(h);
    expect(value(m, 'herald_due_deliveries', OTP_SMS)).toBe(2);
    expect(value(m, 'herald_due_oldest_age_seconds', OTP_SMS)).toBe(30);
    expect(value(m, 'herald_due_oldest_age_seconds', { provider_account: 'sandbox-email', lane: 'auth', purpose: 'otp' })).toBe(0);
    expect(value(m, 'herald_due_oldest_age_seconds', { provider_account: 'sandbox-sms', lane: 'bulk', purpose: 'marketing' })).toBe(0);
    // Sent: nothing waits any more.
    await h.worker.drain();
    const after = await scrape(h);
    expect(value(after, 'herald_due_deliveries', OTP_SMS)).toBe(0);
    expect(value(after, 'herald_due_oldest_age_seconds', OTP_SMS)).toBe(0);
    expect(value(after, 'herald_deliveries', { state: 'accepted' })).toBe(2);
  });

  it('no label carries personal data: every label value is from a closed set, and no address appears', async () => {
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    await h.send(otpBody({ purpose: 'transactional', channels: ['email', 'sms'] }));
    await h.worker.drain();
    const r = await h.app.inject({ method: 'GET', url: '/metrics' });
    for (const secret of ['user-1', '+14155550123', '4155550123', 'ada@example.com', 'Your code', h.tenantId]) expect(r.body).not.toContain(secret);
    for (const f of parseExposition(r.body).values()) {
      for (const s of f.samples) {
        for (const [label, v] of Object.entries(s.labels)) {
          expect(CLOSED_LABELS[label], `${f.name} label ${label}`).toBeDefined();
          expect(CLOSED_LABELS[label], `${f.name}{${label}="${v}"}`).toContain(v);
        }
      }
    }
  });
});

describe('GET /metrics: the store read is cached', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ metrics: {} });
  });
  afterEach(async () => {
    await h.close();
  });

  it('for 5 s by default: a scrape within serves the previous read, the next one reads again; counters are always live', async () => {
    expect(value(await scrape(h), 'herald_deliveries', { state: 'ready' })).toBe(0);
    await h.send(otpBody());
    await h.worker.drain();
    h.clock.advance(4_999);
    let m = await scrape(h);
    expect(value(m, 'herald_deliveries', { state: 'accepted' })).toBe(0);
    expect(value(m, 'herald_accepted_submissions_total', { channel: 'sms', purpose: 'otp' })).toBe(1);
    h.clock.advance(1);
    m = await scrape(h);
    expect(value(m, 'herald_deliveries', { state: 'accepted' })).toBe(1);
  });
});

describe('GET /metrics with a token configured', () => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ metrics: { token: TOKEN } });
  });
  afterEach(async () => {
    await h.close();
  });

  it('requires it: a 401 problem document without it, with a wrong one, or with an API key instead', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789abcdef' }, { authorization: `Bearer ${h.apiKey}` }, { authorization: TOKEN }]) {
      const r = await h.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(r.statusCode, JSON.stringify(headers)).toBe(401);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(r.headers['www-authenticate']).toBe('Bearer');
      expect(r.json()).toMatchObject({ status: 401, code: 'unauthorized', instance: '/metrics' });
      expect(r.body).not.toContain('herald_');
    }
    const families = await scrape(h, { authorization: `Bearer ${TOKEN}` });
    expect(families.get('herald_deliveries')?.type).toBe('gauge');
  });
});
