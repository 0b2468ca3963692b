/**
 * The metric names a PromQL expression reads, for the tests that check deploy/'s alert rules and
 * Grafana dashboard against the series Herald exports. A small lexer, not a parser: it skips
 * what cannot name a metric (strings, numbers and durations, label matchers, range and subquery
 * brackets, `by (...)`-style label lists, keywords, Grafana variables, comments) and takes every
 * other identifier as a metric name, except a function's or an aggregation's. An identifier
 * followed by `(` that is not a PromQL function, a `__name__` regex, or unbalanced brackets throw:
 * a check that silently read nothing would pass on anything.
 */

/** PromQL's functions (Prometheus 2.x/3.x documentation, "Functions"). */
const FUNCTIONS = new Set([
  'abs',
  'absent',
  'absent_over_time',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atanh',
  'avg_over_time',
  'ceil',
  'changes',
  'clamp',
  'clamp_max',
  'clamp_min',
  'cos',
  'cosh',
  'count_over_time',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'days_in_month',
  'deg',
  'delta',
  'deriv',
  'double_exponential_smoothing',
  'exp',
  'floor',
  'histogram_avg',
  'histogram_count',
  'histogram_fraction',
  'histogram_quantile',
  'histogram_stddev',
  'histogram_stdvar',
  'histogram_sum',
  'holt_winters',
  'hour',
  'idelta',
  'increase',
  'irate',
  'label_join',
  'label_replace',
  'last_over_time',
  'ln',
  'log10',
  'log2',
  'mad_over_time',
  'max_over_time',
  'min_over_time',
  'minute',
  'month',
  'pi',
  'predict_linear',
  'present_over_time',
  'quantile_over_time',
  'rad',
  'rate',
  'resets',
  'round',
  'scalar',
  'sgn',
  'sin',
  'sinh',
  'sort',
  'sort_by_label',
  'sort_by_label_desc',
  'sort_desc',
  'sqrt',
  'start',
  'end',
  'stddev_over_time',
  'stdvar_over_time',
  'sum_over_time',
  'tan',
  'tanh',
  'time',
  'timestamp',
  'vector',
  'year',
]);

/** Aggregation operators: `sum by (x) (...)` puts a keyword, not `(`, after the name. */
const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);

/** Keywords followed by a parenthesised list of label names (optional after group_left/right). */
const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

/** Other words that are never metric names. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan']);

const IDENT = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;
// Hex, decimal with exponent, or a duration such as 1h30m (a duration lexes as one token).
const NUMBER = /0x[0-9a-fA-F]+|(?:\d+(?:ms|s|m|h|d|w|y))+(?![a-zA-Z0-9_])|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
// Grafana template variables: $name, ${name}, ${name:format}, [[name]].
const GRAFANA_VAR = /\$\{[^}]*\}|\$[a-zA-Z_][a-zA-Z0-9_]*|\[\[[^\]]*\]\]/y;

function match(re: RegExp, s: string, at: number): string | null {
  re.lastIndex = at;
  const m = re.exec(s);
  return m ? m[0] : null;
}

/** The end index (exclusive) of a quoted string starting at `at`. */
function skipString(s: string, at: number): number {
  const quote = s[at]!;
  let i = at + 1;
  while (i < s.length) {
    if (s[i] === '\\' && quote !== '`') i += 2;
    else if (s[i] === quote) return i + 1;
    else i += 1;
  }
  throw new Error(`unterminated string at ${at} in ${s}`);
}

/** The string literal's value (escapes other than \\ and the quote kept as written: values here are names). */
function stringValue(s: string, start: number, end: number): string {
  return s.slice(start + 1, end - 1).replace(/\\(.)/g, '$1');
}

function skipSpace(s: string, at: number): number {
  let i = at;
  for (;;) {
    while (i < s.length && /\s/.test(s[i]!)) i += 1;
    if (s[i] !== '#') return i;
    while (i < s.length && s[i] !== '\n') i += 1;
  }
}

