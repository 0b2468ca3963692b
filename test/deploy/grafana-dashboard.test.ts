/**
 * deploy/grafana/herald-dashboard.json (issue 14): valid JSON in the shape Grafana imports
 * (schemaVersion ≥ 38, a Prometheus data source variable every query goes through, panels on
 * the 24-column grid), the panels the issue asks for, p50/p99 of both histograms, every PromQL
 * expression (panels and template variables) naming only series Herald exports, and, where
 * promtool is installed, every expression parsing as PromQL.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { heraldSeries, uncarriedLabels } from './herald-series.js';
import { metricNames } from './promql-names.js';
import { findPromtool, runPromtool } from '../helpers/promtool.js';

interface DataSourceRef {
  type?: string;
  uid?: string;
}
interface Target {
  refId: string;
  expr: string;
  legendFormat?: string;
  datasource?: DataSourceRef;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: DataSourceRef;
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  datasource?: DataSourceRef;
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: Variable[] };
  panels: Panel[];
}

const DASHBOARD = new URL('../../deploy/grafana/herald-dashboard.json', import.meta.url);
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
const PANEL_TYPES = new Set(['row', 'timeseries', 'stat', 'bargauge', 'state-timeline', 'table', 'gauge']);

/** What issue 14 and the brief ask the dashboard to show, by panel title. */
const REQUIRED_PANELS = [
  'Deliveries by state',
  'Unknown deliveries',
  'Oldest due message by purpose',
  'Accepted without downstream progress',
  'Deadline misses (last hour)',
  'Failed messages (last 15 min)',
  'Throttle pause remaining',
  'Provider call duration p50 / p99',
  'Intake to acceptance p50 / p99',
  'Callbacks received / refused',
  'Devices online / offline',
  'Device away time',
  'Campaign progress',
  'Review queue',
];

/**
 * Series the dashboard must show somewhere: the metrics contract's state gauges and process
 * series (a histogram through its buckets). A fixed list rather than the registry, so that a new
 * metric elsewhere asks for a panel here by a change to this list, not by breaking this test.
 */
const SHOWN_SERIES = [
  'herald_deliveries',
  'herald_deliveries_terminal',
  'herald_deliveries_unknown',
  'herald_unknown_oldest_age_seconds',
  'herald_review_queue_size',
  'herald_due_deliveries',
  'herald_due_oldest_age_seconds',
  'herald_accepted_without_progress',
  'herald_deadline_misses_last_hour',
  'herald_provider_failures_last_15m',
  'herald_provider_retry_budget_degraded',
  'herald_provider_throttle_pause_remaining_seconds',
  'herald_devices',
  'herald_device_away_seconds',
  'herald_device_away_threshold_seconds',
  'herald_campaign_deliveries',
  'herald_api_attempts_total',
  'herald_accepted_submissions_total',
  'herald_ambiguous_submissions_total',
  'herald_expired_challenges_total',
  'herald_superseded_deliveries_total',
  'herald_replays_total',
  'herald_user_resends_total',
  'herald_user_reported_duplicates_total',
  'herald_user_reported_not_received_total',
  'herald_definite_refusals_total',
  'herald_throttles_total',
  'herald_downstream_signals_total',
  'herald_callbacks_received_total',
  'herald_callbacks_duplicated_total',
  'herald_callbacks_refused_total',
  'herald_intake_to_acceptance_seconds_bucket',
  'herald_provider_call_duration_seconds_bucket',
];

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
/** Every panel, those inside collapsed rows included. */
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queryPanels = panels.filter((p) => p.type !== 'row');
const targets = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, ...t })));

/** The PromQL of a variable: `label_values(<series selector>, <label>)` or a plain expression. */
function variableExpr(v: Variable): string {
  const q = typeof v.query === 'string' ? v.query : v.query.query;
  const m = /^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(q.trim());
  return m ? m[1]! : q;
}

/** An expression as Grafana sends it to Prometheus: its variables replaced by example values. */
function interpolate(expr: string): string {
  return expr.replaceAll('$__rate_interval', '1m').replaceAll('$provider_account', '.*').replaceAll('$job', 'herald');
}

const tool = findPromtool('PromQL parsing of every dashboard query (`promtool check rules`)');

