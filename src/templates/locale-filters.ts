/**
 * The Liquid filters that format by locale, through Intl (CLDR data shipped with Node, no
 * hand-written tables). Each engine is built for one locale, so `{{ n | number }}` prints
 * `1,234.5` for `en` and `1.234,5` for `pt-BR`. A bad argument (a currency that is not ISO
 * 4217, a date that does not parse) throws: strict rendering turns it into a render error.
 *
 *   number                      {{ amount | number }}, {{ amount | number: 2 }} (fraction digits)
 *   currency: "EUR"             {{ total | currency: "EUR" }}
 *   percent                     {{ ratio | percent }}            0.25 → 25%
 *   datetime: "long", "UTC"     {{ at | datetime: "medium", "Europe/Lisbon" }} (style of date, time zone; time short)
 *   localdate: "long", "UTC"    {{ at | localdate: "full" }}     the date alone
 *   plural: one: "…", other: "…"  {{ n | plural: one: "# message", other: "# messages" }} (# is n, formatted)
 */
import type { Liquid } from 'liquidjs';

const STYLES = ['full', 'long', 'medium', 'short'] as const;
type Style = (typeof STYLES)[number];

function toNumber(value: unknown, filter: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw new Error(`${filter}: ${JSON.stringify(value)} is not a number`);
  return n;
}

function toDate(value: unknown, filter: string): Date {
  const d = typeof value === 'number' ? new Date(value) : typeof value === 'string' ? new Date(value) : value instanceof Date ? value : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new Error(`${filter}: ${JSON.stringify(value)} is not a date (an RFC 3339 string or epoch milliseconds)`);
  return d;
}

function toStyle(value: unknown, filter: string): Style {
  const style = value ?? 'medium';
  if (!STYLES.includes(style as Style)) throw new Error(`${filter}: style must be one of ${STYLES.join(', ')}`);
  return style as Style;
}

/** Registers the locale's formatting filters on an engine. */
export function registerLocaleFilters(engine: Liquid, locale: string): void {
  engine.registerFilter('number', (v: unknown, digits?: unknown) => {
    const n = toNumber(v, 'number');
    const d = digits === undefined ? undefined : toNumber(digits, 'number');
    return new Intl.NumberFormat(locale, d === undefined ? {} : { minimumFractionDigits: d, maximumFractionDigits: d }).format(n);
  });
  engine.registerFilter('currency', (v: unknown, code?: unknown) => {
    if (typeof code !== 'string' || !/^[A-Za-z]{3}$/.test(code)) throw new Error('currency: give an ISO 4217 code, e.g. currency: "EUR"');
    return new Intl.NumberFormat(locale, { style: 'currency', currency: code }).format(toNumber(v, 'currency'));
  });
  engine.registerFilter('percent', (v: unknown) =>
    new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(toNumber(v, 'percent')),
  );
  engine.registerFilter('datetime', (v: unknown, style?: unknown, timeZone?: unknown) =>
    new Intl.DateTimeFormat(locale, {
      dateStyle: toStyle(style, 'datetime'),
      timeStyle: 'short',
      timeZone: typeof timeZone === 'string' ? timeZone : 'UTC',
    }).format(toDate(v, 'datetime')),
  );
  engine.registerFilter('localdate', (v: unknown, style?: unknown, timeZone?: unknown) =>
    new Intl.DateTimeFormat(locale, { dateStyle: toStyle(style, 'localdate'), timeZone: typeof timeZone === 'string' ? timeZone : 'UTC' }).format(
      toDate(v, 'localdate'),
    ),
  );
  const rules = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  engine.registerFilter('plural', (v: unknown, ...forms: unknown[]) => {
    const n = toNumber(v, 'plural');
    // Keyword arguments arrive as [name, value] pairs: plural: one: "…", other: "…".
    const byCategory = new Map(forms.filter((f): f is [string, unknown] => Array.isArray(f) && f.length === 2).map(([k, val]) => [k, String(val)]));
    if (!byCategory.has('other')) throw new Error('plural: give at least other: "…" (and one:, few:, many: as the locale needs)');
    const form = byCategory.get(`=${n}`) ?? byCategory.get(rules.select(n)) ?? byCategory.get('other')!;
    return form.replaceAll('#', numbers.format(n));
  });
}
