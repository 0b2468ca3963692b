/**
 * The alert rules against what Herald really exports, on both store drivers: each scenario
 * drives the system through the harness (sandbox faults, the manual clock, the worker and the
 * sweeper), scrapes GET /metrics, holds that scrape for half an hour as promtool input series
 * (two processes, `api-1` and `worker-1`, reporting it, as two scraped processes would), and
 * evaluates every rule's expression with `promtool test rules` (promql_expr_test). The rule the
 * scenario is about must return exactly the expected series and value, and every other rule
 * nothing. This holds the rules to the real names, labels, units and lane mapping of the gauges,
 * which the hand-written series of herald-alerts.test.yml cannot; the `for:` durations and the
 * growth rules (which need a history) are covered there.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';
import { parseExposition } from '../observability/exposition.js';
import { metricNames } from './promql-names.js';
import { findPromtool, IN_CI, runPromtool } from './promtool.js';

const RULES = fileURLToPath(new URL('../../deploy/prometheus/herald-alerts.yml', import.meta.url));
const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] }).groups.flatMap((g) => g.rules);
/** Every series some rule reads: the input is cut down to these. */
const READ = new Set(rules.flatMap((r) => metricNames(r.expr)));

/** What one rule's expression must return: output labels (job included) and the value. */
type Expected = Record<string, { labels: Record<string, string>; value: number }[]>;

/** A PromQL series selector for promtool's input and expected samples. */
function selector(name: string, labels: Record<string, string>): string {
  const body = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',');
  return `${name}{${body}}`;
}

/**
 * Scrapes Herald once and has promtool evaluate every rule's expression one minute into a
 * 30-minute window in which that scrape holds; returns promtool's verdict.
 */
async function evaluate(h: Harness, expected: Expected): Promise<{ status: number | null; output: string }> {
  const r = await h.app.inject({ method: 'GET', url: '/metrics' });
  expect(r.statusCode).toBe(200);
  const samples = [...parseExposition(r.body).values()].flatMap((f) => f.samples).filter((s) => READ.has(s.name));
  expect(samples.length).toBeGreaterThan(0);
  const input_series = ['api-1', 'worker-1'].flatMap((instance) =>
    samples.map((s) => ({ series: selector(s.name, { ...s.labels, job: 'herald', instance }), values: `${s.value}+0x30` })),
  );
  const promql_expr_test = rules.map((rule) => ({
    expr: rule.expr,
    eval_time: '1m',
    exp_samples: (expected[rule.alert] ?? []).map((e) => ({ labels: selector('', { ...e.labels, job: 'herald' }), value: e.value })),
  }));
  const dir = mkdtempSync(join(tmpdir(), 'herald-rules-live-'));
  try {
    const file = join(dir, 'live.test.yml');
    writeFileSync(file, stringify({ rule_files: [RULES], evaluation_interval: '1m', tests: [{ interval: '1m', input_series, promql_expr_test }] }));
    return runPromtool(['test', 'rules', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tool = findPromtool();

describe.skipIf(!tool.available && !IN_CI).each(DRIVERS)('the alert rules on what Herald exports (%s)', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({ driver, metrics: { cacheMs: 0 } });
  });
  afterEach(async () => {
    await h.close();
  });

  async function expectRules(expected: Expected): Promise<void> {
    for (const name of Object.keys(expected)) expect(rules.map((r) => r.alert)).toContain(name);
    const verdict = await evaluate(h, expected);
    expect(verdict.status, verdict.output).toBe(0);
    expect(verdict.output).toContain('SUCCESS');
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
});
