/**
 * deploy/prometheus/herald-alerts.yml (issue 14, item 2):
 * - promtool (Debian's `prometheus` package) checks the file and runs its unit tests
 *   (herald-alerts.test.yml), in which every rule fires on series the test produces and stays
 *   silent on a healthy system. Without promtool those two are skipped and listed at the end of
 *   the run, except with CI set, where a missing promtool fails the file (test/helpers/external-tools.ts);
 *   .ci/run installs it.
 * - Always, from the parsed YAML: each rule's shape (`for:`, severity, summary, description,
 *   runbook_url to its paragraph in docs/operations.md, templates that name only closed-set
 *   labels), each rule covered by a firing and a silent case in the unit tests, and every metric
 *   its expression reads exported by Herald's registry.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { heraldSeries, uncarriedLabels } from './herald-series.js';
import { metricNames } from './promql-names.js';
import { findPromtool, runPromtool } from '../helpers/promtool.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RULES = join(ROOT, 'deploy', 'prometheus', 'herald-alerts.yml');
const RULE_TESTS = join(ROOT, 'deploy', 'prometheus', 'herald-alerts.test.yml');
const OPERATIONS = join(ROOT, 'docs', 'operations.md');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}
interface AlertTest {
  eval_time: string;
  alertname: string;
  exp_alerts: unknown[];
}
interface RuleTestFile {
  rule_files: string[];
  tests: { name: string; alert_rule_test: AlertTest[] }[];
}

const SEVERITIES = ['critical', 'warning', 'info'];
/** Labels a summary or description may show: closed sets (docs/operations.md, "Metrics"), never personal data. */
const TEMPLATE_LABELS = new Set(['provider_account', 'lane', 'purpose', 'channel', 'device', 'job']);
/** A Prometheus duration such as 30s, 2m30s, 1h. */
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

