/**
 * The check every scrape of /metrics in the tests passes, on every machine: what
 * `promtool check metrics` checks, without promtool (issue 23). promtool exits 1 on text it
 * cannot parse and 3 on lint findings; here:
 * - parse: the text reads with `parse-prometheus-text-format` (npm; a port of the Prometheus
 *   Python client's parser) and with the strict reader (exposition.ts: names, values, TYPE
 *   before samples, no duplicate series, histogram invariants), and both read the same families
 *   (name, type, HELP) and the same samples of every counter, gauge and untyped family. The
 *   library folds a labelled histogram's series into one, so histograms are compared by family
 *   only; their samples are the strict reader's to check.
 * - lint: the families pass the rules `promtool check metrics` applies, promlint's default set
 *   (client_golang, prometheus/testutil/promlint/validations): a HELP line, `_total` on counters
 *   and only on them, base units, no abbreviated units, no type or `:` in names, snake_case, and
 *   `_bucket`/`_count`/`_sum`, `le` and `quantile` only where histograms and summaries use them.
 *   The messages are promtool's.
 * Where promtool is installed it stays a second opinion (`expectExpositionAccepted`), and the
 * table in exposition-check.test.ts holds this check to promtool's verdicts.
 */
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { expect } from 'vitest';
import { runPromtool } from '../helpers/promtool.js';
import type { Located } from '../helpers/external-tools.js';
import { parseExposition, type Family } from './exposition.js';

export interface ExpositionVerdict {
  /** Why the text does not parse (promtool's exit 1), or null. */
  parseError: string | null;
  /** promlint's findings, `<metric> <problem>` (promtool's exit 3 when parseError is null). */
  lint: string[];
}

