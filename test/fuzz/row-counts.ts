/**
 * Every table's row count in one statement, read beside the app (a second SQLite connection,
 * or a PostgreSQL client on the harness's schema), so a test can tell whether a refused request
 * left anything behind.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import type { Harness } from '../helpers/harness.js';
import { pgUrl } from '../helpers/postgres.js';

export interface RowCounter {
  /** Table name to row count, every table of the schema. */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** Opens a counter on the harness's database (both drivers). */
export async function openRowCounter(h: Harness): Promise<RowCounter> {
  if (h.driver === 'sqlite') {
    const db = new Database(join(h.dir, 'herald.db'), { readonly: true, fileMustExist: true });
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]
    ).map((r) => r.name);
    const stmt = db.prepare(`SELECT ${tables.map((t, i) => `(SELECT count(*) FROM ${quote(t)}) AS c${i}`).join(', ')}`);
    return {
      async counts() {
        const row = stmt.get() as Record<string, number>;
        return Object.fromEntries(tables.map((t, i) => [t, Number(row[`c${i}`])]));
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  const tables = (
    await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name",
      [h.pgSchema],
    )
  ).rows.map((r) => r.table_name);
  // A transaction that writes a row is given an xid, which moves the snapshot's xmax (for the
  // whole server: other databases' writes move it too, so a move only means "count again").
  // With no transaction in progress (an empty xip list) and the same xmax as at the last count,
  // nothing can have been written since: the counts stand without reading ~50 tables.
  const xmaxSql = 'SELECT pg_current_snapshot()::text AS x';
  let lastXmax = '';
  let last: Record<string, number> = {};
  const sql = `SELECT ${tables.map((t, i) => `(SELECT count(*) FROM ${quote(h.pgSchema!)}.${quote(t)}) AS c${i}`).join(', ')}`;
  return {
    async counts() {
      const xmax = String((await client.query({ name: 'fuzz_snapshot', text: xmaxSql })).rows[0].x);
      if (xmax === lastXmax && xmax.endsWith(':')) return last;
      // Prepared (named): planning ~50 sub-selects on every call cost more than running them.
      const row = (await client.query({ name: 'fuzz_counts', text: sql })).rows[0] as Record<string, string>;
      last = Object.fromEntries(tables.map((t, i) => [t, Number(row[`c${i}`])]));
      // The snapshot was read before the counts: a write landing between the two is counted now
      // and moves xmax, so the next call counts again.
      lastXmax = xmax;
      return last;
    },
    async close() {
      await client.end();
    },
  };
}
