/**
 * The alert rules against what Herald really exports, on both store drivers: each scenario
 * drives the system through the harness (sandbox faults, the manual clock, the worker, the
 * sweeper, a simulated gateway phone), scrapes GET /metrics, turns the scrape (or a history of
 * two scrapes, for the growth rules) into promtool input series reported by two processes,
 * `api-1` and `worker-1`, as two scraped processes would, and evaluates every rule's expression
 * with `promtool test rules` (promql_expr_test). The rules the scenario is about must return
 * exactly the expected series and values, every other rule nothing. This holds all 14 rules to
 * the real names, labels, units and lane mapping of the gauges, which the hand-written series of
 * herald-alerts.test.yml cannot; the `for:` durations and annotations are tested there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';
import { gatewayHarness, MINUTE, phoneFor } from '../devices/gateway-harness.js';
import { findPromtool } from '../helpers/promtool.js';
import { inputSeries, rules, runRuleTest, scrape, selector, type Scrape } from './rule-test-input.js';

const tool = findPromtool('`promtool test rules` evaluating every alert rule on what Herald exports');

/** What one rule's expression must return: output labels (job included) and the value. */
type Expected = Record<string, { labels: Record<string, string>; value: number }[]>;

/** A scrape that holds for `minutes` one-minute samples. */
interface Phase {
  scrape: Scrape;
  minutes: number;
}

/**
 * Has promtool evaluate every rule's expression at `evalMinutes` over the history `phases`
 * (each scrape repeated for its minutes, in order; a series absent from a scrape is missing
 * there), as reported by two processes; returns promtool's verdict.
 */
function evaluate(phases: Phase[], evalMinutes: number, expected: Expected): { status: number | null; output: string } {
  const minutes = phases.flatMap((p) => Array<Scrape>(p.minutes).fill(p.scrape));
  const promql_expr_test = rules.map((rule) => ({
    expr: rule.expr,
    eval_time: `${evalMinutes}m`,
    exp_samples: (expected[rule.alert] ?? []).map((e) => ({ labels: selector('', { ...e.labels, job: 'herald' }), value: e.value })),
  }));
  return runRuleTest(tool, { input_series: inputSeries(minutes), promql_expr_test });
}

