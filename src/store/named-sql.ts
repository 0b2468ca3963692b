/**
 * Reads SQL files made of named blocks, River/sqlc style:
 *
 *   -- name: claim_select_due
 *   -- params: @provider_account, @now, @limit
 *   SELECT ...;
 *
 * Both drivers use the same statement names, so a query is found by name in either dialect
 * (test/store/dialect-parity.test.ts holds them to it, with the dialect-only ones listed there).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Parses every `*.sql` file of a directory into a map of statement name → SQL text. */
export function loadNamedSql(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const text = readFileSync(join(dir, file), 'utf8');
    let name: string | null = null;
    let body: string[] = [];
    const flush = () => {
      if (name === null) return;
      const sql = body.join('\n').trim();
      if (!sql) throw new Error(`${file}: statement ${name} is empty`);
      if (out.has(name)) throw new Error(`${file}: statement ${name} is defined twice`);
      out.set(name, sql);
    };
    for (const line of text.split('\n')) {
      const m = /^--\s*name:\s*([a-z0-9_]+)\s*$/.exec(line);
      if (m) {
        flush();
        name = m[1]!;
        body = [];
      } else if (name !== null && !/^--/.test(line)) {
        body.push(line);
      }
    }
    flush();
  }
  return out;
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
