/**
 * The check that stands in for `promtool check metrics` (exposition-check.ts) gives promtool's
 * verdict on a table of texts: accepted (0), does not parse (1), parses with lint findings (3),
 * with promtool's own messages. Where promtool is installed, each row is also put to promtool,
 * so the table stays true to it; the rows where the strict reader is stricter than promtool
 * say so. And Herald's own registry's text passes, so the scrapes' checks can pass at all.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { findPromtool, runPromtool } from '../helpers/promtool.js';
import { checkExposition } from './exposition-check.js';

const promtool = findPromtool('holding the npm check to promtool’s own verdicts (`promtool check metrics` on each row of the table)');

interface Row {
  text: string;
  /** This check's verdict: accepted, a parse error, or these lint findings. */
  verdict: 'ok' | 'parse' | string[];
  /** promtool's exit status (Debian bookworm's 2.42): 0 accepted, 1 unparseable, 3 lint findings. */
  promtool: 0 | 1 | 3;
}

const G = (name: string, body: string) => `# HELP ${name} A.\n# TYPE ${name} gauge\n${body}\n`;

const TABLE: Record<string, Row> = {
  'a gauge with HELP and TYPE': { text: G('x', 'x{a="b"} 1'), verdict: 'ok', promtool: 0 },
  'a histogram': {
    text: '# HELP h_seconds A.\n# TYPE h_seconds histogram\nh_seconds_bucket{le="1"} 1\nh_seconds_bucket{le="+Inf"} 2\nh_seconds_sum 3\nh_seconds_count 2\n',
    verdict: 'ok',
    promtool: 0,
  },
  'an unquoted label value': { text: G('x', 'x{a=b} 1'), verdict: 'parse', promtool: 1 },
  'a value that is not a number': { text: G('x', 'x one'), verdict: 'parse', promtool: 1 },
  'a bad escape in a label value': { text: G('x', 'x{a="\\t"} 1'), verdict: 'parse', promtool: 1 },
  'no final newline': { text: '# HELP x A.\n# TYPE x gauge\nx 1', verdict: 'parse', promtool: 1 },
  'no HELP': { text: '# TYPE x gauge\nx 1\n', verdict: ['x no help text'], promtool: 3 },
  'a counter without _total': {
    text: '# HELP x A.\n# TYPE x counter\nx 1\n',
    verdict: ['x counter metrics should have "_total" suffix'],
    promtool: 3,
  },
  'a gauge with _total': { text: G('x_total', 'x_total 1'), verdict: ['x_total non-counter metrics should not have "_total" suffix'], promtool: 3 },
  'a unit that is not a base unit': {
    text: G('x_milliseconds', 'x_milliseconds 1'),
    verdict: ['x_milliseconds use base unit "seconds" instead of "milliseconds"'],
    promtool: 3,
  },
  'an abbreviated unit': { text: G('x_ms', 'x_ms 1'), verdict: ['x_ms metric names should not contain abbreviated units'], promtool: 3 },
  camelCase: { text: G('fooBar', 'fooBar 1'), verdict: ["fooBar metric names should be written in 'snake_case' not 'camelCase'"], promtool: 3 },
  'a type in the name': { text: G('x_gauge', 'x_gauge 1'), verdict: ["x_gauge metric name should not include type 'gauge'"], promtool: 3 },
  'le on a gauge': { text: G('x', 'x{le="1"} 1'), verdict: ['x non-histogram metrics should not have "le" label'], promtool: 3 },
  // Stricter than promtool 2.42, on purpose (exposition.ts): Prometheus would drop or misread these.
  'a duplicate series (promtool accepts it)': { text: G('x', 'x{a="1"} 1\nx{a="1"} 2'), verdict: 'parse', promtool: 0 },
  'buckets that are not cumulative (promtool accepts them)': {
    text: '# HELP h A.\n# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    verdict: 'parse',
    promtool: 0,
  },
  'a sample without TYPE (promtool: untyped, no HELP)': { text: 'x 1\n', verdict: 'parse', promtool: 3 },
  // The format wants a family's lines in one group; the library reads a second group as a second family.
  'a family in two groups (promtool accepts it; the two parsers disagree)': {
    text: '# HELP x A.\n# TYPE x gauge\nx{a="1"} 1\n# HELP y A.\n# TYPE y gauge\ny 1\nx{a="2"} 2\n',
    verdict: 'parse',
    promtool: 0,
  },
};

describe('the exposition check without promtool', () => {
  it.each(Object.entries(TABLE))('%s', (_name, row) => {
    const v = checkExposition(row.text);
    if (row.verdict === 'ok') expect(v).toEqual({ parseError: null, lint: [] });
    else if (row.verdict === 'parse') expect(v.parseError, JSON.stringify(v)).not.toBeNull();
    else expect(v).toEqual({ parseError: null, lint: row.verdict });
  });

  it.skipIf(!promtool.available)('gives promtool’s verdict on every row of the table, with promtool’s messages', () => {
    for (const [name, row] of Object.entries(TABLE)) {
      const r = runPromtool(promtool, ['check', 'metrics'], row.text);
      expect(r.status, `${name}: ${r.output}`).toBe(row.promtool);
      if (Array.isArray(row.verdict)) for (const problem of row.verdict) expect(r.output, name).toContain(problem);
    }
  });

  it('accepts what prom-client writes for every kind of family Herald exports, labels and escapes included', async () => {
    const registry = new Registry();
    new Gauge({ name: 'herald_x', help: 'A gauge with a \\ backslash.', labelNames: ['l'], registers: [registry] }).set({ l: 'a "quoted" \\ value' }, 1.5);
    new Counter({ name: 'herald_y_total', help: 'A counter.', labelNames: ['channel'], registers: [registry] }).inc({ channel: 'sms' }, 2);
    const h = new Histogram({ name: 'herald_z_seconds', help: 'A histogram.', labelNames: ['channel'], buckets: [1, 2.5], registers: [registry] });
    h.observe({ channel: 'sms' }, 2);
    h.observe({ channel: 'email' }, 0.5);
    expect(checkExposition(await registry.metrics())).toEqual({ parseError: null, lint: [] });
  });
});