describe.skipIf(!tool.available).each(DRIVERS)('the alert rules on what Herald exports (%s)', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver, metrics: { cacheMs: 0 } });
  });
  afterEach(async () => {
    await h.close();
  });

  /** The rules on a history of scrapes: exactly `expected` from the rules it names, nothing from the others. */
  function expectHistory(phases: Phase[], evalMinutes: number, expected: Expected): void {
    for (const name of Object.keys(expected)) expect(rules.map((r) => r.alert)).toContain(name);
    const verdict = evaluate(phases, evalMinutes, expected);
    expect(verdict.status, verdict.output).toBe(0);
    expect(verdict.output).toContain('SUCCESS');
  }

  /** The rules on the current scrape, held for half an hour, one minute in. */
  async function expectRules(expected: Expected): Promise<void> {
    expectHistory([{ scrape: await scrape(h), minutes: 30 }], 1, expected);
  }

  it('a system that has done nothing: no rule returns anything', async () => {
    await expectRules({});
  });

  it('an ambiguous submission left unsettled for 16 minutes: HeraldUnknownTooOld, at its age in seconds', async () => {
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    expect((await h.send(otpBody())).status).toBe(202);
    await h.worker.drain();
    h.clock.advance(16 * 60_000);
    await expectRules({ HeraldUnknownTooOld: [{ labels: {}, value: 960 }] });
  });

  it('a code nobody sends for 90 s: HeraldDueTooOldOtp, on its account and the auth lane', async () => {
    expect((await h.send(otpBody())).status).toBe(202);
    h.clock.advance(90_000);
    await expectRules({ HeraldDueTooOldOtp: [{ labels: { provider_account: 'sandbox-sms', lane: 'auth', purpose: 'otp' }, value: 90 }] });
  });

  it('one message of each other purpose nobody sends for 61 minutes: the HeraldDueTooOld rule of each, on its lane', async () => {
    for (const purpose of ['alert', 'conversational', 'transactional', 'marketing'])
      expect((await h.send(otpBody({ purpose, recipient: { id: `user-${purpose}`, phone: '+14155550123' }, ttl_seconds: 7200 }))).status).toBe(202);
    h.clock.advance(61 * MINUTE);
    const due = (lane: string, purpose: string) => [{ labels: { provider_account: 'sandbox-sms', lane, purpose }, value: 3660 }];
    await expectRules({
      HeraldDueTooOldAlert: due('auth', 'alert'),
      HeraldDueTooOldConversational: due('bulk', 'conversational'),
      HeraldDueTooOldTransactional: due('bulk', 'transactional'),
      HeraldDueTooOldMarketing: due('bulk', 'marketing'),
    });
  });

  it('a code that expires unsent: HeraldDeadlineMisses for its channel and purpose', async () => {
    expect((await h.send(otpBody({ ttl_seconds: 10 }))).status).toBe(202);
    h.clock.advance(10_000);
    expect((await h.sweeper.runOnce()).expired).toBe(1);
    await expectRules({ HeraldDeadlineMisses: [{ labels: { channel: 'sms', purpose: 'otp' }, value: 1 }] });
  });

  it('an e-mail accepted with no callback for 31 minutes: HeraldAcceptedWithoutProgress for its account and channel', async () => {
    expect((await h.send(otpBody({ channels: ['email'] }))).status).toBe(202);
    await h.worker.drain();
    h.clock.advance(31 * 60_000);
    await expectRules({ HeraldAcceptedWithoutProgress: [{ labels: { provider_account: 'sandbox-email', channel: 'email' }, value: 1 }] });
  });

  it('20 codes the provider refuses with a server error: HeraldProviderFailures and HeraldRetryBudgetDegraded for that account only', async () => {
    h.sandbox.faults.set({ mode: 'server_error', count: 20 });
    for (let i = 0; i < 20; i++) expect((await h.send(otpBody({ recipient: { id: `user-${i}`, phone: '+14155550123' } }))).status).toBe(202);
    await h.worker.drain();
    await expectRules({
      HeraldProviderFailures: [{ labels: { provider_account: 'sandbox-sms' }, value: 20 }],
      HeraldRetryBudgetDegraded: [{ labels: { provider_account: 'sandbox-sms' }, value: 1 }],
    });
  });

  it('a 429 with Retry-After 20 minutes, 11 minutes on: HeraldThrottlePausedLong, with the seconds left', async () => {
    h.sandbox.faults.set({ mode: 'rate_limit', count: 1, retry_after_seconds: 1200 });
    expect((await h.send(otpBody({ purpose: 'transactional', ttl_seconds: 3600 }))).status).toBe(202);
    await h.worker.drain();
    h.clock.advance(11 * 60_000);
    await expectRules({ HeraldThrottlePausedLong: [{ labels: { provider_account: 'sandbox-sms' }, value: 540 }] });
  });

  it('three more unknown deliveries than 15 minutes before: HeraldUnknownGrowing, by how many', async () => {
    const before = await scrape(h);
    h.sandbox.faults.set({ mode: 'lose_response_after_accept', count: 3 });
    for (let i = 0; i < 3; i++) expect((await h.send(otpBody({ recipient: { id: `user-${i}`, phone: '+14155550123' } }))).status).toBe(202);
    await h.worker.drain();
    const after = await scrape(h);
    // Evaluated 5 minutes after the change: the 15-minute window holds 10 minutes before it and 5 after.
    expectHistory(
      [
        { scrape: before, minutes: 20 },
        { scrape: after, minutes: 20 },
      ],
      25,
      { HeraldUnknownGrowing: [{ labels: {}, value: 3 }] },
    );
  });

  it('two more deliveries in the review queue than an hour before: HeraldReviewQueueGrowing, by how many', async () => {
    const before = await scrape(h);
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 2 });
    for (let i = 0; i < 2; i++) expect((await h.send(otpBody({ recipient: { id: `user-${i}`, phone: '+14155550123' } }))).status).toBe(202);
    await h.worker.drain();
    const after = await scrape(h);
    expectHistory(
      [
        { scrape: before, minutes: 60 },
        { scrape: after, minutes: 20 },
      ],
      70,
      { HeraldReviewQueueGrowing: [{ labels: {}, value: 2 }] },
    );
  });

  it('a phone gateway device silent for 5 minutes: HeraldDeviceAway, against its 120 s threshold', async () => {
    await h.close();
    h = await gatewayHarness(driver, { metrics: { cacheMs: 0 } });
    const registration = await phoneFor(h).register();
    h.clock.advance(5 * MINUTE);
    await expectRules({ HeraldDeviceAway: [{ labels: { device: registration.id }, value: 300 }] });
  });
});
