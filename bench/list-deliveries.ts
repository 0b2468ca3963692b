/**
 * `npm run bench:list`: how fast GET /v1/deliveries' store query answers on a big table. Loads
 * --rows deliveries (default 1,000,000; one notification each, one tenant) into a fresh SQLite
 * file and a fresh PostgreSQL schema, generating the rows inside the database (a recursive CTE
 * in SQLite, generate_series in PostgreSQL), then times `store.listDeliveries` (the statement,
 * the join for the row fields and the mapping; not HTTP) for each filter the dashboard offers:
 * the first page and a deep page (a cursor half-way down the table), --runs times each, and
 * prints p50 and p99 in milliseconds. Numbers are printed, never asserted (docs/benchmarks.md).
 *
 *   npm run bench:list -- [--rows 1000000] [--runs 100] [--driver sqlite|postgres|both]
 *                         [--pg-url postgres://postgres@127.0.0.1:5432/test] [--keep]
 *
 * The mix (of i = 0..rows-1, one second apart): 60 % sms (two accounts), 30 % email, 10 % push;
 * 90 % accepted (of those 1/7 downstream failed), 5 % terminal (2 % rejected, 1 % each expired,
 * exhausted, cancelled), 3 % unknown, 1 % retryable, 1 % ready; every 50th a campaign's (four
 * campaigns); five deliveries per recipient id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { encodeTime } from 'ulid';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { DeliveryFilter, Store } from '../src/store/store.js';

const { values: flags } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '100' },
    driver: { type: 'string', default: 'both' },
    // Keep the PostgreSQL schema (bench_list) afterwards, to EXPLAIN the statements by hand.
    keep: { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const ROWS = Number(flags.rows);
const RUNS = Number(flags.runs);
const TENANT = 'bench';
/** Row i was created at START + i seconds. */
const START = Date.UTC(2026, 10, 1);
const PAGE = 50;

/** The row-generating SELECT shared by both dialects: {i} is the row number, {ulid(x)} the 10-character time of x ms. */
function deliveryColumns(ulid: (ms: string) => string, cat: (...parts: string[]) => string, pad: (v: string, n: number) => string) {
  const at = `(${START} + i * 1000)`;
  const state = `CASE WHEN i % 100 < 90 THEN 'accepted' WHEN i % 100 < 95 THEN 'terminal' WHEN i % 100 < 98 THEN 'unknown' WHEN i % 100 = 98 THEN 'retryable' ELSE 'ready' END`;
  return {
    notificationId: cat(`'ntf_'`, ulid(at), pad('i', 16)),
    deliveryId: cat(`'dlv_'`, ulid(at), pad('i', 16)),
    at,
    state,
    terminalReason: `CASE i % 100 WHEN 90 THEN 'rejected' WHEN 91 THEN 'rejected' WHEN 92 THEN 'expired' WHEN 93 THEN 'exhausted' WHEN 94 THEN 'cancelled' END`,
    downstream: `CASE WHEN i % 100 < 90 THEN (CASE WHEN i % 7 = 6 THEN 'failed' WHEN i % 7 = 5 THEN 'sent' ELSE 'delivered' END) END`,
    channel: `CASE WHEN i % 10 < 6 THEN 'sms' WHEN i % 10 < 9 THEN 'email' ELSE 'push' END`,
    account: `CASE WHEN i % 10 < 3 THEN 'sms-main' WHEN i % 10 < 6 THEN 'sms-backup' WHEN i % 10 < 9 THEN 'email-main' ELSE 'push-main' END`,
    purpose: `CASE i % 5 WHEN 0 THEN 'otp' WHEN 1 THEN 'transactional' WHEN 2 THEN 'marketing' WHEN 3 THEN 'alert' ELSE 'conversational' END`,
    recipient: cat(`'user-'`, `CAST(i % ${Math.max(1, Math.floor(ROWS / 5))} AS TEXT)`),
    campaign: `CASE WHEN i % 50 = 0 THEN ${cat(`'cmp_bench_'`, 'CAST(i % 4 AS TEXT)')} END`,
    nextAttempt: `CASE WHEN i % 100 >= 98 THEN ${at} + 60000 END`,
  };
}

