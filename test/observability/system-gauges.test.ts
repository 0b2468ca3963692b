/**
 * GET /metrics (issue 14) driven by sandbox faults, on both drivers: each state-of-the-system
 * gauge moves as the system does (an ambiguous answer raises the unknown count and its age, an
 * expired code counts a deadline miss for an hour, an accepted delivery without a callback shows
 * as accepted-without-progress once the threshold passes, a 429 shows the pause remaining, a
 * failing provider degrades the retry budget), and the process series count refusals, throttles,
 * callbacks and downstream signals and observe the two histograms. Every exposition is read by
 * the check that stands in for `promtool check metrics` everywhere (exposition-check.ts: two
 * parsers and promlint's rules), and by promtool itself where it is installed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/signing/standard-webhooks.js';
import { createHarness, DRIVERS, otpBody, type Harness, type HarnessOptions } from '../helpers/harness.js';
import { findPromtool } from '../helpers/promtool.js';
import type { Family } from './exposition.js';
import { expectExpositionAccepted } from './exposition-check.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SMS = { provider_account: 'sandbox-sms' };
const promtool = findPromtool("a second opinion on every scrape (`promtool check metrics`; the npm parser and promlint's rules check them all the same)");

async function scrape(h: Harness): Promise<Map<string, Family>> {
  const r = await h.app.inject({ method: 'GET', url: '/metrics' });
  expect(r.statusCode, r.body).toBe(200);
  return expectExpositionAccepted(r.body, promtool);
}

/** The value of one sample (`sample` defaults to the family's name); throws when absent (absent is not zero). */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}, sample = name): number {
  const f = families.get(name);
  if (!f) throw new Error(`no family ${name}`);
  const key = JSON.stringify(Object.entries(labels).sort());
  const s = f.samples.find((x) => x.name === sample && JSON.stringify(Object.entries(x.labels).sort()) === key);
  if (!s) throw new Error(`no series ${sample}${key}`);
  return s.value;
}

const otpTo = (i: number, over: Record<string, unknown> = {}) => otpBody({ recipient: { id: `user-${i}`, phone: `+1415555${String(1000 + i)}` }, ...over });

