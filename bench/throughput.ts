/**
 * `npm run bench:throughput`: N notifications through Herald's real intake and real delivery
 * worker to the real sandbox provider (no faults, no latency), on SQLite and/or PostgreSQL.
 *
 * Processes (printed with the results):
 * - this process is the Herald process. It runs the compiled Herald from dist/ (what `herald`
 *   runs): the store, the Fastify API (or, with --intake direct, the IntakeService called
 *   in-process, without HTTP), the DeliveryWorker with the sandbox adapter, and the sweeper,
 *   assembled by `createHeraldNode` as `herald start` does;
 * - the sandbox provider is a child process, `node bin/herald.js sandbox` (the real CLI);
 *   every delivery is one HTTP request from the adapter to it;
 * - with --intake http (the default), the load generator is a child process
 *   (bench/throughput/producer.ts) posting over keep-alive connections;
 * - PostgreSQL is the server at --pg-url (its own processes).
 *
 * Phases per driver, each on a fresh database:
 * - e2e: intake and workers at once; rate = N / (first request sent → last delivery accepted);
 * - intake-only: workers off; rate = N / time to 202 all N;
 * - delivery-only: then workers on over that pre-filled backlog of N ready deliveries;
 * - nohttp (on request): the worker over a backlog with an in-process adapter that accepts at
 *   once, i.e. Herald's own claim/decide/write cost without the provider call.
 * Other processes on a shared machine distort the figures: each phase waits for an idle machine,
 * and is run again if other processes took more than --max-other cores meanwhile.
 * Intake-to-accepted latency = attempts.finished_at of the accepted attempt − notifications.created_at,
 * read from the database after the e2e phase. Numbers are printed, never asserted.
 * Unless `--peer none`, the e2e phase then runs through the BullMQ notifier of issue 16
 * (bench/peers/bullmq-notifier, child processes) with the same load generator and sandbox, and
 * the summary prints Herald's e2e rate over the peer's per driver.
 */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { notificationBody, type Channel } from './throughput/bodies.js';
import { machineBusyCpuMs, parentPid, postgresCpuByKind, processCpuMs, processTreeCpuMs, startCpuMeter } from './throughput/cpu.js';
import type { ProducerResult } from './throughput/producer.js';
import { startPeer } from './peers/bullmq-notifier/launch.js';
import { ratio } from './peers/compare.js';
import type { Store } from '../src/store/store.js';
import type { HeraldConfig } from '../src/config/config.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
// --herald DIR benchmarks another checkout's build (e.g. an unmodified copy, for before/after).
const heraldFlag = process.argv.indexOf('--herald');
const HERALD_ROOT = heraldFlag > 0 && process.argv[heraldFlag + 1] ? resolve(process.argv[heraldFlag + 1]!) : ROOT;

// The compiled Herald (npm run build), with the types of its sources.
async function dist<T>(rel: string): Promise<T> {
  return (await import(new URL(`dist/${rel}`, `file://${HERALD_ROOT}/`).href)) as T;
}
const nodeMod = await dist<typeof import('../src/runtime/node.js')>('runtime/node.js');
const configMod = await dist<typeof import('../src/config/config.js')>('config/config.js');
const intakeMod = await dist<typeof import('../src/intake/intake-service.js')>('intake/intake-service.js');
const authMod = await dist<typeof import('../src/tenants/api-keys.js')>('tenants/api-keys.js');
const clockMod = await dist<typeof import('../src/clock.js')>('clock.js');
const workerMod = await dist<typeof import('../src/delivery/worker.js')>('delivery/worker.js');

// ---------------------------------------------------------------- flags

const HELP = `Usage: npm run bench:throughput -- [options]

  --n N                 notifications per phase (default 20000)
  --driver D            sqlite | postgres | both (default both)
  --intake I            http (Fastify API, load generator in its own process) | direct (IntakeService in-process) (default http)
  --concurrency C       requests in flight from the load generator (default 64)
  --batch B             worker batch_size (default: Herald's default)
  --loops L             worker loops_per_account (default: Herald's default)
  --channel CH          sms | email | push (default sms)
  --idempotency-key     send a distinct Idempotency-Key with every request (default: none)
  --phases P            comma list of e2e,intake,delivery,nohttp (default e2e,intake,delivery); nohttp =
                        the worker over a backlog with an in-process adapter that accepts at once
                        (Herald's claim/decide/write cost without the provider call)
  --synchronous S       SQLite synchronous: FULL (default, Herald's default) | NORMAL
  --pg-url URL          PostgreSQL server (default $BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/test)
  --pg-pool P           Herald's Postgres pool size (HERALD_PG_POOL; default: Herald's default)
  --data-dir DIR        where SQLite files go (default: a temp dir under ${tmpdir()})
  --cpu-prof DIR        write .cpuprofile files: Herald per phase, sandbox and load generator per process
  --quiet-wait S        before each phase, wait up to S seconds for the machine to be idle
                        (other processes below a quarter of a core over 2 s); default 120, 0 = don't wait
  --max-other C         a phase during which other processes used more than C cores on average is
                        run again (default 0.2)
  --attempts A          at most A runs of a phase (default 3); the last one is kept, disturbed or not
  --keep                keep the SQLite files / Postgres schemas
  --herald DIR          benchmark the build in DIR/dist (and DIR/bin/herald.js sandbox) instead of this checkout's
  --peer P              bullmq (default): after Herald, the same end-to-end phase through the BullMQ notifier
                        (bench/peers/bullmq-notifier: HTTP intake → BullMQ → 1 worker, concurrency 50, no
                        limiter) with the same load generator and sandbox, and the Herald / peer ratio; none: skip
  --peer-redis URL      the peer's Redis (own key prefix, only its keys deleted); default: its own redis-server
`;