describe('deploy/grafana/herald-dashboard.json', () => {
  it('is a Grafana dashboard of schemaVersion 38 or later, with a uid and a title', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(38);
    expect(dashboard.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(dashboard.title).toBe('Herald');
  });

  it('has a Prometheus data source variable, and every query goes through it (no hard-wired data source)', () => {
    const ds = dashboard.templating.list.filter((v) => v.type === 'datasource');
    expect(ds).toEqual([expect.objectContaining({ name: 'datasource', query: 'prometheus' })]);
    for (const v of dashboard.templating.list.filter((x) => x.type === 'query')) expect(v.datasource, v.name).toEqual(DATASOURCE);
    for (const p of queryPanels) {
      expect(p.datasource, p.title).toEqual(DATASOURCE);
      for (const t of p.targets ?? []) expect(t.datasource ?? DATASOURCE, `${p.title} ${t.refId}`).toEqual(DATASOURCE);
    }
  });

  it('lays panels out on the 24-column grid with unique ids, each with a description and at least one query', () => {
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const p of panels) {
      expect(PANEL_TYPES, p.title).toContain(p.type);
      const g = p.gridPos;
      expect(g.x >= 0 && g.w > 0 && g.h > 0 && g.y >= 0 && g.x + g.w <= 24, `${p.title} ${JSON.stringify(g)}`).toBe(true);
    }
    for (const p of queryPanels) {
      expect(p.description, p.title).toBeTruthy();
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      const refs = p.targets!.map((t) => t.refId);
      expect(new Set(refs).size, `${p.title} refIds`).toBe(refs.length);
    }
    // No two panels overlap.
    const cells = new Map<string, string>();
    for (const p of panels)
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++)
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          const key = `${x},${y}`;
          expect(cells.get(key), `${p.title} overlaps ${cells.get(key)} at ${key}`).toBeUndefined();
          cells.set(key, p.title);
        }
  });

  it('has the panels issue 14 asks for', () => {
    const titles = queryPanels.map((p) => p.title);
    for (const t of REQUIRED_PANELS) expect(titles).toContain(t);
  });

  it('shows p50 and p99 of both histograms with histogram_quantile over their buckets', () => {
    for (const [title, histogram] of [
      ['Provider call duration p50 / p99', 'herald_provider_call_duration_seconds'],
      ['Intake to acceptance p50 / p99', 'herald_intake_to_acceptance_seconds'],
    ] as const) {
      const exprs = targets.filter((t) => t.panel === title).map((t) => t.expr.replace(/\s+/g, ' '));
      for (const q of ['0.5', '0.99'])
        expect(
          exprs.some((e) => e.startsWith(`histogram_quantile(${q}, sum by (le,`) && e.includes(`rate(${histogram}_bucket{`)),
          `${title}: p${q}`,
        ).toBe(true);
    }
  });

  it("filters every query by the dashboard's job, so two deployments on one Prometheus do not mix", () => {
    for (const t of targets) expect(t.expr, `${t.panel} ${t.refId}`).toContain('job="$job"');
  });

  it('shows every series of the metrics contract somewhere', () => {
    const shown = new Set(
      [...targets.map((t) => t.expr), ...dashboard.templating.list.filter((v) => v.type === 'query').map(variableExpr)].flatMap(metricNames),
    );
    for (const s of SHOWN_SERIES) expect(shown, s).toContain(s);
  });

  it.skipIf(!tool.available)('every query and variable selector parses as PromQL (promtool check rules on them as recording rules)', () => {
    const exprs = [...targets.map((t) => t.expr), ...dashboard.templating.list.filter((v) => v.type === 'query').map(variableExpr)].map(interpolate);
    expect(exprs.join('\n'), 'a Grafana variable left after interpolation').not.toMatch(/\$/);
    const dir = mkdtempSync(join(tmpdir(), 'herald-dashboard-'));
    try {
      const file = join(dir, 'dashboard-queries.yml');
      writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: exprs.map((expr, i) => ({ record: `herald_dashboard:query${i}`, expr })) }] }));
      const r = runPromtool(tool, ['check', 'rules', file]);
      expect(r.status, r.output).toBe(0);
      expect(r.output).toContain(`SUCCESS: ${exprs.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('metric names', () => {
    let series: Map<string, readonly string[]>;
    let exported: Set<string>;
    beforeAll(async () => {
      series = await heraldSeries();
      exported = new Set(series.keys());
    });

    it('every panel query reads only series Herald exports', () => {
      for (const t of targets) {
        const names = metricNames(t.expr);
        expect(names.length, `${t.panel} ${t.refId} reads a metric`).toBeGreaterThan(0);
        for (const n of names) expect(exported, `${t.panel} ${t.refId} reads ${n}`).toContain(n);
      }
    });

    it('every panel query matches, groups and shows in its legend only labels its series carry', () => {
      for (const t of targets) {
        const legend = [...(t.legendFormat ?? '').matchAll(/\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g)].map((m) => m[1]!);
        expect(uncarriedLabels(t.expr, series, legend), `${t.panel} ${t.refId}`).toEqual([]);
      }
    });

    it('every template variable query reads only series Herald exports', () => {
      const vars = dashboard.templating.list.filter((v) => v.type === 'query');
      expect(vars.map((v) => v.name)).toEqual(['job', 'provider_account']);
      for (const v of vars) {
        const names = metricNames(variableExpr(v));
        expect(names.length, v.name).toBe(1);
        expect(exported, `${v.name} reads ${names[0]}`).toContain(names[0]);
        const q = typeof v.query === 'string' ? v.query : v.query.query;
        const label = /,\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(q)![1]!;
        expect(uncarriedLabels(variableExpr(v), series, [label]), v.name).toEqual([]);
      }
    });
  });
});