async function loadSqlite(path: string): Promise<void> {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.function('ulid_time', { deterministic: true }, (ms: unknown) => encodeTime(Number(ms), 10));
  const c = deliveryColumns(
    (ms) => `ulid_time(${ms})`,
    (...p) => p.join(' || '),
    (v, n) => `substr('${'0'.repeat(n)}' || ${v}, -${n})`,
  );
  const series = `WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ${ROWS})`;
  db.transaction(() => {
    db.prepare(`INSERT INTO tenants (id, name, created_at) VALUES ('${TENANT}', 'Bench', ${START})`).run();
    db.prepare(
      `INSERT INTO notifications (id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json, group_key, generation, expires_at, created_at)
       ${series} SELECT ${c.notificationId}, '${TENANT}', ${c.recipient}, '{}', ${c.purpose}, '["sms"]', '{"text":"x"}', 'op-' || i, 1, ${c.at} + 300000, ${c.at} FROM s`,
    ).run();
    db.prepare(
      `INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination, idempotency_key, state, terminal_reason,
         downstream_status, attempt_count, lease_version, next_attempt_at, expires_at, created_at, updated_at, campaign_id)
       ${series} SELECT ${c.deliveryId}, ${c.notificationId}, '${TENANT}', 0, ${c.channel}, ${c.purpose}, ${c.account}, '+4479' || i, 'bench-' || i, ${c.state},
         ${c.terminalReason}, ${c.downstream}, 1, 1, ${c.nextAttempt}, ${c.at} + 300000, ${c.at}, ${c.at} + 2000, ${c.campaign} FROM s`,
    ).run();
  })();
  db.exec('ANALYZE');
  db.close();
}

