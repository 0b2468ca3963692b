/**
 * The statements that walked deliveries_terminal_at walk deliveries_terminal_recent since
 * migration 0028 dropped the former (issue 24 item 3: one index entry fewer on every transition
 * into terminal). The plans are read with EXPLAIN on a database each driver migrated (SQLite's
 * series may prefer one of the tenant's indexes for its equalities: searched either way, never scanned).
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNamedSql } from '../../src/store/named-sql.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { openTestPostgresStore, pgUrl } from '../helpers/postgres.js';

const here = dirname(fileURLToPath(import.meta.url));
const STATEMENTS = ['observability_deadline_misses', 'observability_series_failed', 'observability_failed_messages'];

describe('deliveries_terminal_at is gone and its statements use deliveries_terminal_recent', () => {
  it('on SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-idx-'));
    try {
      const store = openSqliteStore({ path: join(dir, 'h.db') });
      await store.migrate();
      await store.close();
      const db = new Database(join(dir, 'h.db'));
      try {
        const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deliveries'`).all() as Array<{ name: string }>).map(
          (r) => r.name,
        );
        expect(names).toContain('deliveries_terminal_recent');
        expect(names).not.toContain('deliveries_terminal_at');
        const sql = loadNamedSql(join(here, '../../src/store/sqlite/queries'), 'sqlite');
        const params = { since: 0, tenant_id: 't', from: 0, until: 1, bucket_ms: 1 };
        for (const name of STATEMENTS) {
          const s = sql.get(name)!;
          const bound = Object.fromEntries(s.params.map((p) => [p, params[p as keyof typeof params]]));
          const plan = (db.prepare(`EXPLAIN QUERY PLAN ${s.text}`).all(bound) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
          // A search through an index, never a walk of the table: the series may take an index
          // of the tenant's (tenant_id and an equality), its equalities' choice on SQLite.
          expect(plan, name).toMatch(/SEARCH (d|deliveries) USING (COVERING )?INDEX deliveries_\w+ \(/);
          if (name === 'observability_deadline_misses') expect(plan, name).toContain('deliveries_terminal_recent');
        }
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('on PostgreSQL', () => {
    let pgStore: Awaited<ReturnType<typeof openTestPostgresStore>>;
    let client: pg.Client;
    beforeAll(async () => {
      pgStore = await openTestPostgresStore();
      client = new pg.Client({ connectionString: pgUrl(), options: `-c search_path=${pgStore.schema}` });
      await client.connect();
    });
    afterAll(async () => {
      await client?.end();
      await pgStore?.store.close();
      await pgStore?.drop();
    });

    it('uses the remaining index', async () => {
      const names = (
        await client.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'deliveries'`, [pgStore.schema])
      ).rows.map((r) => r.indexname);
      expect(names).toContain('deliveries_terminal_recent');
      expect(names).not.toContain('deliveries_terminal_at');
      const sql = loadNamedSql(join(here, '../../src/store/postgres/queries'), 'postgres');
      // An empty table: without this the planner reads it whole, whatever the indexes.
      await client.query('SET enable_seqscan = off');
      // The generic plan (no parameter values), as a prepared statement gets it: EXPLAIN (GENERIC_PLAN)
      // exists from PostgreSQL 16 on, and a server may be 15 (DATABASE_URL), so the statement is
      // prepared and executed with NULLs under plan_cache_mode = force_generic_plan, on any version.
      await client.query('SET plan_cache_mode = force_generic_plan');
      for (const [i, name] of STATEMENTS.entries()) {
        const text = sql.get(name)!.text;
        const params = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
        await client.query(`PREPARE plan_${i} AS ${text}`);
        const args = params === 0 ? '' : `(${Array.from({ length: params }, () => 'NULL').join(', ')})`;
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE plan_${i}${args}`)).rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan, name).toContain('deliveries_terminal_recent');
      }
    });
  });
});