/** A `{...}` matcher block from `at` (the `{`): its end, the metric it names through `__name__` if any, and the labels it matches on. */
function readMatchers(s: string, at: number): { end: number; name: string | null; labels: string[] } {
  let i = at + 1;
  let name: string | null = null;
  const labels: string[] = [];
  for (;;) {
    i = skipSpace(s, i);
    if (s[i] === '}') return { end: i + 1, name, labels };
    if (s[i] === ',') {
      i += 1;
      continue;
    }
    // A quoted label name (Prometheus 3) or a plain one.
    let label: string;
    const quoted = s[i] === '"' || s[i] === "'";
    if (quoted) {
      const e = skipString(s, i);
      label = stringValue(s, i, e);
      i = e;
    } else {
      const l = match(LABEL_NAME, s, i);
      if (l === null) throw new Error(`label name expected at ${i} in ${s}`);
      label = l;
      i += l.length;
    }
    i = skipSpace(s, i);
    // A bare quoted name inside braces is the metric name itself: {"my.metric", job="x"}.
    if (quoted && (s[i] === ',' || s[i] === '}')) {
      name = label;
      continue;
    }
    const op = match(/=~|!~|!=|=/y, s, i);
    if (op === null) throw new Error(`matcher operator expected at ${i} in ${s}`);
    i = skipSpace(s, i + op.length);
    if (!['"', "'", '`'].includes(s[i] ?? '')) throw new Error(`matcher value expected at ${i} in ${s}`);
    const e = skipString(s, i);
    if (label === '__name__') {
      if (op !== '=') throw new Error(`__name__${op} selects metrics by pattern; name them instead: ${s}`);
      name = stringValue(s, i, e);
    } else labels.push(label);
    i = e;
  }
}

/** The index just past the bracket that closes the one at `at` (strings inside skipped). */
function skipBalanced(s: string, at: number, open: string, close: string): number {
  let depth = 0;
  let i = at;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(s, i);
      continue;
    }
    if (c === open) depth += 1;
    else if (c === close) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  throw new Error(`unbalanced ${open} at ${at} in ${s}`);
}

/** The label names of a `(a, b, "c")` list starting at `at` (the `(`), and its end. */
function readLabelList(s: string, at: number): { end: number; labels: string[] } {
  const end = skipBalanced(s, at, '(', ')');
  const labels = s
    .slice(at + 1, end - 1)
    .split(',')
    .map((l) => l.trim().replace(/^"(.*)"$/, '$1'))
    .filter((l) => l !== '');
  for (const l of labels) if (match(LABEL_NAME, l, 0) !== l) throw new Error(`${l} is not a label name in ${s}`);
  return { end, labels };
}

/** What an expression reads: the metrics it selects and the labels it matches, groups or joins on, each in order of first appearance. */
export interface PromqlReads {
  metrics: string[];
  labels: string[];
}

/** Every metric name `expr` selects, in order of first appearance. */
export function metricNames(expr: string): string[] {
  return readPromql(expr).metrics;
}

/** Every label `expr` names in a matcher or in a `by`/`without`/`on`/`ignoring`/`group_*` list. */
export function labelNames(expr: string): string[] {
  return readPromql(expr).labels;
}

/** The metrics and labels `expr` reads (see the file's comment for what is skipped). */
export function readPromql(expr: string): PromqlReads {
  const names: string[] = [];
  const labels: string[] = [];
  const add = (n: string) => {
    if (!names.includes(n)) names.push(n);
  };
  const addLabels = (ls: string[]) => {
    for (const l of ls) if (!labels.includes(l)) labels.push(l);
  };
  let depth = 0;
  let i = 0;
  while ((i = skipSpace(expr, i)) < expr.length) {
    const c = expr[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(expr, i);
      continue;
    }
    const variable = match(GRAFANA_VAR, expr, i);
    if (variable !== null) {
      i += variable.length;
      continue;
    }
    if (c === '{') {
      const m = readMatchers(expr, i);
      if (m.name !== null) add(m.name);
      addLabels(m.labels);
      i = m.end;
      continue;
    }
    if (c === '[') {
      i = skipBalanced(expr, i, '[', ']');
      continue;
    }
    if (c === '(' || c === ')') {
      depth += c === '(' ? 1 : -1;
      if (depth < 0) throw new Error(`unbalanced ) at ${i} in ${expr}`);
      i += 1;
      continue;
    }
    const num = /[0-9.]/.test(c) ? match(NUMBER, expr, i) : null;
    if (num !== null) {
      i += num.length;
      continue;
    }
    const word = match(IDENT, expr, i);
    if (word === null) {
      // Operators and punctuation: + - * / % ^ == != <= >= < > , @ :
      i += 1;
      continue;
    }
    i += word.length;
    const next = skipSpace(expr, i);
    const lower = word.toLowerCase();
    if (LABEL_LIST_KEYWORDS.has(lower)) {
      if (expr[next] === '(') {
        const list = readLabelList(expr, next);
        addLabels(list.labels);
        i = list.end;
      }
      continue;
    }
    if (KEYWORDS.has(lower) || AGGREGATIONS.has(lower)) continue;
    if (expr[next] === '(') {
      if (!FUNCTIONS.has(word)) throw new Error(`${word}( is not a PromQL function: ${expr}`);
      continue;
    }
    add(word);
  }
  if (depth !== 0) throw new Error(`unbalanced ( in ${expr}`);
  return { metrics: names, labels };
}