async function loadPostgres(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    await client.query(`CREATE OR REPLACE FUNCTION pg_temp.ulid_time(ms bigint) RETURNS text AS $$
      DECLARE alphabet text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; out text := ''; v bigint := ms;
      BEGIN FOR k IN 1..10 LOOP out := substr(alphabet, (v % 32)::int + 1, 1) || out; v := v / 32; END LOOP; RETURN out; END
      $$ LANGUAGE plpgsql IMMUTABLE`);
    const c = deliveryColumns(
      (ms) => `pg_temp.ulid_time(${ms})`,
      (...p) => p.join(' || '),
      (v, n) => `lpad(${v}::text, ${n}, '0')`,
    );
    const series = `FROM generate_series(0, ${ROWS - 1}) AS s(i)`;
    await client.query(`INSERT INTO tenants (id, name, created_at) VALUES ('${TENANT}', 'Bench', ${START})`);
    await client.query(
      `INSERT INTO notifications (id, tenant_id, recipient_id, recipient_json, purpose, channels_json, content_json, group_key, generation, expires_at, created_at)
       SELECT ${c.notificationId}, '${TENANT}', ${c.recipient}, '{}', ${c.purpose}, '["sms"]', '{"text":"x"}', 'op-' || i, 1, ${c.at} + 300000, ${c.at} ${series}`,
    );
    await client.query(
      `INSERT INTO deliveries (id, notification_id, tenant_id, position, channel, purpose, provider_account, destination, idempotency_key, state, terminal_reason,
         downstream_status, attempt_count, lease_version, next_attempt_at, expires_at, created_at, updated_at, campaign_id)
       SELECT ${c.deliveryId}, ${c.notificationId}, '${TENANT}', 0, ${c.channel}, ${c.purpose}, ${c.account}, '+4479' || i, 'bench-' || i, ${c.state},
         ${c.terminalReason}, ${c.downstream}, 1, 1, ${c.nextAttempt}, ${c.at} + 300000, ${c.at}, ${c.at} + 2000, ${c.campaign} ${series}`,
    );
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** The filters the dashboard offers, with what each means in this data. */
function cases(): Array<{ name: string; filter: DeliveryFilter }> {
  const mid = Math.floor(ROWS / 2);
  const lastHour = START + (ROWS - 3600) * 1000;
  return [
    { name: 'no filter', filter: {} },
    { name: 'state=unknown (3 %)', filter: { state: 'unknown' } },
    { name: 'state=terminal&channel=sms (3 %)', filter: { state: 'terminal', channel: 'sms' } },
    { name: 'terminal_reason=rejected (2 %)', filter: { terminalReason: 'rejected' } },
    { name: 'downstream_status=failed (13 %)', filter: { downstreamStatus: 'failed' } },
    { name: 'provider_account=sms-backup (30 %)', filter: { providerAccount: 'sms-backup' } },
    { name: 'channel=push (10 %)', filter: { channel: 'push' } },
    { name: 'campaign=cmp_bench_2 (0.5 %)', filter: { campaignId: 'cmp_bench_2' } },
    { name: 'q=recipient id (5 rows)', filter: { q: `user-${mid % Math.max(1, Math.floor(ROWS / 5))}` } },
    { name: 'q=notification id (1 row)', filter: { q: `ntf_${encodeTime(START + mid * 1000, 10)}${String(mid).padStart(16, '0')}` } },
    { name: 'since=last hour', filter: { since: lastHour } },
    { name: 'until=half-way', filter: { until: START + mid * 1000 } },
    { name: 'since+until (one day)', filter: { since: START + mid * 1000, until: START + (mid + 86_400) * 1000 } },
  ];
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function measure(store: Store, driver: string): Promise<void> {
  // Deep page: a cursor half-way down, as after ~ rows/100 pages of 50.
  const deep = `dlv_${encodeTime(START + Math.floor(ROWS / 2) * 1000, 10)}${String(Math.floor(ROWS / 2)).padStart(16, '0')}`;
  console.log(`\n${driver}, ${ROWS.toLocaleString('en')} deliveries, ${RUNS} runs each, pages of ${PAGE}: p50 / p99 ms (rows on the page)`);
  console.log(`${'filter'.padEnd(38)} ${'first page'.padStart(22)} ${'deep page'.padStart(22)}`);
  for (const { name, filter } of cases()) {
    const cols: string[] = [];
    for (const cursor of [null, deep]) {
      const times: number[] = [];
      let n = 0;
      for (let r = 0; r < RUNS + 5; r++) {
        const t = performance.now();
        const page = await store.listDeliveries(TENANT, filter, cursor, PAGE);
        const ms = performance.now() - t;
        n = page.items.length;
        if (r >= 5) times.push(ms); // the first five warm caches and prepare statements
      }
      times.sort((a, b) => a - b);
      cols.push(`${pct(times, 50).toFixed(2)} / ${pct(times, 99).toFixed(2)} (${n})`.padStart(22));
    }
    console.log(`${name.padEnd(38)} ${cols.join(' ')}`);
  }
}

const drivers = flags.driver === 'both' ? ['sqlite', 'postgres'] : [flags.driver];
for (const driver of drivers) {
  if (driver === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'herald-bench-list-'));
    try {
      const path = join(dir, 'herald.db');
      const migrated = openSqliteStore({ path });
      await migrated.migrate();
      await migrated.close();
      const t = performance.now();
      await loadSqlite(path);
      console.log(`sqlite: loaded ${ROWS.toLocaleString('en')} deliveries in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      const store = openSqliteStore({ path });
      await measure(store, 'SQLite');
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    const schema = flags.keep ? 'bench_list' : `bench_list_${process.pid}`;
    const url = flags['pg-url'];
    const store = openPostgresStore({ connectionString: url, schema, maxConnections: 2 });
    try {
      await store.migrate();
      const t = performance.now();
      await loadPostgres(url, schema);
      console.log(`postgres: loaded ${ROWS.toLocaleString('en')} deliveries in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      await measure(store, 'PostgreSQL');
    } finally {
      await store.close();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      if (!flags.keep) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  }
}