describe.each(DRIVERS)('state gauges under sandbox faults on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });
  const start = async (opts: Omit<HarnessOptions, 'driver'> = {}) => {
    // cacheMs 0: every scrape reads the store; a one-minute threshold for accepted-without-progress.
    h = await createHarness({ driver, metrics: { cacheMs: 0, acceptedProgressAfterMs: MINUTE }, ...opts });
  };

  it('an ambiguous answer raises the unknown count and the oldest-unknown age, and is no failed message; a refusal is one for 15 minutes', async () => {
    await start();
    let m = await scrape(h);
    expect(value(m, 'herald_deliveries_unknown')).toBe(0);
    expect(value(m, 'herald_provider_failures_last_15m', SMS)).toBe(0);
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    expect((await h.send(otpTo(1))).status).toBe(202);
    await h.worker.drain();
    h.clock.advance(42_000);
    m = await scrape(h);
    expect(value(m, 'herald_deliveries_unknown')).toBe(1);
    expect(value(m, 'herald_unknown_oldest_age_seconds')).toBe(42);
    // Unknown is not failed (docs/operations.md, failed messages), and no attempt was refused.
    expect(value(m, 'herald_provider_failures_last_15m', SMS)).toBe(0);
    expect(value(m, 'herald_provider_refused_attempts_last_15m', SMS)).toBe(0);
    // Not a definite refusal: the ambiguity has its own counter.
    expect(value(m, 'herald_ambiguous_submissions_total', { channel: 'sms', purpose: 'otp' })).toBe(1);
    expect(m.get('herald_definite_refusals_total')!.samples).toEqual([]);
    // A permanent refusal: one failed message and one refused attempt, for 15 minutes.
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1 });
    expect((await h.send(otpTo(4))).status).toBe(202);
    await h.worker.drain();
    h.clock.advance(6_000);
    m = await scrape(h);
    expect(value(m, 'herald_provider_failures_last_15m', SMS)).toBe(1);
    expect(value(m, 'herald_provider_refused_attempts_last_15m', SMS)).toBe(1);
    expect(value(m, 'herald_provider_failures_last_15m', { provider_account: 'sandbox-email' })).toBe(0);
    h.clock.advance(15 * MINUTE);
    m = await scrape(h);
    expect(value(m, 'herald_provider_failures_last_15m', SMS)).toBe(0);
    expect(value(m, 'herald_provider_refused_attempts_last_15m', SMS)).toBe(0);
    expect(value(m, 'herald_deliveries_unknown')).toBe(1);
  });

  it('an expired code counts a deadline miss of its channel and purpose for an hour', async () => {
    await start();
    expect((await h.send(otpTo(2, { ttl_seconds: 10 }))).status).toBe(202);
    h.clock.advance(10_000);
    expect((await h.sweeper.runOnce()).expired).toBe(1);
    let m = await scrape(h);
    expect(value(m, 'herald_deadline_misses_last_hour', { channel: 'sms', purpose: 'otp' })).toBe(1);
    expect(value(m, 'herald_deadline_misses_last_hour', { channel: 'email', purpose: 'otp' })).toBe(0);
    h.clock.advance(HOUR);
    expect(value(await scrape(h), 'herald_deadline_misses_last_hour', { channel: 'sms', purpose: 'otp' })).toBe(1);
    h.clock.advance(1);
    m = await scrape(h);
    expect(value(m, 'herald_deadline_misses_last_hour', { channel: 'sms', purpose: 'otp' })).toBe(0);
  });

  it('an accepted delivery without a callback shows as accepted without progress once the threshold passes; the histograms observe it', async () => {
    await start();
    expect((await h.send(otpTo(3))).status).toBe(202);
    h.clock.advance(2_000); // queued for 2 s before the worker takes it
    await h.worker.drain();
    let m = await scrape(h);
    expect(value(m, 'herald_accepted_without_progress', { provider_account: 'sandbox-sms', channel: 'sms' })).toBe(0);
    // Intake to acceptance: 2 s on the Herald clock, in the (1, 2.5] bucket.
    const otp = { channel: 'sms', purpose: 'otp' };
    expect(value(m, 'herald_intake_to_acceptance_seconds', otp, 'herald_intake_to_acceptance_seconds_count')).toBe(1);
    expect(value(m, 'herald_intake_to_acceptance_seconds', otp, 'herald_intake_to_acceptance_seconds_sum')).toBe(2);
    expect(value(m, 'herald_intake_to_acceptance_seconds', { ...otp, le: '1' }, 'herald_intake_to_acceptance_seconds_bucket')).toBe(0);
    expect(value(m, 'herald_intake_to_acceptance_seconds', { ...otp, le: '2.5' }, 'herald_intake_to_acceptance_seconds_bucket')).toBe(1);
    const call = { ...otp, provider_account: 'sandbox-sms' };
    expect(value(m, 'herald_provider_call_duration_seconds', call, 'herald_provider_call_duration_seconds_count')).toBe(1);
    expect(value(m, 'herald_provider_call_duration_seconds', call, 'herald_provider_call_duration_seconds_sum')).toBeGreaterThan(0);
    h.clock.advance(MINUTE - 1);
    expect(value(await scrape(h), 'herald_accepted_without_progress', { provider_account: 'sandbox-sms', channel: 'sms' })).toBe(0);
    h.clock.advance(1);
    m = await scrape(h);
    expect(value(m, 'herald_accepted_without_progress', { provider_account: 'sandbox-sms', channel: 'sms' })).toBe(1);
    expect(value(m, 'herald_accepted_without_progress', { provider_account: 'sandbox-email', channel: 'email' })).toBe(0);
  });

  it('a 429 shows the pause remaining until it ends, and counts a throttled refusal and an account throttle', async () => {
    await start();
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 30 });
    expect((await h.send(otpTo(4))).status).toBe(202);
    await h.worker.drain();
    const m = await scrape(h);
    expect(value(m, 'herald_provider_throttle_pause_remaining_seconds', SMS)).toBe(30);
    expect(value(m, 'herald_provider_throttle_pause_remaining_seconds', { provider_account: 'sandbox-email' })).toBe(0);
    expect(value(m, 'herald_definite_refusals_total', { channel: 'sms', purpose: 'otp', class: 'throttled' })).toBe(1);
    expect(value(m, 'herald_throttles_total', { provider_account: 'sandbox-sms', scope: 'account' })).toBe(1);
    expect(value(m, 'herald_provider_failures_last_15m', SMS)).toBe(1);
    h.clock.advance(12_500);
    expect(value(await scrape(h), 'herald_provider_throttle_pause_remaining_seconds', SMS)).toBe(17.5);
    h.clock.advance(17_500);
    expect(value(await scrape(h), 'herald_provider_throttle_pause_remaining_seconds', SMS)).toBe(0);
  });

  it('a provider failing broadly degrades its retry budget until the window passes; each answer is a retryable refusal', async () => {
    await start();
    h.sandbox.faults.set({ mode: 'server_error', count: 20 });
    for (let i = 0; i < 20; i++) expect((await h.send(otpTo(10 + i))).status).toBe(202);
    await h.worker.drain();
    let m = await scrape(h);
    expect(value(m, 'herald_provider_retry_budget_degraded', SMS)).toBe(1);
    expect(value(m, 'herald_provider_retry_budget_degraded', { provider_account: 'sandbox-email' })).toBe(0);
    expect(value(m, 'herald_definite_refusals_total', { channel: 'sms', purpose: 'otp', class: 'retryable' })).toBe(20);
    expect(value(m, 'herald_provider_failures_last_15m', SMS)).toBe(20);
    h.clock.advance(70_000);
    m = await scrape(h);
    expect(value(m, 'herald_provider_retry_budget_degraded', SMS)).toBe(0);
  });

  it('counts callbacks received, duplicated and refused for their signature, and the downstream signals merged', async () => {
    await start({ callbacks: true });
    const sent = await h.send({
      recipient: { id: 'user-cb', email: 'cb@example.com' },
      purpose: 'transactional',
      channels: ['email'],
      content: { subject: 'Receipt', text: 'Receipt' },
      ttl_seconds: 3600,
    });
    await h.worker.drain();
    await h.sandbox.idle();
    await h.evidence.runOnce();
    const d = (await h.get(`/v1/notifications/${sent.json.id}`)).json.deliveries[0];
    expect(d.downstream_status).toBe('delivered');
    // The same event again (a provider retry), and one with a forged signature.
    const secret = h.config.provider_accounts.find((a) => a.id === 'sandbox-email')!.callback_secrets![0]!;
    const payload = JSON.stringify({
      type: 'message.delivered',
      timestamp: new Date(h.clock.now()).toISOString(),
      data: { event_id: 'evt_again', provider_message_id: d.provider_message_id, channel: 'email', status: 'delivered' },
    });
    const post = (headers: Record<string, string>) =>
      h.app.inject({ method: 'POST', url: '/v1/callbacks/sandbox-email', headers: { 'content-type': 'application/json', ...headers }, payload });
    expect((await post(signWebhook([secret], 'evt_again', h.clock.now(), payload))).statusCode).toBe(200);
    expect((await post(signWebhook([secret], 'evt_again', h.clock.now(), payload))).json()).toEqual({ received: 0, duplicates: 1 });
    expect((await post(signWebhook(['whsec_' + Buffer.alloc(24, 7).toString('base64')], 'evt_forged', h.clock.now(), payload))).statusCode).toBe(401);
    // A signed body the scheme cannot read.
    const junk = '{"type":"message.sent"}';
    const malformed = await h.app.inject({
      method: 'POST',
      url: '/v1/callbacks/sandbox-email',
      headers: { 'content-type': 'application/json', ...signWebhook([secret], 'evt_junk', h.clock.now(), junk) },
      payload: junk,
    });
    expect(malformed.statusCode).toBe(400);
    // An account that receives no callbacks here: 404, and no series for a made-up id.
    expect(
      (await h.app.inject({ method: 'POST', url: '/v1/callbacks/made-up', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode,
    ).toBe(404);
    await h.evidence.runOnce();
    const m = await scrape(h);
    const account = { provider_account: 'sandbox-email' };
    expect(value(m, 'herald_callbacks_refused_total', { ...account, reason: 'malformed' })).toBe(1);
    expect(m.get('herald_callbacks_refused_total')!.samples.every((s) => s.labels.provider_account === 'sandbox-email')).toBe(true);
    // The sandbox's own two (sent, delivered), then evt_again twice.
    expect(value(m, 'herald_callbacks_received_total', account)).toBe(4);
    expect(value(m, 'herald_callbacks_duplicated_total', account)).toBe(1);
    expect(value(m, 'herald_callbacks_refused_total', { ...account, reason: 'signature' })).toBe(1);
    expect(value(m, 'herald_downstream_signals_total', { channel: 'email', status: 'sent' })).toBe(1);
    expect(value(m, 'herald_downstream_signals_total', { channel: 'email', status: 'delivered' })).toBe(2);
    // Confirmed: the downstream status reached delivered, so nothing waits without progress.
    h.clock.advance(2 * MINUTE);
    expect(value(await scrape(h), 'herald_accepted_without_progress', { provider_account: 'sandbox-email', channel: 'email' })).toBe(0);
  });
});