/** docs/operations.md's "Alerts" section: from its heading to the next `## `. */
function alertsSection(): string {
  const md = readFileSync(OPERATIONS, 'utf8');
  const start = md.indexOf('\n## Alerts\n');
  expect(start, 'docs/operations.md has an "## Alerts" section').toBeGreaterThan(0);
  const end = md.indexOf('\n## ', start + 1);
  return md.slice(start, end < 0 ? undefined : end);
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const file = parse(readFileSync(RULES, 'utf8')) as RuleFile;
const rules = file.groups.flatMap((g) => g.rules);
const alerts = rules.filter((r): r is Rule & { alert: string } => typeof r.alert === 'string');
const tool = findPromtool('`promtool check rules` and `promtool test rules` on the alert rules');

describe('deploy/prometheus/herald-alerts.yml', () => {
  it.skipIf(!tool.available)('passes promtool check rules', () => {
    const r = runPromtool(tool, ['check', 'rules', RULES]);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it.skipIf(!tool.available)('passes promtool test rules: every rule fires on its series, and none on a healthy system', () => {
    const r = runPromtool(tool, ['test', 'rules', RULE_TESTS]);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
  });

  it('has groups of alerting rules with unique names, each with for:, a severity, a summary, a description and a runbook_url', () => {
    expect(file.groups.length).toBeGreaterThan(1);
    expect(new Set(file.groups.map((g) => g.name)).size).toBe(file.groups.length);
    expect(alerts.length).toBe(rules.length);
    expect(new Set(alerts.map((a) => a.alert)).size).toBe(alerts.length);
    for (const a of alerts) {
      expect(a.alert, 'alert names are Herald<What>').toMatch(/^Herald[A-Z][A-Za-z0-9]+$/);
      expect(typeof a.expr, a.alert).toBe('string');
      expect(a.for, `${a.alert} for:`).toMatch(DURATION);
      expect(SEVERITIES, `${a.alert} severity`).toContain(a.labels?.severity);
      expect(Object.keys(a.annotations ?? {}).sort(), a.alert).toEqual(['description', 'runbook_url', 'summary']);
      expect(a.annotations!.runbook_url, a.alert).toBe(`docs/operations.md#${anchor(a.alert)}`);
    }
  });

  it('names the signals issue 14 asks for', () => {
    const names = alerts.map((a) => a.alert);
    for (const want of [
      'HeraldUnknownGrowing',
      'HeraldUnknownTooOld',
      'HeraldDueTooOldOtp',
      'HeraldDueTooOldTransactional',
      'HeraldDueTooOldConversational',
      'HeraldDueTooOldMarketing',
      'HeraldAcceptedWithoutProgress',
      'HeraldDeadlineMisses',
      'HeraldProviderFailures',
      'HeraldRetryBudgetDegraded',
      'HeraldThrottlePausedLong',
      'HeraldDeviceAway',
      'HeraldReviewQueueGrowing',
    ])
      expect(names).toContain(want);
  });

  it('shows only closed-set labels and the value in its summary and description', () => {
    for (const a of alerts) {
      for (const key of ['summary', 'description']) {
        const text = a.annotations![key]!;
        for (const [, expr] of text.matchAll(/\{\{(.*?)\}\}/g)) {
          const m = /^\s*(?:\$value\b|\$labels\.([a-z_]+)\b)/.exec(expr!);
          expect(m, `${a.alert} ${key}: {{${expr}}} may show only $value or $labels.<closed-set label>`).not.toBeNull();
          if (m![1] !== undefined) expect(TEMPLATE_LABELS, `${a.alert} ${key} shows $labels.${m![1]}`).toContain(m![1]);
        }
      }
    }
  });

  it('takes one value across the processes of a deployment (max without instance), never a sum', () => {
    for (const a of alerts) {
      expect(a.expr, a.alert).toMatch(/max without \(instance\)/);
      expect(a.expr, a.alert).not.toMatch(/\bsum\b/);
    }
  });

  it('has a runbook paragraph in docs/operations.md "Alerts" for each rule, and none for a rule that does not exist', () => {
    const section = alertsSection();
    const headings = [...section.matchAll(/^#### (.+)$/gm)].map((m) => m[1]!.replace(/`/g, ''));
    expect(headings.sort()).toEqual(alerts.map((a) => a.alert).sort());
    for (const a of alerts) {
      const at = section.indexOf(`#### \`${a.alert}\``);
      const next = section.indexOf('\n#### ', at + 1);
      const paragraph = section.slice(at, next < 0 ? undefined : next).replace(/\s+/g, ' ');
      // What it means, what to look at first, likely causes, what to do, when to ignore it.
      for (const part of ['**Means**', '**Look first**', '**Likely causes**', '**Do**', '**Safe to ignore**'])
        expect(paragraph, `${a.alert} runbook has ${part}`).toContain(part);
    }
  });

  describe('unit tests (herald-alerts.test.yml)', () => {
    const tests = parse(readFileSync(RULE_TESTS, 'utf8')) as RuleTestFile;
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);

    it('load the rules file and only name rules that exist', () => {
      expect(tests.rule_files).toEqual(['herald-alerts.yml']);
      const names = new Set(alerts.map((a) => a.alert));
      for (const c of cases) expect(names, `test case for ${c.alertname}`).toContain(c.alertname);
    });

    it('make every rule fire at least once and stay silent at least once', () => {
      for (const a of alerts) {
        const mine = cases.filter((c) => c.alertname === a.alert);
        expect(
          mine.some((c) => c.exp_alerts.length > 0),
          `${a.alert} fires in a test`,
        ).toBe(true);
        expect(
          mine.some((c) => c.exp_alerts.length === 0),
          `${a.alert} stays silent in a test`,
        ).toBe(true);
      }
    });
  });

  describe('metric names', () => {
    let exported: Map<string, readonly string[]>;
    beforeAll(async () => {
      exported = await heraldSeries();
    });

    it('reads only series Herald exports', () => {
      for (const a of alerts) {
        const names = metricNames(a.expr);
        expect(names.length, `${a.alert} reads a metric`).toBeGreaterThan(0);
        for (const n of names) expect([...exported.keys()], `${a.alert} reads ${n}`).toContain(n);
      }
    });

    it('would notice a rule that read a series Herald does not export', () => {
      expect(exported.has('herald_deliveries_unknown')).toBe(true);
      expect(exported.has('herald_deliveries_unknwon')).toBe(false);
    });

    it('matches, groups and shows only labels its series carry (one they lack selects nothing or renders empty)', () => {
      for (const a of alerts) {
        const shown = ['summary', 'description'].flatMap((key) => [...a.annotations![key]!.matchAll(/\$labels\.([a-z_]+)/g)].map((m) => m[1]!));
        expect(uncarriedLabels(a.expr, exported, shown), a.alert).toEqual([]);
      }
    });
  });
});
