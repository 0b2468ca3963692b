/**
 * Reads an audience upload (NDJSON or CSV) chunk by chunk and yields its rows as they are
 * complete, each with its 1-based line number: nothing but the current chunk and one partial
 * line is held in memory. A line that cannot be read is yielded as an error naming the line;
 * what a row's fields must look like is the loader's business (audience-loader.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import { HeraldError } from '../errors.js';

export type AudienceFormat = 'ndjson' | 'csv';

/** The fields a row may carry: a recipient as POST /v1/notifications takes it (`time_zone` an IANA name, for quiet hours and the campaign's waves). */
export const AUDIENCE_FIELDS = ['id', 'email', 'phone', 'push_token', 'locale', 'time_zone'] as const;

/**
 * A CSV column named `data.<path>` is a template variable of the row: `data.first_name` becomes
 * `{"first_name": "…"}`, `data.order.total` becomes `{"order": {"total": "…"}}`. Values are
 * strings (CSV has no types; Liquid's number filters read numeric strings). NDJSON rows carry a
 * `data` object as it is. Other column names are still refused, so a misspelt address column
 * is an error, not a template variable.
 */
export const CSV_DATA_PREFIX = 'data.';
const DATA_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** A request body stream, or any (async) iterable of chunks. */
export type ByteSource = AsyncIterable<Buffer | string> | Iterable<Buffer | string>;

export type ParsedLine = { kind: 'row'; line: number; fields: Record<string, unknown> } | { kind: 'error'; line: number; message: string };

export interface ParseLimits {
  /** The whole upload; past it the parse throws `audience_too_large`. */
  maxBytes: number;
  /** One line; a longer one is an error and the parse skips to the next line. */
  maxLineChars: number;
}

/**
 * 200 MiB: 600,000 recipients are ~30 MB of CSV or ~60 MB of NDJSON, so this is room for a few
 * million; it bounds what one request can write before it is refused. 64 Ki characters per
 * line: a push token is at most 4,096.
 */
export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxBytes: 200 * 1024 * 1024, maxLineChars: 64 * 1024 };

/** Splits a byte stream into numbered lines (LF or CRLF, UTF-8, a leading BOM dropped), one array per chunk; throws past `maxBytes`. */
async function* lines(source: ByteSource, limits: ParseLimits): AsyncGenerator<Array<{ line: number; text: string | null }>> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let n = 0;
  let bytes = 0;
  // A line past maxLineChars is reported once (text null) and its remaining characters dropped.
  let skipping = false;
  for await (const chunk of source) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (bytes > limits.maxBytes) {
      throw new HeraldError(
        'audience_too_large',
        `the upload is larger than ${limits.maxBytes / 1024 / 1024} MiB; split the audience or store recipients and send their ids`,
      );
    }
    rest += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    const out: Array<{ line: number; text: string | null }> = [];
    let start = 0;
    for (let i = rest.indexOf('\n'); i >= 0; i = rest.indexOf('\n', start)) {
      n++;
      if (skipping) skipping = false;
      else if (i - start > limits.maxLineChars) out.push({ line: n, text: null });
      else out.push({ line: n, text: rest.charCodeAt(i - 1) === 13 && i > start ? rest.slice(start, i - 1) : rest.slice(start, i) });
      start = i + 1;
    }
    rest = rest.slice(start);
    if (rest.length > limits.maxLineChars) {
      if (!skipping) out.push({ line: n + 1, text: null });
      skipping = true;
      rest = '';
    }
    if (out.length > 0) yield out;
  }
  rest += decoder.end();
  if (rest.length > 0 && !skipping) yield [{ line: n + 1, text: rest.endsWith('\r') ? rest.slice(0, -1) : rest }];
}

