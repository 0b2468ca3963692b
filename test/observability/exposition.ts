/**
 * A strict reader of the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), for tests: it refuses what a
 * Prometheus server would refuse (a sample before its TYPE, a bad name or label, an unquoted or
 * badly escaped value, a duplicate series, a non-numeric value) instead of skipping it. Hand
 * written because prom-client has no parser and the brief adds no dependency.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name: the family's, or for a histogram `<family>_bucket`, `_sum` or `_count`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string | null;
  type: MetricType;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function fail(line: number, why: string): never {
  throw new Error(`exposition line ${line}: ${why}`);
}

function parseValue(text: string, line: number): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) fail(line, `"${text}" is not a number`);
  return Number(text);
}

/** Labels in `{…}` from `at` (the `{`); returns them and the index after `}`. */
function parseLabels(s: string, at: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  while (s[i] !== '}') {
    const eq = s.indexOf('=', i);
    if (eq < 0) fail(line, 'label without =');
    const name = s.slice(i, eq);
    if (!LABEL.test(name) || name.startsWith('__')) fail(line, `bad label name "${name}"`);
    if (name in labels) fail(line, `label ${name} twice`);
    if (s[eq + 1] !== '"') fail(line, `label ${name}'s value is not quoted`);
    let j = eq + 2;
    let value = '';
    for (;;) {
      const c = s[j];
      if (c === undefined || c === '\n') fail(line, `label ${name}'s value is not closed`);
      if (c === '"') break;
      if (c === '\\') {
        const e = s[j + 1];
        if (e === 'n') value += '\n';
        else if (e === '\\' || e === '"') value += e;
        else fail(line, `bad escape \\${e ?? ''}`);
        j += 2;
      } else {
        value += c;
        j += 1;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (s[i] === ',') i += 1;
    else if (s[i] !== '}') fail(line, 'labels not separated by a comma');
  }
  return { labels, end: i + 1 };
}

/** Parses an exposition into its families, by name; throws on the first line Prometheus would refuse. */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  if (text !== '' && !text.endsWith('\n')) fail(0, 'the exposition does not end with a newline');
  const lines = text.split('\n');
  lines.forEach((raw, idx) => {
    const n = idx + 1;
    if (raw === '') return;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
    if (comment) {
      const [, kind, name, rest] = comment as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!NAME.test(name)) fail(n, `bad metric name "${name}"`);
      const f = families.get(name) ?? { name, help: null, type: 'untyped' as MetricType, samples: [] };
      if (kind === 'HELP') {
        if (f.help !== null) fail(n, `second HELP for ${name}`);
        f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      } else {
        if (!TYPES.has(rest as MetricType)) fail(n, `unknown type "${rest}"`);
        if (f.samples.length) fail(n, `TYPE of ${name} after its samples`);
        f.type = rest as MetricType;
      }
      families.set(name, f);
      return;
    }
    if (raw.startsWith('#')) return;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(raw);
    if (!m) fail(n, 'a sample line must start with a metric name');
    const name = m[1]!;
    let rest = raw.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      const parsed = parseLabels(rest, 0, n);
      labels = parsed.labels;
      rest = rest.slice(parsed.end);
    }
    const parts = rest.trim().split(' ');
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) fail(n, 'expected " value [timestamp]"');
    const value = parseValue(parts[0]!, n);
    // A histogram's samples are <name>_bucket (with le), <name>_sum and <name>_count.
    const suffix = /_(bucket|sum|count)$/.exec(name);
    const base = suffix ? families.get(name.slice(0, -suffix[0].length)) : undefined;
    const family = base?.type === 'histogram' ? base : families.get(name);
    if (!family || family.type === 'untyped') fail(n, `sample of ${name} before its TYPE`);
    if (family.type === 'histogram' && family.name === name) fail(n, `histogram ${name} has a sample without _bucket, _sum or _count`);
    if (family.type === 'histogram' && name.endsWith('_bucket') !== 'le' in labels) fail(n, `${name}: le belongs on _bucket samples only`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) fail(n, `duplicate series ${key}`);
    seen.add(key);
    family.samples.push({ name, labels, value });
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

/** Each series of a histogram: ascending le ending at +Inf, cumulative counts, +Inf = _count, and a _sum. */
function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: { le: number; value: number }[]; sum?: number; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith('_bucket')) entry.buckets.push({ le: parseValue(le!, 0), value: s.value });
    else if (s.name.endsWith('_sum')) entry.sum = s.value;
    else entry.count = s.value;
  }
  for (const [key, e] of series) {
    const where = `${f.name}${key}`;
    if (e.buckets.length === 0 || e.buckets.at(-1)!.le !== Infinity) fail(0, `${where}: the last bucket must be le="+Inf"`);
    e.buckets.forEach((b, i) => {
      if (i === 0) return;
      const prev = e.buckets[i - 1]!;
      if (!(b.le > prev.le)) fail(0, `${where}: le values must ascend`);
      if (b.value < prev.value) fail(0, `${where}: bucket counts must be cumulative`);
    });
    if (e.count === undefined || e.sum === undefined) fail(0, `${where}: _sum and _count are required`);
    if (e.count !== e.buckets.at(-1)!.value) fail(0, `${where}: _count differs from the +Inf bucket`);
  }
}
