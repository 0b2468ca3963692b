/**
 * Reads SQL files made of named blocks, River/sqlc style:
 *
 *   -- name: claim_select_due            (SQLite: parameters by name)
 *   -- params: @provider_account, @now, @limit
 *   SELECT ...;
 *
 *   -- name: template_get                (PostgreSQL: numbered, each number named in the header)
 *   -- params: $1 tenant_id, $2 id
 *   SELECT ...;
 *
 * Both drivers use the same statement names, so a query is found by name in either dialect
 * (test/store/dialect-parity.test.ts holds them to it, with the dialect-only ones listed there).
 * Every statement has a `-- params:` header (`none` when it takes nothing), and the loader
 * refuses a header that does not say exactly what the statement uses: the PostgreSQL executor
 * binds named parameters to `$n` by this header, so a wrong header would bind the wrong value.
 *
 * A PostgreSQL header item is `$n name`, `$n name[]` (an array) and may end in a note in
 * parentheses; the items are numbered 1..n in order, separated by commas, and may continue on
 * following comment lines that start with a `$n`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** A statement as loaded: its SQL text and its parameter names (PostgreSQL: in `$n` order). */
export interface NamedStatement {
  readonly text: string;
  readonly params: readonly string[];
}

export type SqlDialect = 'sqlite' | 'postgres';

/** Parses every `*.sql` file of a directory into a map of statement name → statement; throws on a header that is wrong. */
export function loadNamedSql(dir: string, dialect: SqlDialect): Map<string, NamedStatement> {
  const out = new Map<string, NamedStatement>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    let name: string | null = null;
    let body: string[] = [];
    let header: string[] = [];
    const flush = () => {
      if (name === null) return;
      const sql = body.join('\n').trim();
      if (!sql) throw new Error(`${file}: statement ${name} is empty`);
      if (out.has(name)) throw new Error(`${file}: statement ${name} is defined twice`);
      const where = `${file}: statement ${name}`;
      out.set(name, { text: sql, params: dialect === 'postgres' ? postgresParams(where, header, sql) : sqliteParams(where, header, sql) });
    };
    for (const line of text.split('\n')) {
      const m = /^--\s*name:\s*([a-z0-9_]+)\s*$/.exec(line);
      if (m) {
        flush();
        name = m[1]!;
        body = [];
        header = [];
      } else if (name !== null) {
        if (/^--/.test(line)) {
          if (body.length === 0) header.push(line);
        } else body.push(line);
      }
    }
    flush();
  }
  return out;
}

/** The text of the `-- params:` header and its continuation lines (null when there is none). */
function paramsHeader(header: readonly string[], continuation: RegExp): string | null {
  const start = header.findIndex((l) => /^--\s*params:/.test(l));
  if (start < 0) return null;
  let text = header[start]!.replace(/^--\s*params:/, '');
  for (const l of header.slice(start + 1)) {
    if (!continuation.test(l)) break;
    text += ` ${l.replace(/^--/, '')}`;
  }
  return text.trim();
}

/** Splits on commas outside parentheses. */
function items(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Removes string literals and comments, so `$1` or `@x` inside them is not taken for a parameter. */
function code(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'/g, "''").replace(/--[^\n]*/g, '');
}

function postgresParams(where: string, header: readonly string[], sql: string): string[] {
  const text = paramsHeader(header, /^--\s+\$\d+/);
  if (text === null) throw new Error(`${where} has no "-- params:" header`);
  const names: string[] = [];
  if (text !== 'none') {
    for (const [i, item] of items(text).entries()) {
      const m = /^\$(\d+) ([a-z_][a-z0-9_]*)(\[\])?(?: \([^)]*\))?$/.exec(item);
      if (!m) throw new Error(`${where}: header item "${item}" is not "$n name", "$n name[]" or either with a note in parentheses`);
      if (Number(m[1]) !== i + 1) throw new Error(`${where}: header item "${item}" should be $${i + 1}`);
      if (names.includes(m[2]!)) throw new Error(`${where}: header names ${m[2]} twice`);
      names.push(m[2]!);
    }
  }
  const used = [...new Set([...code(sql).matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
  const listed = names.map((_, i) => i + 1);
  if (used.join(',') !== listed.join(','))
    throw new Error(`${where}: uses $${used.join(', $') || '(nothing)'} but its header lists $${listed.join(', $') || '(nothing)'}`);
  return names;
}

function sqliteParams(where: string, header: readonly string[], sql: string): string[] {
  const text = paramsHeader(header, /^--\s+@/);
  if (text === null) throw new Error(`${where} has no "-- params:" header`);
  const names = text === 'none' ? [] : [...text.matchAll(/@(\w+)/g)].map((m) => m[1]!);
  const used = new Set([...code(sql).matchAll(/@(\w+)/g)].map((m) => m[1]!));
  const listed = new Set(names);
  const missing = [...used].filter((n) => !listed.has(n));
  const unused = [...listed].filter((n) => !used.has(n));
  if (missing.length > 0 || unused.length > 0)
    throw new Error(
      `${where}: header ${missing.length ? `lacks @${missing.join(', @')}` : ''}${missing.length && unused.length ? ' and ' : ''}${unused.length ? `lists unused @${unused.join(', @')}` : ''}`,
    );
  return names;
}

/** The numbered migrations of a directory (`0001_initial.sql`, …), in order. */
export function loadMigrations(dir: string): Array<{ version: number; name: string; sql: string }> {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 4)),
      name: f.replace(/\.sql$/, ''),
      sql: readFileSync(join(dir, f), 'utf8'),
    }));
}
