/**
 * Herald's own scrapes as promtool input: what the tests of the shipped alert rules
 * (deploy/prometheus/herald-alerts.yml) feed `promtool test rules` instead of hand-written
 * series. A scrape is GET /metrics through app.inject(), parsed by the exposition parser and cut
 * down to the series some rule reads; a history of scrapes, one per evaluation minute, becomes
 * `input_series` reported by two processes, `api-1` and `worker-1`, as two scraped processes
 * would (the rules take `max without (instance)`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Harness } from '../helpers/harness.js';
import { runPromtool } from '../helpers/promtool.js';
import type { Located } from '../helpers/external-tools.js';
import { parseExposition } from '../observability/exposition.js';
import { metricNames } from './promql-names.js';

/** The shipped rules file. */
export const RULES = fileURLToPath(new URL('../../deploy/prometheus/herald-alerts.yml', import.meta.url));

/** One shipped alert rule, as the YAML says it. */
export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Every alert rule of the shipped file, in order. */
export const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: AlertRule[] }[] }).groups.flatMap((g) => g.rules);

/** Every series some rule reads: a scrape is cut down to these. */
const READ = new Set(rules.flatMap((r) => metricNames(r.expr)));

/** One sample of a scrape. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One scrape: its samples by selector (no `job` or `instance` yet). */
export type Scrape = Map<string, Sample>;

/** A PromQL series selector for promtool's input and expected samples. */
export function selector(name: string, labels: Record<string, string>): string {
  const body = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(',');
  return `${name}{${body}}`;
}

/** Scrapes the harness's GET /metrics: the samples of the series some rule reads. */
export async function scrape(h: Harness): Promise<Scrape> {
  const r = await h.app.inject({ method: 'GET', url: '/metrics' });
  expect(r.statusCode).toBe(200);
  const samples = [...parseExposition(r.body).values()].flatMap((f) => f.samples).filter((s) => READ.has(s.name));
  expect(samples.length).toBeGreaterThan(0);
  return new Map(samples.map((s) => [selector(s.name, s.labels), s]));
}

/**
 * promtool `input_series` for a history of scrapes, the i-th at minute i (`interval: 1m`): each
 * series as Herald produced it (name and labels) plus `job` and `instance`, missing (`_`) in a
 * scrape that did not carry it.
 */
export function inputSeries(minutes: readonly Scrape[]): { series: string; values: string }[] {
  const keys = new Map<string, Sample>();
  for (const m of minutes) for (const [k, s] of m) keys.set(k, s);
  return ['api-1', 'worker-1'].flatMap((instance) =>
    [...keys].map(([key, s]) => ({
      series: selector(s.name, { ...s.labels, job: 'herald', instance }),
      values: minutes.map((m) => (m.has(key) ? String(m.get(key)!.value) : '_')).join(' '),
    })),
  );
}

/** Runs `promtool test rules` on one test of the shipped rules (`interval` and `evaluation_interval` 1m); promtool's verdict. */
export function runRuleTest(tool: Located, test: Record<string, unknown>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'herald-rule-test-'));
  try {
    const file = join(dir, 'herald.test.yml');
    writeFileSync(file, stringify({ rule_files: [RULES], evaluation_interval: '1m', tests: [{ interval: '1m', ...test }] }));
    return runPromtool(tool, ['test', 'rules', file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