/** One CSV record on one line (RFC 4180 quoting, `""` for a quote); a string is the reason it cannot be read. */
export function splitCsvLine(s: string): string[] | string {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (s[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = s.indexOf('"', i);
        if (q < 0) return 'has a quoted field that does not close on its line (fields may not span lines)';
        value += s.slice(i, q);
        if (s[q + 1] === '"') {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      out.push(value);
      if (i === s.length) return out;
      if (s[i] !== ',') return `has "${s[i]}" after a closing quote; expected a comma`;
      i++;
    } else {
      const comma = s.indexOf(',', i);
      const value = comma < 0 ? s.slice(i) : s.slice(i, comma);
      if (value.includes('"')) return 'has a quote inside an unquoted field; quote the field and double the quote';
      out.push(value);
      if (comma < 0) return out;
      i = comma + 1;
    }
  }
}

const TOO_LONG = (limits: ParseLimits) => `is longer than ${limits.maxLineChars} characters`;

/**
 * Yields every non-blank line of an upload as a row (field name → value; empty CSV cells and
 * JSON nulls are left out) or an error naming the line. CSV needs a header line naming its
 * columns from AUDIENCE_FIELDS; a bad header ends the parse with one error on line 1.
 */
export async function* parseAudience(source: ByteSource, format: AudienceFormat, limits: ParseLimits = DEFAULT_PARSE_LIMITS): AsyncGenerator<ParsedLine[]> {
  let header: string[] | null = null;
  let first = true;
  // After a bad CSV header nothing can be read, but the rest is still consumed: stopping early
  // would destroy the request stream, and the client would see a reset instead of the answer.
  let unreadable = false;
  for await (const chunk of lines(source, limits)) {
    if (unreadable) continue;
    const out: ParsedLine[] = [];
    for (const { line, text: raw } of chunk) {
      if (raw === null) {
        out.push({ kind: 'error', line, message: TOO_LONG(limits) });
        continue;
      }
      const text = first && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      first = false;
      if (text.trim() === '') continue;
      if (format === 'ndjson') {
        out.push(withoutNul(ndjsonRow(line, text)));
        continue;
      }
      if (header === null) {
        const h = csvHeader(text);
        if (typeof h === 'string') {
          out.push({ kind: 'error', line, message: h });
          unreadable = true;
          break;
        }
        header = h;
        continue;
      }
      out.push(withoutNul(csvRow(line, text, header)));
    }
    if (out.length > 0) yield out;
  }
  if (format === 'csv' && header === null && !unreadable)
    yield [{ kind: 'error', line: 1, message: `has no header; the first line names the columns, e.g. ${AUDIENCE_FIELDS.join(',')}` }];
}

/**
 * A row with NUL (U+0000) in a column name or value becomes a line error: PostgreSQL's text
 * cannot hold it, so the load would fail with a 500 (found by probing after the fuzz suite).
 */
function withoutNul(row: ParsedLine): ParsedLine {
  if (row.kind !== 'row') return row;
  const bad = Object.entries(row.fields).find(([k, v]) => k.includes('\u0000') || (typeof v === 'string' && v.includes('\u0000')));
  return bad ? { kind: 'error', line: row.line, message: `has the NUL character (U+0000) in ${bad[0].replaceAll('\u0000', '\\0')}` } : row;
}

function ndjsonRow(line: number, text: string): ParsedLine {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { kind: 'error', line, message: 'is not valid JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { kind: 'error', line, message: 'must be a JSON object such as {"id":"u1","email":"ada@example.com"}' };
  const fields: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v)) if (value !== null) fields[k] = value;
  return { kind: 'row', line, fields };
}

function csvHeader(text: string): string[] | string {
  const cells = splitCsvLine(text);
  if (typeof cells === 'string') return `(the header) ${cells}`;
  const names = cells.map((c) => c.trim());
  const known = AUDIENCE_FIELDS as readonly string[];
  const unknown = names.find((c) => !known.includes(c) && !(c.startsWith(CSV_DATA_PREFIX) && DATA_PATH.test(c.slice(CSV_DATA_PREFIX.length))));
  if (unknown !== undefined)
    return `(the header) names the column ${JSON.stringify(unknown)}; columns are ${AUDIENCE_FIELDS.join(', ')} and data.<name> for template data`;
  const dup = names.find((c, i) => names.indexOf(c) !== i);
  if (dup !== undefined) return `(the header) names the column "${dup}" twice`;
  const data = names.filter((c) => c.startsWith(CSV_DATA_PREFIX)).map((c) => c.slice(CSV_DATA_PREFIX.length));
  // `data.order` and `data.order.total` cannot both be: one is a string, the other an object.
  const clash = data.find((p) => data.some((q) => q.startsWith(`${p}.`)));
  if (clash !== undefined) return `(the header) names data.${clash} and a column inside it; a data field is a value or an object, not both`;
  if (!names.includes('id')) return '(the header) has no id column';
  return names;
}

function csvRow(line: number, text: string, header: string[]): ParsedLine {
  const cells = splitCsvLine(text);
  if (typeof cells === 'string') return { kind: 'error', line, message: cells };
  if (cells.length !== header.length) return { kind: 'error', line, message: `has ${cells.length} fields; the header has ${header.length}` };
  const fields: Record<string, unknown> = {};
  let data: Record<string, unknown> | null = null;
  header.forEach((name, i) => {
    if (cells[i] === '') return;
    if (!name.startsWith(CSV_DATA_PREFIX)) {
      fields[name] = cells[i];
      return;
    }
    data ??= {};
    const path = name.slice(CSV_DATA_PREFIX.length).split('.');
    let at: Record<string, unknown> = data;
    for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[path[path.length - 1]!] = cells[i];
  });
  if (data !== null) fields.data = data;
  return { kind: 'row', line, fields };
}