/** A sample value as written (`+Inf`, `NaN`, `1e3`) as a number, for comparing the two readings. */
function numberOf(text: string | undefined): number {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/** Where the library's reading and the strict reader's differ, or null. */
function disagreement(library: PromFamily[], strict: Map<string, Family>): string | null {
  const names = library.map((f) => f.name);
  if (new Set(names).size !== names.length) return `a family appears twice: ${names.filter((n, i) => names.indexOf(n) !== i).join(', ')}`;
  if (names.length !== strict.size) return `the parsers read ${names.length} and ${strict.size} families`;
  for (const lf of library) {
    const sf = strict.get(lf.name);
    if (!sf) return `${lf.name}: read by one parser only`;
    if (lf.type.toLowerCase() !== sf.type) return `${lf.name}: type ${lf.type.toLowerCase()} or ${sf.type}`;
    if (lf.help !== (sf.help ?? '')) return `${lf.name}: HELP ${JSON.stringify(lf.help)} or ${JSON.stringify(sf.help)}`;
    if (sf.type === 'histogram' || sf.type === 'summary') continue;
    if (lf.metrics.length !== sf.samples.length) return `${lf.name}: ${lf.metrics.length} or ${sf.samples.length} samples`;
    for (const [i, ls] of lf.metrics.entries()) {
      const ss = sf.samples[i]!;
      if (JSON.stringify(ls.labels ?? {}) !== JSON.stringify(ss.labels))
        return `${lf.name}: labels ${JSON.stringify(ls.labels ?? {})} or ${JSON.stringify(ss.labels)}`;
      if (!Object.is(numberOf(ls.value), ss.value)) return `${lf.name}${JSON.stringify(ss.labels)}: value ${ls.value} or ${ss.value}`;
    }
  }
  return null;
}

/** Units promlint knows, each with its base unit. */
const UNITS: Record<string, string> = {
  amperes: 'amperes',
  bytes: 'bytes',
  celsius: 'celsius',
  grams: 'grams',
  joules: 'joules',
  kelvin: 'kelvin',
  meters: 'meters',
  metres: 'metres',
  seconds: 'seconds',
  volts: 'volts',
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  weeks: 'seconds',
  kelvins: 'kelvin',
  fahrenheit: 'celsius',
  rankine: 'celsius',
  inches: 'meters',
  yards: 'meters',
  miles: 'meters',
  bits: 'bytes',
  calories: 'joules',
  pounds: 'grams',
  ounces: 'grams',
};
const PREFIXES = [
  'pico',
  'nano',
  'micro',
  'milli',
  'centi',
  'deci',
  'deca',
  'hecto',
  'kilo',
  'kibi',
  'mega',
  'mibi',
  'giga',
  'gibi',
  'tera',
  'tebi',
  'peta',
  'pebi',
];
const ABBREVIATIONS = ['s', 'ms', 'us', 'ns', 'sec', 'b', 'kb', 'mb', 'gb', 'tb', 'pb', 'm', 'h', 'd'];
/** Metric types as promlint names them (protobuf's enum, lower-cased; untyped is exempt). */
const TYPE_WORDS = ['counter', 'gauge', 'summary', 'histogram', 'gauge_histogram'];
const CAMEL = /[a-z][A-Z]/;

/** `_word_` inside the name or `_word` at its end. */
const hasWord = (name: string, word: string) => name.includes(`_${word}_`) || name.endsWith(`_${word}`);

/** The first known unit among the name's `_`-separated words, with its base unit. */
function unitOf(name: string): { unit: string; base: string } | null {
  for (const word of name.split('_')) {
    if (UNITS[word]) return { unit: word, base: UNITS[word] };
    for (const p of PREFIXES) if (word.startsWith(p) && UNITS[word.slice(p.length)]) return { unit: word, base: UNITS[word.slice(p.length)]! };
  }
  return null;
}

/** promlint's default rules on each family; `<metric> <problem>` for each finding. */
export function lintFamilies(families: Map<string, Family>): string[] {
  const problems: string[] = [];
  for (const f of families.values()) {
    const add = (text: string) => problems.push(`${f.name} ${text}`);
    const lower = f.name.toLowerCase();
    const labels = new Set(f.samples.flatMap((s) => Object.keys(s.labels)));
    if (f.help === null) add('no help text');
    const unit = unitOf(f.name);
    if (unit && unit.unit !== unit.base) add(`use base unit "${unit.base}" instead of "${unit.unit}"`);
    const total = f.name.endsWith('_total');
    if (f.type === 'counter' && !total) add('counter metrics should have "_total" suffix');
    if (f.type !== 'counter' && f.type !== 'untyped' && total) add('non-counter metrics should not have "_total" suffix');
    if (f.type !== 'untyped') {
      const histogram = f.type === 'histogram';
      const summary = f.type === 'summary';
      if (!histogram && f.name.endsWith('_bucket')) add('non-histogram metrics should not have "_bucket" suffix');
      if (!histogram && !summary && f.name.endsWith('_count')) add('non-histogram and non-summary metrics should not have "_count" suffix');
      if (!histogram && !summary && f.name.endsWith('_sum')) add('non-histogram and non-summary metrics should not have "_sum" suffix');
      if (!histogram && labels.has('le')) add('non-histogram metrics should not have "le" label');
      if (!summary && labels.has('quantile')) add('non-summary metrics should not have "quantile" label');
    }
    for (const t of TYPE_WORDS) if (hasWord(lower, t)) add(`metric name should not include type '${t}'`);
    if (f.name.includes(':')) add("metric names should not contain ':'");
    if (CAMEL.test(f.name)) add("metric names should be written in 'snake_case' not 'camelCase'");
    for (const l of labels) if (CAMEL.test(l)) add("label names should be written in 'snake_case' not 'camelCase'");
    for (const a of ABBREVIATIONS) if (hasWord(lower, a)) add('metric names should not contain abbreviated units');
  }
  return problems;
}

/** The text's verdict, as promtool would give it: a parse error, else promlint's findings. */
export function checkExposition(text: string): ExpositionVerdict {
  let library: PromFamily[];
  let strict: Map<string, Family>;
  try {
    library = parsePrometheusTextFormat(text);
    strict = parseExposition(text);
  } catch (err) {
    return { parseError: (err as Error).message, lint: [] };
  }
  const differ = disagreement(library, strict);
  if (differ !== null) return { parseError: `the two parsers disagree: ${differ}`, lint: [] };
  return { parseError: null, lint: lintFamilies(strict) };
}

/**
 * Expects `text` to pass the check above and, where promtool is installed, `promtool check
 * metrics` too (exit 0: it parses and is lint-clean). Returns the families read.
 */
export function expectExpositionAccepted(text: string, promtool: Located): Map<string, Family> {
  expect(checkExposition(text)).toEqual({ parseError: null, lint: [] });
  if (promtool.available) {
    const r = runPromtool(promtool, ['check', 'metrics'], text);
    expect(r.status, r.output).toBe(0);
  }
  return parseExposition(text);
}