const { values: flags } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    driver: { type: 'string', default: 'both' },
    intake: { type: 'string', default: 'http' },
    concurrency: { type: 'string', default: '64' },
    batch: { type: 'string' },
    loops: { type: 'string' },
    channel: { type: 'string', default: 'sms' },
    'idempotency-key': { type: 'boolean', default: false },
    phases: { type: 'string', default: 'e2e,intake,delivery' },
    synchronous: { type: 'string', default: 'FULL' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    'pg-pool': { type: 'string' },
    'data-dir': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'quiet-wait': { type: 'string', default: '120' },
    'max-other': { type: 'string', default: '0.2' },
    attempts: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    herald: { type: 'string' },
    peer: { type: 'string', default: 'bullmq' },
    'peer-redis': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
function fail(message: string): never {
  process.stderr.write(`${message}\n\n${HELP}`);
  process.exit(2);
}
const positive = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer`);
  return n;
};
const N = positive(flags.n, 'n')!;
const CONCURRENCY = positive(flags.concurrency, 'concurrency')!;
const BATCH = positive(flags.batch, 'batch');
const LOOPS = positive(flags.loops, 'loops');
const PG_POOL = positive(flags['pg-pool'], 'pg-pool');
const INTAKE = flags.intake as 'http' | 'direct';
if (INTAKE !== 'http' && INTAKE !== 'direct') fail('--intake must be http or direct');
const CHANNEL = flags.channel as Channel;
if (!['sms', 'email', 'push'].includes(CHANNEL)) fail('--channel must be sms, email or push');
const DRIVERS = flags.driver === 'both' ? (['sqlite', 'postgres'] as const) : [flags.driver as 'sqlite' | 'postgres'];
if (!DRIVERS.every((d) => d === 'sqlite' || d === 'postgres')) fail('--driver must be sqlite, postgres or both');
const PHASES = new Set(flags.phases.split(',').map((s) => s.trim()));
if (![...PHASES].every((p) => ['e2e', 'intake', 'delivery', 'nohttp'].includes(p))) fail('--phases takes e2e, intake, delivery, nohttp');
if (PHASES.has('delivery') && !PHASES.has('intake')) PHASES.add('intake'); // the backlog comes from intake
const SYNCHRONOUS = flags.synchronous as 'FULL' | 'NORMAL';
if (SYNCHRONOUS !== 'FULL' && SYNCHRONOUS !== 'NORMAL') fail('--synchronous must be FULL or NORMAL');
const PG_URL = flags['pg-url'];
const QUIET_WAIT_S = Number(flags['quiet-wait']);
const MAX_OTHER = Number(flags['max-other']);
if (!Number.isFinite(MAX_OTHER) || MAX_OTHER < 0) fail('--max-other must be a number of cores');
const ATTEMPTS = positive(flags.attempts, 'attempts')!;
if (!Number.isFinite(QUIET_WAIT_S) || QUIET_WAIT_S < 0) fail('--quiet-wait must be a number of seconds');
const PEER = flags.peer as 'bullmq' | 'none';
if (PEER !== 'bullmq' && PEER !== 'none') fail('--peer must be bullmq or none');
const PROF_DIR = flags['cpu-prof'] ? resolve(flags['cpu-prof']) : null;
if (PROF_DIR) mkdirSync(PROF_DIR, { recursive: true });

const silent = pino({ level: 'silent' });
const TENANT = 'bench';

/** The bench's tenant, with every provider account assigned to it (an account assigned to nobody is the default tenant's: docs/tenants.md). */
async function benchTenant(store: Store, accounts: ReadonlyArray<{ id: string }>): Promise<void> {
  await store.ensureTenant({ id: TENANT, name: 'Bench' }, Date.now());
  for (const a of accounts) await store.tenants.assignAccount(TENANT, a.id, Date.now());
}

// ---------------------------------------------------------------- helpers

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';
function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Counts what the store does, without changing it: intake commits, claims, outcome writes, acceptances. */
interface Meter {
  created: number;
  createMs: number;
  claims: number;
  claimed: number;
  claimMs: number;
  writes: number;
  writeMs: number;
  accepted: number;
  target: number;
  onTarget: (() => void) | null;
}
const newMeter = (target: number): Meter => ({
  created: 0,
  createMs: 0,
  claims: 0,
  claimed: 0,
  claimMs: 0,
  writes: 0,
  writeMs: 0,
  accepted: 0,
  target,
  onTarget: null,
});

function instrument(store: Store, m: Meter): Store {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function') return value;
      const fn = value as (...a: unknown[]) => Promise<unknown>;
      if (prop === 'createNotification') {
        return async (...a: unknown[]) => {
          const t0 = performance.now();
          const r = await fn.apply(target, a);
          m.createMs += performance.now() - t0;
          m.created++;
          return r;
        };
      }
      if (prop === 'claimBatch') {
        return async (...a: unknown[]) => {
          const t0 = performance.now();
          const r = (await fn.apply(target, a)) as unknown[];
          m.claimMs += performance.now() - t0;
          m.claims++;
          m.claimed += r.length;
          return r;
        };
      }
      if (prop === 'applyTransitions') {
        return async (...a: unknown[]) => {
          const writes = a[0] as Array<{ transition: { to: string } }>;
          const t0 = performance.now();
          const r = (await fn.apply(target, a)) as Array<{ applied: boolean }>;
          m.writeMs += performance.now() - t0;
          m.writes++;
          r.forEach((x, i) => {
            if (x.applied && writes[i]!.transition.to === 'accepted') m.accepted++;
          });
          if (m.accepted >= m.target && m.onTarget) {
            const cb = m.onTarget;
            m.onTarget = null;
            cb();
          }
          return r;
        };
      }
      return fn.bind(target);
    },
  });
}

/** Resolves when the meter counts `target` acceptances; rejects if nothing moves for 60 s. */
function acceptedAll(m: Meter, store: Store): Promise<number> {
  return new Promise((resolveDone, reject) => {
    if (m.accepted >= m.target) return resolveDone(performance.now());
    let last = m.accepted;
    let lastMove = performance.now();
    const timer = setInterval(() => {
      if (m.accepted !== last) {
        last = m.accepted;
        lastMove = performance.now();
      } else if (performance.now() - lastMove > 60_000) {
        clearInterval(timer);
        void store.countByState().then((c) => reject(new Error(`stalled at ${m.accepted}/${m.target} accepted: ${JSON.stringify(c)}`)));
      }
    }, 500);
    m.onTarget = () => {
      clearInterval(timer);
      resolveDone(performance.now());
    };
  });
}

// ---------------------------------------------------------------- child processes

interface Child {
  proc: ChildProcess;
  lines: AsyncIterator<string>;
}
function startChild(args: string[], name: string): Child {
  const profArgs = PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROF_DIR, '--cpu-prof-name', `${name}-${Date.now()}.cpuprofile`] : [];
  const proc = spawn(process.execPath, [...profArgs, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  return { proc, lines };
}
async function nextLine(c: Child, what: string): Promise<string> {
  const r = await c.lines.next();
  if (r.done) throw new Error(`${what} exited early (code ${c.proc.exitCode})`);
  return r.value;
}
async function stopChild(c: Child): Promise<void> {
  if (c.proc.exitCode !== null) return;
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.kill('SIGTERM');
  await exited;
}

async function startSandboxProcess(): Promise<{ child: Child; url: string }> {
  const child = startChild([join(HERALD_ROOT, 'bin/herald.js'), 'sandbox', '--port', '0', '--seed', '1'], 'sandbox');
  const line = await nextLine(child, 'sandbox');
  const m = /listening on (http:\/\/\S+)/.exec(line);
  if (!m) throw new Error(`unexpected sandbox output: ${line}`);
  // Drain the rest of its banner.
  void (async () => {
    for (;;) if ((await child.lines.next()).done) return;
  })();
  return { child, url: m[1]! };
}

async function ledgerCheck(sandboxUrl: string): Promise<{ entries: number; distinctKeys: number }> {
  const r = await fetch(`${sandboxUrl}/ledger`);
  const body = (await r.json()) as { entries: Array<{ idempotency_key: string }> };
  const keys = new Set(body.entries.map((e) => e.idempotency_key));
  await fetch(`${sandboxUrl}/ledger`, { method: 'DELETE' });
  return { entries: body.entries.length, distinctKeys: keys.size };
}

// ---------------------------------------------------------------- databases

interface Db {
  driver: 'sqlite' | 'postgres';
  label: string;
  config: HeraldConfig;
  env: NodeJS.ProcessEnv;
  /** Intake-to-accepted latencies (ms, sorted) and the run's time span, from the database. */
  facts(): Promise<DbFacts>;
  /** CPU ms used so far by the database server, if it is a separate process. */
  serverCpuMs(): number;
  /** Starts a per-process-kind CPU breakdown of the database server; the result says where its CPU went. */
  serverBreakdown(): () => string;
  drop(): Promise<void>;
}
interface DbFacts {
  latencies: number[];
  firstCreated: number;
  lastAccepted: number;
  states: Record<string, number>;
  attempts: number;
}

const FACTS_SQL = `
SELECT a.finished_at - n.created_at AS l, n.created_at AS c, a.finished_at AS f
FROM attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN notifications n ON n.id = d.notification_id
WHERE a.outcome = 'accepted' ORDER BY l`;

function baseConfig(dataDir: string, sandboxUrl: string): HeraldConfig {
  const raw: Record<string, unknown> = {
    data_dir: dataDir,
    database: { synchronous: SYNCHRONOUS },
    worker: {},
    // Every code of the run goes to one number from one key: the per-key quota still counts each
    // request (its cost is measured) but cannot refuse, and the code velocity rules are off.
    limits: { requests: { limit: 10_000_000, window_s: 60 }, velocity: { otp: {} } },
  };
  if (BATCH !== undefined) (raw.worker as Record<string, unknown>).batch_size = BATCH;
  if (LOOPS !== undefined) (raw.worker as Record<string, unknown>).loops_per_account = LOOPS;
  const config = configMod.resolveConfig(raw, { port: 0, host: '127.0.0.1', sandbox: false });
  config.provider_accounts = configMod.sandboxAccounts(sandboxUrl);
  configMod.checkConsistency(config);
  return config;
}

let pgPostmaster: number | null = null;
async function postgresServerPid(): Promise<number | null> {
  if (pgPostmaster !== null) return pgPostmaster;
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  const r = await c.query('SELECT pg_backend_pid() AS pid');
  pgPostmaster = parentPid(Number(r.rows[0].pid)); // while the backend still exists
  await c.end();
  return pgPostmaster;
}

async function openDb(driver: 'sqlite' | 'postgres', phase: string, sandboxUrl: string): Promise<Db> {
  if (driver === 'sqlite') {
    const dir = mkdtempSync(join(flags['data-dir'] ? resolve(flags['data-dir']) : tmpdir(), `herald-bench-${phase}-`));
    const config = baseConfig(dir, sandboxUrl);
    const file = nodeMod.databasePath(dir);
    return {
      driver,
      label: `SQLite ${file} (WAL, synchronous=${SYNCHRONOUS})`,
      config,
      env: {},
      async facts() {
        const db = new Database(file, { readonly: true });
        try {
          const rows = db.prepare(FACTS_SQL).all() as Array<{ l: number; c: number; f: number }>;
          const states = Object.fromEntries(
            (db.prepare('SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state').all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n]),
          );
          const attempts = (db.prepare('SELECT COUNT(*) AS n FROM attempts').get() as { n: number }).n;
          return summarize(rows, states, attempts);
        } finally {
          db.close();
        }
      },
      serverCpuMs: () => 0,
      serverBreakdown: () => () => '',
      async drop() {
        if (!flags.keep) rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `herald_bench_${process.pid}_${phase}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  const config = baseConfig(tmpdir(), sandboxUrl);
  // Herald on PostgreSQL refuses to start without a content key (docs/retention.md): a throwaway one per run.
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: PG_URL,
    HERALD_PG_SCHEMA: schema,
    HERALD_CONTENT_KEY: randomBytes(32).toString('base64'),
    ...(PG_POOL ? { HERALD_PG_POOL: String(PG_POOL) } : {}),
  };
  const postmaster = await postgresServerPid();
  const u = new URL(PG_URL);
  return {
    driver,
    label: `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname} schema ${schema}`,
    config,
    env,
    async facts() {
      const c = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
      await c.connect();
      try {
        const rows = (await c.query(FACTS_SQL)).rows.map((r) => ({ l: Number(r.l), c: Number(r.c), f: Number(r.f) }));
        const states = Object.fromEntries((await c.query('SELECT state, COUNT(*)::int AS n FROM deliveries GROUP BY state')).rows.map((r) => [r.state, r.n]));
        const attempts = Number((await c.query('SELECT COUNT(*) AS n FROM attempts')).rows[0].n);
        return summarize(rows, states, attempts);
      } finally {
        await c.end();
      }
    },
    serverCpuMs: () => (postmaster ? processTreeCpuMs(postmaster) : 0),
    serverBreakdown() {
      if (!postmaster) return () => '';
      const start = postgresCpuByKind(postmaster).perPid;
      return () => {
        const { byKind } = postgresCpuByKind(postmaster, start);
        const parts = Object.entries(byKind)
          .sort((a, b) => b[1] - a[1])
          .map(([k, ms]) => `${k} ${fmt(ms / 1000, 1)} s`);
        return parts.length ? `PostgreSQL CPU by process: ${parts.join(', ')}` : '';
      };
    },
    async drop() {
      if (flags.keep) return;
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

function summarize(rows: Array<{ l: number; c: number; f: number }>, states: Record<string, number>, attempts: number): DbFacts {
  let firstCreated = Infinity;
  let lastAccepted = -Infinity;
  for (const r of rows) {
    if (r.c < firstCreated) firstCreated = r.c;
    if (r.f > lastAccepted) lastAccepted = r.f;
  }
  return { latencies: rows.map((r) => r.l), firstCreated, lastAccepted, states, attempts };
}

// ---------------------------------------------------------------- Herald

type HeraldNode = Awaited<ReturnType<typeof nodeMod.createHeraldNode>>;

interface Herald {
  store: Store;
  meter: Meter;
  apiUrl: string | null;
  apiKey: string;
  node: HeraldNode | null;
  /** In-process intake (direct mode). */
  submit: ((i: number) => Promise<void>) | null;
  /** Listens (api) and starts the worker loops, as `herald start` does. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the store, migrates, creates the tenant and an API key, and assembles the roles asked for. */
async function startHerald(db: Db, roles: Array<'api' | 'worker'>, runId: string, fresh: boolean): Promise<Herald> {
  const raw = await nodeMod.openStore(db.config, db.env);
  const meter = newMeter(N);
  const store = instrument(raw, meter);
  const apiKey = authMod.generateApiKey();
  if (fresh) await benchTenant(store, db.config.provider_accounts);
  await store.createApiKey({ id: `key_${runId}_${roles.join('')}`, tenantId: TENANT, keyHash: authMod.hashApiKey(apiKey), label: 'bench', now: Date.now() });
  const wantApi = roles.includes('api');
  const nodeRoles = roles.filter((r) => r === 'worker' || (r === 'api' && INTAKE === 'http'));
  const node = nodeRoles.length > 0 ? await nodeMod.createHeraldNode({ config: db.config, roles: nodeRoles, logger: silent, store }) : null;
  let submit: Herald['submit'] = null;
  if (wantApi && INTAKE === 'direct') {
    // Exactly what node.ts builds for the api role, minus Fastify: the route handler calls this.
    const intake = new intakeMod.IntakeService({
      store,
      accounts: db.config.provider_accounts,
      clock: clockMod.systemClock,
      logger: silent,
      wake: (account) => node?.worker?.wake.notify(account),
    });
    submit = async (i) => {
      // The parsed form of the header value the HTTP load generator sends ("runId-i").
      const key = flags['idempotency-key'] ? `${runId}-${i}` : null;
      const r = await intake.submit(TENANT, notificationBody(CHANNEL, runId, i) as never, key);
      if (r.statusCode !== 202) throw new Error(`intake answered ${r.statusCode}`);
    };
  }
  const herald: Herald = {
    store,
    meter,
    apiUrl: null,
    apiKey,
    node,
    submit,
    async start() {
      herald.apiUrl = node ? await node.start() : null;
    },
    async close() {
      await node?.close();
      await raw.close();
    },
  };
  return herald;
}

interface IntakeRun {
  /** CPU ms the load generator process used while sending (it exits right after). */
  producerCpuMs: number | null;
  elapsedMs: number;
  ok: number;
  statuses: Record<string, number>;
  clientLatencyMs: { p50: number; p99: number; max: number } | null;
}

/** Drives N notifications through intake: the HTTP load generator process, or in-process calls. */
async function prepareIntake(h: Herald, runId: string): Promise<{ go(): Promise<IntakeRun>; producer: Child | null }> {
  if (INTAKE === 'direct') {
    return {
      producer: null,
      async go() {
        let next = 0;
        let ok = 0;
        const t0 = performance.now();
        const lane = async () => {
          for (;;) {
            const i = next++;
            if (i >= N) return;
            await h.submit!(i);
            ok++;
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, lane));
        return { producerCpuMs: null, elapsedMs: performance.now() - t0, ok, statuses: { 202: ok }, clientLatencyMs: null };
      },
    };
  }
  return startProducer(h.apiUrl!, h.apiKey, runId);
}

/** The HTTP load generator process, ready; `go()` starts it and resolves with its report. */
async function startProducer(url: string, apiKey: string, runId: string): Promise<{ go(): Promise<IntakeRun>; producer: Child }> {
  const opts = { url, apiKey, n: N, concurrency: CONCURRENCY, channel: CHANNEL, idempotencyKeys: flags['idempotency-key'], runId };
  const producer = startChild(['--import', 'tsx', join(ROOT, 'bench/throughput/producer.ts'), JSON.stringify(opts)], 'producer');
  const ready = await nextLine(producer, 'producer');
  if (ready !== 'ready') throw new Error(`unexpected producer output: ${ready}`);
  return {
    producer,
    async go() {
      producer.proc.stdin!.write('go\n');
      const r = JSON.parse(await nextLine(producer, 'producer')) as ProducerResult;
      return { producerCpuMs: r.cpuMs, elapsedMs: r.elapsedMs, ok: r.ok, statuses: r.statuses, clientLatencyMs: r.latencyMs };
    },
  };
}

// ---------------------------------------------------------------- profiling of this process

async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!PROF_DIR) return fn();
  const s = new Session();
  s.connect();
  await s.post('Profiler.enable');
  await s.post('Profiler.start');
  try {
    return await fn();
  } finally {
    const { profile } = await s.post('Profiler.stop');
    writeFileSync(join(PROF_DIR, `herald-${name}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    s.disconnect();
  }
}

// ---------------------------------------------------------------- phases

/**
 * Other processes on the machine (test suites, builds) take cores from the benchmark. Waits
 * until a 2 s window shows less than a quarter of a core busy, or gives up; says which.
 */
async function awaitQuiet(): Promise<string> {
  const deadline = performance.now() + QUIET_WAIT_S * 1000;
  let busy = NaN;
  do {
    const b0 = machineBusyCpuMs();
    await sleep(2000);
    busy = (machineBusyCpuMs() - b0) / 2000;
    if (busy < 0.25) return `machine idle before the phase (${fmt(busy * 100)}% of a core busy)`;
  } while (performance.now() < deadline);
  return `WARNING: machine still busy before the phase (${fmt(busy * 100)}% of a core used by other processes)`;
}

interface PhaseReport {
  name: string;
  rate: number;
  seconds: number;
  /** Average cores other processes used during the phase: above --max-other the run is disturbed. */
  otherCores: number;
  /** CPU seconds of the run's own processes (not other processes, interrupts or steal): less noisy than the rate on a busy machine. */
  ownCpuS?: number;
  lines: string[];
}

function cpuLine(cpu: Record<string, number>, seconds: number): string {
  const parts = Object.entries(cpu)
    .filter(([k]) => k !== 'machine')
    .map(([k, v]) => `${k} ${fmt(v, 1)} s`);
  return `CPU over ${fmt(seconds, 1)} s wall (2 cores = ${fmt(2 * seconds, 1)} CPU-s): ${parts.join(', ')} (irq = interrupts/softirq incl. loopback TCP; other = other processes and kernel threads); machine busy ${fmt(cpu.machine!, 1)} s`;
}

/** CPU seconds of the named process groups of a phase: everything but machine, other, irq and steal. */
function ownCpu(cpu: Record<string, number>): number {
  return Object.entries(cpu)
    .filter(([k]) => !['machine', 'other', 'irq', 'steal'].includes(k))
    .reduce((a, [, v]) => a + v, 0);
}

function storeLine(m: Meter): string {
  const parts: string[] = [];
  if (m.created > 0) parts.push(`intake commits ${fmt(m.created)} × ${fmt(m.createMs / m.created, 2)} ms`);
  if (m.claims > 0) parts.push(`claims ${fmt(m.claims)} (avg ${fmt(m.claimed / m.claims, 1)} rows) × ${fmt(m.claimMs / m.claims, 2)} ms`);
  if (m.writes > 0) parts.push(`outcome writes ${fmt(m.writes)} × ${fmt(m.writeMs / m.writes, 2)} ms`);
  return `store calls (wall time inside each, incl. waiting): ${parts.join('; ')}`;
}

/** Adds the load generator's own CPU report to a phase's CPU figures. */
function withProducer(cpu: Record<string, number>, run: IntakeRun): Record<string, number> {
  if (run.producerCpuMs === null) return cpu;
  const producer = run.producerCpuMs / 1000;
  return { ...cpu, producer, other: Math.max(0, cpu.other! - producer) };
}

async function cpuGroups(db: Db, children: Array<[string, Child | null]>) {
  const groups: Record<string, () => number> = { herald: () => processCpuMs(process.pid) };
  for (const [name, c] of children) if (c?.proc.pid) groups[name] = () => processCpuMs(c.proc.pid!);
  if (db.driver === 'postgres') groups.postgres = () => db.serverCpuMs();
  return groups;
}

async function e2ePhase(driver: 'sqlite' | 'postgres', sandbox: { child: Child; url: string }): Promise<PhaseReport> {
  const runId = `e2e${Date.now().toString(36)}`;
  const db = await openDb(driver, 'e2e', sandbox.url);
  const h = await startHerald(db, ['api', 'worker'], runId, true);
  await h.start(); // workers idle until intake wakes them
  const intake = await prepareIntake(h, runId);
  const cpu = startCpuMeter(await cpuGroups(db, [['sandbox', sandbox.child]]));
  const pgCpu = db.serverBreakdown();
  const elu0 = performance.eventLoopUtilization();
  const { t0, intakeRun, tDone } = await profiled(`e2e-${driver}`, async () => {
    const t0 = performance.now();
    const done = acceptedAll(h.meter, h.store);
    const intakeRun = await intake.go();
    const tDone = await done;
    return { t0, intakeRun, tDone };
  });
  const seconds = (tDone - t0) / 1000;
  const usage = withProducer(cpu.stop(), intakeRun);
  const pgLine = pgCpu();
  const elu = performance.eventLoopUtilization(elu0);
  if (intake.producer) await stopChild(intake.producer);
  await h.close();
  const facts = await db.facts();
  const ledger = await ledgerCheck(sandbox.url);
  await db.drop();
  const rate = N / seconds;
  const lat = facts.latencies;
  const lines = [
    `end to end: ${fmt(N)} notifications, first request → last accepted ${fmt(seconds, 2)} s = ${fmt(rate)} notifications/s`,
    `  intake finished after ${fmt(intakeRun.elapsedMs / 1000, 2)} s (${fmt(N / (intakeRun.elapsedMs / 1000))}/s while workers ran)` +
      (intakeRun.clientLatencyMs ? `; request → 202 p50 ${fmt(intakeRun.clientLatencyMs.p50, 1)} ms, p99 ${fmt(intakeRun.clientLatencyMs.p99, 1)} ms` : ''),
    `  intake-to-accepted (DB: accepted attempt finished_at − notification created_at): p50 ${fmt(percentile(lat, 50))} ms, p99 ${fmt(percentile(lat, 99))} ms, max ${fmt(lat[lat.length - 1] ?? NaN)} ms`,
    `  DB span first created_at → last accepted: ${fmt((facts.lastAccepted - facts.firstCreated) / 1000, 2)} s; states ${JSON.stringify(facts.states)}; attempts ${fmt(facts.attempts)}; sandbox ledger ${fmt(ledger.entries)} entries, ${fmt(ledger.distinctKeys)} distinct keys`,
    `  ${storeLine(h.meter)}`,
    `  ${cpuLine(usage, seconds)}; Herald event loop utilization ${fmt(elu.utilization * 100)}%`,
    ...(pgLine ? [`  ${pgLine}`] : []),
  ];
  if (intakeRun.ok !== N) lines.push(`  WARNING: only ${intakeRun.ok}/${N} requests got 202: ${JSON.stringify(intakeRun.statuses)}`);
  return { name: 'e2e', rate, seconds, otherCores: usage.other! / seconds, ownCpuS: ownCpu(usage), lines };
}

async function intakeAndDeliveryPhases(driver: 'sqlite' | 'postgres', sandbox: { child: Child; url: string }): Promise<PhaseReport[]> {
  const out: PhaseReport[] = [];
  const runId = `pre${Date.now().toString(36)}`;
  const db = await openDb(driver, 'backlog', sandbox.url);

  // Intake only: no worker role anywhere, so every notification stays ready.
  const h = await startHerald(db, ['api'], runId, true);
  await h.start();
  const intake = await prepareIntake(h, runId);
  let cpu = startCpuMeter(await cpuGroups(db, []));
  let pgCpu = db.serverBreakdown();
  const elu0 = performance.eventLoopUtilization();
  const run = await profiled(`intake-${driver}`, () => intake.go());
  const usage = withProducer(cpu.stop(), run);
  let pgLine = pgCpu();
  const elu = performance.eventLoopUtilization(elu0);
  if (intake.producer) await stopChild(intake.producer);
  const intakeSeconds = run.elapsedMs / 1000;
  out.push({
    name: 'intake',
    rate: N / intakeSeconds,
    seconds: intakeSeconds,
    otherCores: usage.other! / intakeSeconds,
    lines: [
      `intake only (no workers): ${fmt(N)} in ${fmt(intakeSeconds, 2)} s = ${fmt(N / intakeSeconds)} notifications/s` +
        (run.clientLatencyMs ? `; request → 202 p50 ${fmt(run.clientLatencyMs.p50, 1)} ms, p99 ${fmt(run.clientLatencyMs.p99, 1)} ms` : ''),
      `  ${storeLine(h.meter)}`,
      `  ${cpuLine(usage, intakeSeconds)}; Herald event loop utilization ${fmt(elu.utilization * 100)}%`,
      ...(pgLine ? [`  ${pgLine}`] : []),
      ...(run.ok !== N ? [`  WARNING: only ${run.ok}/${N} requests got 202: ${JSON.stringify(run.statuses)}`] : []),
    ],
  });
  await h.close();
  if (!PHASES.has('delivery')) {
    await db.drop();
    return out;
  }

  // Delivery only: a worker process-alike over the N ready deliveries.
  const quiet = await awaitQuiet();
  const w = await startHerald(db, ['worker'], runId, false);
  cpu = startCpuMeter(await cpuGroups(db, [['sandbox', sandbox.child]]));
  pgCpu = db.serverBreakdown();
  const elu1 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const tDone = await profiled(`delivery-${driver}`, async () => {
    const done = acceptedAll(w.meter, w.store);
    await w.start();
    return done;
  });
  const seconds = (tDone - t0) / 1000;
  const usage2 = cpu.stop();
  pgLine = pgCpu();
  const elu2 = performance.eventLoopUtilization(elu1);
  await w.close();
  const facts = await db.facts();
  const ledger = await ledgerCheck(sandbox.url);
  await db.drop();
  out.push({
    name: 'delivery',
    rate: N / seconds,
    seconds,
    otherCores: usage2.other! / seconds,
    lines: [
      quiet,
      `delivery only (backlog of ${fmt(N)} ready): ${fmt(seconds, 2)} s = ${fmt(N / seconds)} deliveries/s`,
      `  states ${JSON.stringify(facts.states)}; attempts ${fmt(facts.attempts)}; sandbox ledger ${fmt(ledger.entries)} entries, ${fmt(ledger.distinctKeys)} distinct keys`,
      `  ${storeLine(w.meter)}`,
      `  ${cpuLine(usage2, seconds)}; Herald event loop utilization ${fmt(elu2.utilization * 100)}%`,
      ...(pgLine ? [`  ${pgLine}`] : []),
    ],
  });
  return out;
}

/**
 * The worker without the provider: same store, worker, batches and loops, but the adapter
 * answers `accepted` in-process. What is left is Herald's own cost per delivery.
 */
async function noHttpPhase(driver: 'sqlite' | 'postgres', sandbox: { child: Child; url: string }): Promise<PhaseReport> {
  const runId = `nh${Date.now().toString(36)}`;
  const db = await openDb(driver, 'nohttp', sandbox.url);
  const raw = await nodeMod.openStore(db.config, db.env);
  const meter = newMeter(N);
  const store = instrument(raw, meter);
  await benchTenant(store, db.config.provider_accounts);
  const intake = new intakeMod.IntakeService({ store, accounts: db.config.provider_accounts, clock: clockMod.systemClock, logger: silent });
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      for (let i = next++; i < N; i = next++) await intake.submit(TENANT, notificationBody(CHANNEL, runId, i) as never, null);
    }),
  );
  Object.assign(meter, newMeter(N)); // count the worker's store calls only, not the fill's
  const accept = {
    kind: 'in-process',
    capabilities: { lookup: false, dedupesByKey: false },
    submit: async (r: { deliveryId: string }) => ({ kind: 'accepted' as const, providerMessageId: `fake-${r.deliveryId}` }),
    close: async () => {},
  };
  const worker = new workerMod.DeliveryWorker({
    store,
    adapters: new Map(db.config.provider_accounts.map((a) => [a.id, accept])),
    clock: clockMod.systemClock,
    logger: silent,
    workerId: `bench-${process.pid}`,
    settings: db.config.worker,
  });
  const quiet = await awaitQuiet();
  const cpu = startCpuMeter(await cpuGroups(db, []));
  const pgCpu = db.serverBreakdown();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const tDone = await profiled(`nohttp-${driver}`, async () => {
    const done = acceptedAll(meter, store);
    worker.start();
    return done;
  });
  const seconds = (tDone - t0) / 1000;
  const usage = cpu.stop();
  const pgLine = pgCpu();
  const elu = performance.eventLoopUtilization(elu0);
  await worker.stop();
  await raw.close();
  await db.drop();
  return {
    name: 'nohttp',
    rate: N / seconds,
    seconds,
    otherCores: usage.other! / seconds,
    lines: [
      quiet,
      `worker without HTTP (in-process adapter answers accepted; backlog of ${fmt(N)}): ${fmt(seconds, 2)} s = ${fmt(N / seconds)} deliveries/s`,
      `  ${storeLine(meter)}`,
      `  ${cpuLine(usage, seconds)}; Herald event loop utilization ${fmt(elu.utilization * 100)}%`,
      ...(pgLine ? [`  ${pgLine}`] : []),
    ],
  };
}

/**
 * The e2e phase through the BullMQ notifier (issue 16's peer): the same load generator, the same
 * sandbox process, the same N; its worker has no limiter (as Herald's sandbox accounts have none
 * here). Rate = N / (first request → the worker's last provider answer); latency = intake
 * request received → provider answer, as the worker measured it.
 */
async function peerE2ePhase(sandbox: { child: Child; url: string }): Promise<PhaseReport> {
  const runId = `peer${Date.now().toString(36)}`;
  const peer = await startPeer({ sandboxUrl: sandbox.url, rate: null, ...(flags['peer-redis'] ? { redisUrl: flags['peer-redis'] } : {}) });
  try {
    const intake = await startProducer(peer.url, peer.apiKey, runId);
    const groups: Record<string, () => number> = {
      intake: () => processCpuMs(peer.intake.pid),
      worker: () => processCpuMs(peer.worker.pid),
      ...(peer.redis ? { redis: () => processCpuMs(peer.redis!.pid) } : {}),
      sandbox: () => processCpuMs(sandbox.child.proc.pid!),
      bench: () => processCpuMs(process.pid),
    };
    const cpu = startCpuMeter(groups);
    const t0Wall = Date.now();
    const intakeRun = await intake.go();
    let last = -1;
    let lastMove = performance.now();
    for (;;) {
      const crash = peer.crashed();
      if (crash) throw new Error(crash);
      const st = await peer.stats();
      if (st.sent + st.failed + st.expired >= N) break;
      if (st.sent !== last) {
        last = st.sent;
        lastMove = performance.now();
      } else if (performance.now() - lastMove > 60_000) throw new Error(`peer stalled at ${st.sent}/${N} sent: ${JSON.stringify(st)}`);
      await sleep(50);
    }
    const usage = withProducer(cpu.stop(), intakeRun);
    const stats = await peer.stats(true);
    // Wall clock on both sides: the worker stamps its last provider answer with Date.now().
    const seconds = (stats.lastSentAt - t0Wall) / 1000;
    await stopChild(intake.producer);
    const ledger = await ledgerCheck(sandbox.url);
    const lat = stats.latencyMs!;
    const lines = [
      `end to end: ${fmt(N)} notifications, first request → last provider answer ${fmt(seconds, 2)} s = ${fmt(N / seconds)} notifications/s`,
      `  ${peer.describe}`,
      `  intake finished after ${fmt(intakeRun.elapsedMs / 1000, 2)} s (${fmt(N / (intakeRun.elapsedMs / 1000))}/s while the worker ran)` +
        (intakeRun.clientLatencyMs ? `; request → 202 p50 ${fmt(intakeRun.clientLatencyMs.p50, 1)} ms, p99 ${fmt(intakeRun.clientLatencyMs.p99, 1)} ms` : ''),
      `  intake-to-sent (worker: provider answer − intake request received): p50 ${fmt(lat.p50)} ms, p99 ${fmt(lat.p99)} ms, max ${fmt(lat.max)} ms`,
      `  worker: ${fmt(stats.sent)} sent, ${fmt(stats.retried)} retried, ${fmt(stats.failed)} failed; sandbox ledger ${fmt(ledger.entries)} entries, ${fmt(ledger.distinctKeys)} distinct keys`,
      `  ${cpuLine(usage, seconds)}`,
      `  memory (peak RSS): ${[peer.intake, peer.worker, ...(peer.redis ? [peer.redis] : [])].map((c) => `${c.name} ${fmt(peakRssMb(c.pid))} MB`).join(', ')}`,
    ];
    if (intakeRun.ok !== N) lines.push(`  WARNING: only ${intakeRun.ok}/${N} requests got 202: ${JSON.stringify(intakeRun.statuses)}`);
    return { name: 'e2e', rate: N / seconds, seconds, otherCores: usage.other! / seconds, ownCpuS: ownCpu(usage), lines };
  } finally {
    await peer.stop();
  }
}

/** VmHWM of a process, MB (NaN once it is gone). */
function peakRssMb(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------- main

/** Runs phases after waiting for a quiet machine; runs them again if other processes took CPU meanwhile. */
async function undisturbed(run: () => Promise<PhaseReport[]>): Promise<PhaseReport[]> {
  for (let attempt = 1; ; attempt++) {
    console.log(await awaitQuiet());
    const reports = await run();
    const worst = Math.max(...reports.map((r) => r.otherCores));
    const disturbed = worst > MAX_OTHER;
    for (const r of reports) for (const l of r.lines) console.log(attempt < ATTEMPTS && disturbed ? `  (discarded) ${l}` : l);
    if (!disturbed) return reports;
    if (attempt >= ATTEMPTS) {
      console.log(`WARNING: kept a disturbed run: other processes used ${fmt(worst, 2)} cores on average during it`);
      return reports;
    }
    console.log(`run discarded: other processes used ${fmt(worst, 2)} cores on average (> --max-other ${MAX_OTHER}); running it again`);
  }
}

function setupLines(sandboxUrl: string): string[] {
  const probe = baseConfig(tmpdir(), sandboxUrl);
  const cpuModel = cpus()[0]?.model ?? 'unknown';
  return [
    `Herald throughput benchmark — ${new Date().toISOString()}${HERALD_ROOT !== ROOT ? ` — build under test: ${HERALD_ROOT}` : ''}`,
    `machine: ${cpus().length} × ${cpuModel}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; Node ${process.version}`,
    `N = ${fmt(N)} per phase; channel ${CHANNEL} (one sandbox account of three gets all the work); purpose transactional; no faults, no latency`,
    `intake: ${INTAKE === 'http' ? `real HTTP API (Fastify, POST /v1/notifications, API-key auth) in the Herald process; load generator = separate process, ${CONCURRENCY} keep-alive connections, closed loop` : `IntakeService.submit called in the Herald process (no HTTP), ${CONCURRENCY} concurrent callers`}; Idempotency-Key ${flags['idempotency-key'] ? 'sent (unique per request)' : 'not sent'}`,
    `delivery: real DeliveryWorker in the Herald process, batch_size ${probe.worker.batch_size}, loops_per_account ${probe.worker.loops_per_account}, lease ${probe.worker.lease_ms} ms; real sandbox adapter over HTTP (keep-alive) to \`herald sandbox\` in a separate process (${sandboxUrl})`,
    `processes: Herald (this one: store + ${INTAKE === 'http' ? 'API + ' : 'intake + '}worker + sweeper), sandbox${INTAKE === 'http' ? ', load generator' : ''}${DRIVERS.includes('postgres') ? ', PostgreSQL server' : ''} — all on the same ${cpus().length} cores`,
    `SQLite: WAL, synchronous=${SYNCHRONOUS}; PostgreSQL: ${PG_URL.replace(/\/\/[^@]*@/, '//…@')}, Herald pool ${PG_POOL ?? 'default (10)'}`,
  ];
}

async function pgSettings(): Promise<string> {
  try {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    const v = (await c.query('SHOW server_version')).rows[0].server_version;
    const names = ['synchronous_commit', 'fsync', 'wal_sync_method', 'shared_buffers', 'max_wal_size', 'commit_delay'];
    const s: string[] = [];
    for (const n of names) s.push(`${n}=${(await c.query(`SHOW ${n}`)).rows[0][n]}`);
    await c.end();
    return `PostgreSQL ${v}: ${s.join(', ')}`;
  } catch (err) {
    return `PostgreSQL unreachable at ${PG_URL}: ${(err as Error).message}`;
  }
}

/** Drops schemas left by benchmark runs that were killed (their pid is gone). */
async function dropStaleSchemas(): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    const rows = (await c.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'herald\\_bench\\_%'")).rows as Array<{ nspname: string }>;
    for (const { nspname } of rows) {
      const pid = Number(/^herald_bench_(\d+)_/.exec(nspname)?.[1]);
      let alive = false;
      try {
        process.kill(pid, 0);
        alive = true;
      } catch {
        // ESRCH: the process that made this schema is gone, so the schema is an orphan.
      }
      if (!alive) await c.query(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`);
    }
  } finally {
    await c.end();
  }
}

const sandbox = await startSandboxProcess();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    sandbox.child.proc.kill('SIGTERM');
    process.exit(130);
  });
}
if (DRIVERS.includes('postgres')) await dropStaleSchemas().catch(() => {});
const summary: string[] = [];
const heraldE2e = new Map<string, PhaseReport>();
try {
  for (const line of setupLines(sandbox.url)) console.log(line);
  if (DRIVERS.includes('postgres')) console.log(await pgSettings());
  for (const driver of DRIVERS) {
    console.log(`\n== ${driver === 'sqlite' ? `SQLite (synchronous=${SYNCHRONOUS})` : 'PostgreSQL'} ==`);
    const reports: PhaseReport[] = [];
    if (PHASES.has('e2e')) {
      const [r] = await undisturbed(async () => [await e2ePhase(driver, sandbox)]);
      reports.push(r!);
    }
    if (PHASES.has('intake')) reports.push(...(await undisturbed(() => intakeAndDeliveryPhases(driver, sandbox))));
    if (PHASES.has('nohttp')) reports.push(...(await undisturbed(async () => [await noHttpPhase(driver, sandbox)])));
    summary.push(`${driver.padEnd(8)} ${reports.map((r) => `${r.name} ${fmt(r.rate)}/s`).join(' | ')}`);
    const e2e = reports.find((r) => r.name === 'e2e');
    if (e2e) heraldE2e.set(driver, e2e);
  }
  let peer: PhaseReport | null = null;
  if (PEER === 'bullmq' && PHASES.has('e2e')) {
    if (CHANNEL !== 'sms') console.log(`\n== BullMQ notifier: skipped (it sends SMS only; --channel ${CHANNEL}) ==`);
    else {
      console.log(`\n== BullMQ notifier (issue 16's peer), end to end over HTTP${INTAKE === 'direct' ? ' (the peer has no in-process intake)' : ''} ==`);
      if (flags['idempotency-key']) console.log('  note: the peer ignores Idempotency-Key (it has no idempotency)');
      const [r] = await undisturbed(async () => [await peerE2ePhase(sandbox)]);
      peer = r!;
      summary.push(`peer     e2e ${fmt(peer.rate)}/s (BullMQ notifier)`);
    }
  }
  console.log(`\nsummary (notifications/s): \n${summary.join('\n')}`);
  if (peer !== null && heraldE2e.size > 0) {
    const p = peer;
    console.log(
      `end-to-end throughput, Herald / BullMQ notifier: ${[...heraldE2e].map(([d, h]) => `${d} ${ratio(h.rate, p.rate)} (${fmt(h.rate)} / ${fmt(p.rate)})`).join(', ')} (issue 16 goal 4: ≥ 1.50× on both drivers)`,
    );
    const perMsg = (r: PhaseReport) => ((r.ownCpuS ?? NaN) * 1e6) / N;
    console.log(
      `CPU of the run's own processes (system + sandbox + load generator) per notification: ${[...heraldE2e].map(([d, h]) => `${d} ${fmt(perMsg(h))} µs`).join(', ')}, peer ${fmt(perMsg(p))} µs; ` +
        `Herald / peer ${[...heraldE2e].map(([d, h]) => `${d} ${ratio(perMsg(h), perMsg(p))}`).join(', ')}`,
    );
  }
  if (PROF_DIR) console.log(`CPU profiles written to ${PROF_DIR}`);
} finally {
  await stopChild(sandbox.child);
}
