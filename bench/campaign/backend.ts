/**
 * The store under the campaign run, one driver or the other, behind one shape: what Herald's
 * processes are given to reach it, the rows the report reads back (throttled attempts, each
 * accepted send's permit time, each code's created_at and permit), the fan-out progress, and the
 * driver's own figures over the drain.
 *
 * - PostgreSQL (`herald api` + workers): a throwaway schema on DATABASE_URL or an embedded
 *   server; the server's CPU (backends that exited included), `pg_stat_activity` sampled every
 *   100 ms, claims per second from `pg_stat_user_tables`, cluster WAL bytes and checkpoints.
 * - SQLite (`herald start`): the file in the run's data directory, opened read-only here (WAL
 *   mode: readers never block Herald's writer); the WAL file's size (its high-water mark: SQLite
 *   reuses the file from its start after a checkpoint rather than shrinking it), the database
 *   file's growth, and the bytes the Herald process had written to storage (/proc/<pid>/io),
 *   which is WAL plus checkpoints: the figure that stands for PostgreSQL's WAL per message.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { dropSchema, provideDatabase, schemaClient, type ChaosDatabase } from '../chaos/database.js';
import { parentPid } from '../throughput/cpu.js';
import type { HeraldProcesses } from './herald.js';
import { postgresCpuMs } from './postgres-cpu.js';
import { fmt } from './print.js';
import { startWaitSampler, type WaitSampler } from './wait-sampler.js';

export type Driver = 'postgres' | 'sqlite';

export interface HeraldRows {
  /** Attempts Herald recorded as throttled (a 429 it saw). */
  throttled: number;
  /** Idempotency key → started_at (the permit's time) of its accepted attempt, epoch ms. */
  permitAt: Map<string, number>;
  /** Code destination → its notification's created_at and its first attempt's started_at. */
  otpRows: Map<string, { createdAt: number; permitAt: number | null }>;
}

export interface HeraldBackend {
  /** One line for the header: where the data is. */
  describe: string;
  /** Environment for Herald's processes (beyond the API key and content key). */
  env: Record<string, string>;
  /** CPU groups of the database's own processes (PostgreSQL's server; none for SQLite, which runs inside Herald). */
  cpuGroups: Record<string, () => number>;
  /** Once Herald is up (and has migrated the store): connect. */
  attach(herald: HeraldProcesses): Promise<void>;
  /** The campaign's fanned_out counter, NaN if it cannot be read now. */
  fannedOut(campaignId: string): Promise<number>;
  /** Just before the campaign starts: the driver's counters before, and its samplers. */
  begin(): Promise<void>;
  /** Right after the drain: the counters after; returns the report's lines given the messages sent. */
  end(): Promise<(messages: number) => string[]>;
  rows(): Promise<HeraldRows>;
  /** Disconnects and drops what the run made (unless kept). */
  close(): Promise<string | null>;
}

// The same SQL on both drivers (counts and epoch-ms integers come back as strings from pg: Number() both).
const THROTTLED = `SELECT count(*) AS n FROM attempts WHERE outcome = 'throttled' OR late_outcome = 'throttled'`;
const PERMITS = `SELECT d.idempotency_key AS k, a.started_at AS t FROM attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE a.outcome = 'accepted'`;
const OTP_ROWS = `SELECT d.destination, n.created_at, a.started_at FROM deliveries d JOIN notifications n ON n.id = d.notification_id
  LEFT JOIN attempts a ON a.delivery_id = d.id AND a.number = 1 WHERE d.purpose = 'otp'`;

async function readRows(all: (sql: string) => Promise<unknown[][]>): Promise<HeraldRows> {
  const throttled = Number((await all(THROTTLED))[0]![0]);
  const permitAt = new Map<string, number>();
  for (const [k, t] of (await all(PERMITS)) as Array<[string, string | number]>) permitAt.set(k, Number(t));
  const otpRows = new Map<string, { createdAt: number; permitAt: number | null }>();
  for (const [dest, created, permit] of (await all(OTP_ROWS)) as Array<[string, string | number, string | number | null]>) {
    otpRows.set(dest, { createdAt: Number(created), permitAt: permit === null ? null : Number(permit) });
  }
  return { throttled, permitAt, otpRows };
}

export async function postgresBackend(opts: { keep: boolean }): Promise<HeraldBackend> {
  const schema = `herald_bench_cmp_${randomBytes(5).toString('hex')}`;
  const appName = `herald-${schema}`;
  const db: ChaosDatabase = await provideDatabase();
  let client: pg.Client | null = null;
  let postmaster: number | null = null;
  let waits: WaitSampler | null = null;
  let limiterBefore: Awaited<ReturnType<typeof limiterTraffic>> | null = null;
  let serverBefore: Awaited<ReturnType<typeof serverActivity>> | null = null;
  const c = () => client ?? Promise.reject(new Error('not attached'));
  return {
    describe: `${db.source === 'embedded' ? 'embedded PostgreSQL (fsync off)' : 'DATABASE_URL'}, schema ${schema}`,
    // PGAPPNAME tags Herald's sessions, so the wait sampler sees only this run's.
    env: { DATABASE_URL: db.url, HERALD_PG_SCHEMA: schema, PGAPPNAME: appName },
    cpuGroups: { postgres: () => (postmaster ? postgresCpuMs(postmaster) : 0) },
    async attach() {
      client = await schemaClient(db.url, schema);
      postmaster = parentPid(Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid));
    },
    async fannedOut(id) {
      return (await c())
        .query('SELECT fanned_out FROM campaigns WHERE id = $1', [id])
        .then((r) => Number(r.rows[0]?.fanned_out ?? NaN))
        .catch(() => NaN);
    },
    async begin() {
      limiterBefore = await limiterTraffic(await c(), schema);
      serverBefore = await serverActivity(await c(), schema);
      waits = await startWaitSampler(db.url, appName);
    },
    async end() {
      const waited = await waits!.stop();
      await new Promise((r) => setTimeout(r, 1_100)); // table statistics are flushed at most once a second
      const limiterAfter = await limiterTraffic(await c(), schema);
      const serverAfter = await serverActivity(await c(), schema);
      const walBytes = serverAfter.walBytes - serverBefore!.walBytes;
      const checkpoints = serverAfter.checkpoints - serverBefore!.checkpoints;
      const autovacuums = serverAfter.autovacuums - serverBefore!.autovacuums;
      const seconds = (limiterAfter.at - limiterBefore!.at) / 1000;
      // A claim that spends permits writes both limiter rows (lane + account): spent claims = row
      // updates / 2, exact. Claims that spent nothing leave only index scans: on PostgreSQL 15 with
      // generic prepared plans (every pooled session after 5 runs) an empty claim costs 3 scans of
      // rate_limiters (limiter_ensure 2, limiter_lock 1) and a spending one 4, so the empty ones are
      // estimated as (scans − 4 × spent) / 3 (custom plans in a session's first 5 runs cost one more).
      const spentClaims = (limiterAfter.rowUpdates - limiterBefore!.rowUpdates) / 2;
      const emptyClaims = Math.max(0, (limiterAfter.scans - limiterBefore!.scans - 4 * spentClaims) / 3);
      const attempts = limiterAfter.attempts - limiterBefore!.attempts;
      return (messages) => [
        `PostgreSQL sessions of this run (pg_stat_activity, ${fmt(waited.samples)} samples): ${fmt(waited.active, 2)} active on average, ${fmt(waited.lockWaits, 2)} waiting for a lock ` +
          `(${fmt(waited.limiterWaits, 2)} on the limiter's row); by wait event: ${waited.events
            .slice(0, 6)
            .map(([k, v]) => `${k} ${fmt(v, 2)}`)
            .join(', ')}`,
        `  running (on CPU), mean sessions by statement: ${waited.running
          .slice(0, 6)
          .map(([k, v]) => `${fmt(v, 2)} "${k}"`)
          .join('; ')}`,
        `claims (each locks the account's limiter rows until it commits): ${fmt(spentClaims / seconds)}/s took deliveries (${fmt(attempts / Math.max(1, spentClaims), 1)} each on average); ` +
          `~${fmt(emptyClaims / seconds)}/s came back empty (estimated from pg_stat_user_tables scans of rate_limiters)`,
        `PostgreSQL server during the run (cluster-wide): ${fmt(walBytes / 1e6)} MB of WAL (${fmt(walBytes / Math.max(1, messages))} bytes per message), ` +
          `${checkpoints} checkpoint(s); ${autovacuums} autovacuum/autoanalyze run(s) on this run's tables`,
      ];
    },
    async rows() {
      const cl = await c();
      return readRows(async (text) => (await cl.query({ text, rowMode: 'array' })).rows as unknown[][]);
    },
    async close() {
      await waits?.stop().catch(() => {});
      await client?.end().catch(() => {});
      let note: string | null = null;
      if (opts.keep) note = `kept schema ${schema} (--keep)`;
      else await dropSchema(db.url, schema).catch((err: Error) => (note = `could not drop schema ${schema}: ${err.message}`));
      await db.stop();
      return note;
    },
  };
}

/** Cumulative scans and row updates of the run's rate_limiters table, and attempts inserted (statistics views, read-only). */
async function limiterTraffic(c: pg.Client, schema: string): Promise<{ scans: number; rowUpdates: number; attempts: number; at: number }> {
  const r = await c.query(
    `SELECT relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans, n_tup_upd, n_tup_ins FROM pg_stat_user_tables
     WHERE schemaname = $1 AND relname IN ('rate_limiters', 'attempts')`,
    [schema],
  );
  const row = (name: string) => (r.rows as Array<{ relname: string; scans: string; n_tup_upd: string; n_tup_ins: string }>).find((x) => x.relname === name);
  return {
    scans: Number(row('rate_limiters')?.scans ?? 0),
    rowUpdates: Number(row('rate_limiters')?.n_tup_upd ?? 0),
    attempts: Number(row('attempts')?.n_tup_ins ?? 0),
    at: Date.now(),
  };
}

/**
 * Cluster-wide WAL position and checkpoint count, and autovacuum/analyze runs on the run's tables
 * (statistics views, read-only). The checkpoint counts moved from pg_stat_bgwriter to
 * pg_stat_checkpointer in PostgreSQL 17 (the embedded server is 18, a local one may be 15).
 */
async function serverActivity(c: pg.Client, schema: string): Promise<{ walBytes: number; checkpoints: number; autovacuums: number }> {
  const version = Number((await c.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`)).rows[0]!.v);
  const checkpoints =
    version >= 170000 ? 'SELECT num_timed + num_requested FROM pg_stat_checkpointer' : 'SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter';
  const r = await c.query(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS wal,
            (${checkpoints})::int AS checkpoints,
            (SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_user_tables WHERE schemaname = $1)::int AS autovacuums`,
    [schema],
  );
  const row = r.rows[0] as { wal: number; checkpoints: number; autovacuums: number };
  return { walBytes: Number(row.wal), checkpoints: row.checkpoints, autovacuums: row.autovacuums };
}

/** Size of a file in bytes, 0 when it does not exist (yet, or any more). */
function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Bytes a process caused to be written to storage so far (/proc/<pid>/io write_bytes), NaN if unreadable. */
export function writtenBytes(pid: number): number {
  try {
    return Number(/^write_bytes:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** The SQLite file is Herald's `<data dir>/herald.db` (src/runtime/node.ts databasePath). */
export function sqliteBackend(opts: { dataDir: string; synchronous: string }): HeraldBackend {
  const file = `${opts.dataDir}/herald.db`;
  let db: Database.Database | null = null;
  let pid = -1;
  let sampler: NodeJS.Timeout | null = null;
  let walPeak = 0;
  let before = { dbBytes: 0, walBytes: 0, written: NaN };
  const sample = () => (walPeak = Math.max(walPeak, fileBytes(`${file}-wal`)));
  const open = () => (db ??= new Database(file, { readonly: true, fileMustExist: true }));
  return {
    describe: `SQLite ${file} (WAL, synchronous=${opts.synchronous}), inside the herald start process`,
    env: {},
    cpuGroups: {},
    async attach(herald) {
      pid = herald.processes[0]!.pid;
      open();
    },
    async fannedOut(id) {
      try {
        return Number((open().prepare('SELECT fanned_out FROM campaigns WHERE id = ?').pluck().get(id) as number | undefined) ?? NaN);
      } catch {
        return NaN;
      }
    },
    async begin() {
      before = { dbBytes: fileBytes(file), walBytes: fileBytes(`${file}-wal`), written: writtenBytes(pid) };
      walPeak = before.walBytes;
      sampler = setInterval(sample, 100);
    },
    async end() {
      if (sampler) clearInterval(sampler);
      sample();
      const written = writtenBytes(pid) - before.written;
      const dbGrowth = fileBytes(file) - before.dbBytes;
      return (messages) => [
        `SQLite during the run: WAL file ${fmt(before.walBytes / 1e6, 1)} MB at the start, ${fmt(walPeak / 1e6, 1)} MB at most (the file's high-water mark), ` +
          `${fmt(fileBytes(`${file}-wal`) / 1e6, 1)} MB at the end; herald.db grew ${fmt(dbGrowth / 1e6, 1)} MB (${fmt(dbGrowth / Math.max(1, messages))} bytes per message)`,
        `  herald start wrote ${fmt(written / 1e6)} MB to storage (/proc/<pid>/io write_bytes: the WAL and its checkpoints into herald.db; ${fmt(written / Math.max(1, messages))} bytes per message)`,
      ];
    },
    async rows() {
      const d = open();
      return readRows(async (sql) => d.prepare(sql).raw(true).all() as unknown[][]);
    },
    async close() {
      if (sampler) clearInterval(sampler);
      db?.close();
      db = null;
      return null;
    },
  };
}
