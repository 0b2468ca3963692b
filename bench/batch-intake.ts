/**
 * `npm run bench:batch`: notifications per second accepted durably through
 * POST /v1/notifications/batch, on SQLite and/or PostgreSQL.
 *
 * Processes:
 * - this process is Herald: the compiled build (dist/, what `herald` runs), the `api` role as
 *   `herald api` assembles it (`createHeraldNode`: Fastify, intake, the outbox relay), on a fresh
 *   SQLite file or a fresh PostgreSQL schema; no worker, so what is measured is intake alone;
 * - the load generator is a child process (this file with `--producer`): `--concurrency`
 *   keep-alive connections, each posting batches of `--batch-size` items one after another
 *   (a closed loop) until `--n` notifications were sent;
 * - PostgreSQL is the server at --pg-url (its own processes).
 *
 * "Accepted durably" = an item answered 202: its transaction committed before the answer
 * (SQLite synchronous=FULL, PostgreSQL synchronous_commit on, Herald's defaults). After the run
 * the bench counts the deliveries in the database and refuses to print a rate if any is
 * missing. Numbers are printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { notificationBody } from './throughput/bodies.js';
import { machineBusyCpuMs, processCpuMs } from './throughput/cpu.js';
import type { Store } from '../src/store/store.js';
import type { HeraldConfig } from '../src/config/config.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

const HELP = `Usage: npm run bench:batch -- [options]

  --n N              notifications per driver (default 50000)
  --batch-size B     items per request, at most 1000 (default 1000)
  --concurrency C    batches in flight from the load generator (default 4)
  --api-processes P  PostgreSQL: P Herald API processes on the database, as \`herald api\` scales out
                     (this one and P-1 children; batches spread over them); SQLite always 1 (default 1)
  --driver D         sqlite | postgres | both (default both)
  --keys on|off      give every item its own idempotency_key (default on)
  --pg-url URL       PostgreSQL server (default $BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/test)
  --keep             keep the SQLite file / the PostgreSQL schema
`;

interface ProducerOptions {
  /** One per Herald API process; connection i posts to urls[i % urls.length]. */
  urls: string[];
  apiKey: string;
  n: number;
  batchSize: number;
  concurrency: number;
  keys: boolean;
  runId: string;
}

interface ProducerResult {
  elapsedMs: number;
  /** Items per answer status. */
  items: Record<string, number>;
  /** Requests per HTTP status. */
  requests: Record<string, number>;
  cpuMs: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

// ---------------------------------------------------------------- the load generator (child)

async function produce(o: ProducerOptions): Promise<ProducerResult> {
  const targets = o.urls.map((u) => new URL('/v1/notifications/batch', u));
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  const batches = Math.ceil(o.n / o.batchSize);
  const items: Record<string, number> = {};
  const requests: Record<string, number> = {};
  const latencies: number[] = [];
  // Bodies are built before the clock starts: the generator's JSON work is not Herald's.
  const bodies = Array.from({ length: batches }, (_, b) => {
    const size = Math.min(o.batchSize, o.n - b * o.batchSize);
    return JSON.stringify({
      items: Array.from({ length: size }, (_, j) => {
        const i = b * o.batchSize + j;
        return { ...notificationBody('sms', o.runId, i), ...(o.keys ? { idempotency_key: `${o.runId}-${i}` } : {}) };
      }),
    });
  });
  const post = (target: URL, body: string) =>
    new Promise<{ status: number; text: string }>((ok, fail) => {
      const req = http.request(
        target,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => ok({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, connection) => {
      while (next < batches) {
        const body = bodies[next++]!;
        const s = performance.now();
        const r = await post(targets[connection % targets.length]!, body);
        latencies.push(performance.now() - s);
        requests[r.status] = (requests[r.status] ?? 0) + 1;
        if (r.status !== 200) continue;
        for (const x of (JSON.parse(r.text) as { results: Array<{ status: number }> }).results) items[x.status] = (items[x.status] ?? 0) + 1;
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    elapsedMs,
    items,
    requests,
    cpuMs: (cpu.user + cpu.system) / 1000,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] ?? NaN },
  };
}

if (process.argv[2] === '--producer') {
  const result = await produce(JSON.parse(process.argv[3]!) as ProducerOptions);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

// ---------------------------------------------------------------- Herald

async function dist<T>(rel: string): Promise<T> {
  return (await import(new URL(`dist/${rel}`, `file://${ROOT}/`).href)) as T;
}
const nodeMod = await dist<typeof import('../src/runtime/node.js')>('runtime/node.js');
const configMod = await dist<typeof import('../src/config/config.js')>('config/config.js');
const authMod = await dist<typeof import('../src/tenants/api-keys.js')>('tenants/api-keys.js');

/** What `herald api` runs on this database: the api role, no worker (the accounts only have to exist for intake to route to them). */
function heraldConfig(dataDir: string): HeraldConfig {
  // One key and one number for every code: the per-key quota counts (its cost is measured) but cannot refuse; no code velocity rules.
  const limits = { requests: { limit: 10_000_000, window_s: 60 }, velocity: { otp: {} } };
  const config = configMod.resolveConfig({ data_dir: dataDir, limits }, { port: 0, host: '127.0.0.1', sandbox: false });
  config.provider_accounts = configMod.sandboxAccounts('http://127.0.0.1:9');
  return config;
}

/** Starts the api role on a store; returns its URL and how to stop it. */
async function startApi(config: HeraldConfig, store: Store): Promise<{ url: string; close(): Promise<void> }> {
  const node = await nodeMod.createHeraldNode({ config, roles: ['api'], logger: pino({ level: 'silent' }), store });
  return { url: (await node.start())!, close: () => node.close() };
}

// A further `herald api` process of a PostgreSQL run (--api-processes): prints its URL, stops when stdin closes.
if (process.argv[2] === '--serve') {
  const o = JSON.parse(process.argv[3]!) as { dataDir: string; env: NodeJS.ProcessEnv };
  const config = heraldConfig(o.dataDir);
  const store = await nodeMod.openStore(config, o.env);
  const api = await startApi(config, store);
  process.stdout.write(`url ${api.url}\n`);
  process.stdin.resume();
  await new Promise((r) => process.stdin.on('end', r));
  await api.close();
  await store.close();
  process.exit(0);
}

// ---------------------------------------------------------------- Herald (this process)

const { values: flags } = parseArgs({
  options: {
    n: { type: 'string', default: '50000' },
    'batch-size': { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '4' },
    'api-processes': { type: 'string', default: '1' },
    driver: { type: 'string', default: 'both' },
    keys: { type: 'string', default: 'on' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    keep: { type: 'boolean', default: false },
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
const positive = (v: string, name: string, max = Infinity): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) fail(`--${name} must be an integer from 1 to ${max}`);
  return n;
};
const N = positive(flags.n, 'n');
const BATCH_SIZE = positive(flags['batch-size'], 'batch-size', 1000);
const CONCURRENCY = positive(flags.concurrency, 'concurrency');
const API_PROCESSES = positive(flags['api-processes'], 'api-processes', 16);
const DRIVERS = flags.driver === 'both' ? (['sqlite', 'postgres'] as const) : [flags.driver as 'sqlite' | 'postgres'];
if (!DRIVERS.every((d) => d === 'sqlite' || d === 'postgres')) fail('--driver must be sqlite, postgres or both');
if (flags.keys !== 'on' && flags.keys !== 'off') fail('--keys must be on or off');
const KEYS = flags.keys === 'on';
const PG_URL = flags['pg-url'];

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';
const TENANT = 'bench';

/** Runs the load generator to the end and returns what it printed. */
function runProducer(o: ProducerOptions): Promise<ProducerResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--producer', JSON.stringify(o)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ok, no) => {
    let result: ProducerResult | null = null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{')) result = JSON.parse(line) as ProducerResult;
    });
    child.on('exit', (code) => (result ? ok(result) : no(new Error(`the load generator exited with ${code}`))));
  });
}

async function runDriver(driver: 'sqlite' | 'postgres'): Promise<void> {
  const runId = `${process.pid}-${driver}`;
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-batch-'));
  const schema = `herald_bench_batch_${process.pid}`;
  // PostgreSQL needs a content key (content is sealed at rest); every API process gets the same one.
  const env: NodeJS.ProcessEnv =
    driver === 'postgres' ? { DATABASE_URL: PG_URL, HERALD_PG_SCHEMA: schema, HERALD_CONTENT_KEY: randomBytes(32).toString('base64') } : {};
  if (driver === 'postgres') {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  }
  const config = heraldConfig(dir);
  const store: Store = await nodeMod.openStore(config, env);
  await store.ensureTenant({ id: TENANT, name: 'Bench' }, Date.now());
  // An account assigned to nobody is the default tenant's (docs/tenants.md): give the bench's tenant its own.
  for (const a of config.provider_accounts) await store.tenants.assignAccount(TENANT, a.id, Date.now());
  const apiKey = authMod.generateApiKey();
  await store.createApiKey({ id: `key_${runId}`, tenantId: TENANT, keyHash: authMod.hashApiKey(apiKey), label: 'bench', now: Date.now() });
  const api = await startApi(config, store);
  const extra = await Promise.all(Array.from({ length: driver === 'postgres' ? API_PROCESSES - 1 : 0 }, () => spawnApi(dir, env)));
  const urls = [api.url, ...extra.map((e) => e.url)];
  try {
    // Warm-up (JIT, prepared statements, pool connections), not counted.
    await runProducer({ urls, apiKey, n: 2 * BATCH_SIZE * urls.length, batchSize: BATCH_SIZE, concurrency: CONCURRENCY, keys: KEYS, runId: `${runId}-warm` });
    const before = await totalDeliveries(store);
    // PostgreSQL's side: the backends serving this database (Herald's pool, warm now), read from /proc.
    const backends = driver === 'postgres' ? await backendPids() : [];
    const backend0 = backends.reduce((a, pid) => a + processCpuMs(pid), 0);
    const machine0 = machineBusyCpuMs();
    const cpu0 = process.cpuUsage();
    const children0 = extra.reduce((a, e) => a + processCpuMs(e.pid), 0);
    const wal0 = driver === 'postgres' ? await walLsn() : null;
    const r = await runProducer({ urls, apiKey, n: N, batchSize: BATCH_SIZE, concurrency: CONCURRENCY, keys: KEYS, runId });
    const cpu = process.cpuUsage(cpu0);
    const machineMs = machineBusyCpuMs() - machine0;
    const backendMs = backends.reduce((a, pid) => a + processCpuMs(pid), 0) - backend0;
    const heraldMs = (cpu.user + cpu.system) / 1000 + extra.reduce((a, e) => a + processCpuMs(e.pid), 0) - children0;
    // Cluster-wide: other databases' writes on the same server are counted too.
    const walBytes = wal0 === null ? null : await walSince(wal0);
    const stored = (await totalDeliveries(store)) - before;
    const accepted = r.items['202'] ?? 0;
    const label =
      driver === 'postgres'
        ? `PostgreSQL (${new URL(PG_URL).host}, schema ${schema})`
        : `SQLite (${nodeMod.databasePath(dir)}, synchronous=${config.database.synchronous})`;
    process.stdout.write(
      [
        `\n${label}`,
        `  ${fmt(N)} notifications in ${fmt(Math.ceil(N / BATCH_SIZE))} batches of ${BATCH_SIZE}, ${CONCURRENCY} in flight, ${urls.length} Herald API process(es), idempotency_key per item: ${KEYS ? 'yes' : 'no'}`,
        `  requests by status: ${JSON.stringify(r.requests)}; items by status: ${JSON.stringify(r.items)}; stored: ${fmt(stored)}`,
        stored === accepted && accepted === N
          ? `  accepted durably: ${fmt((accepted / r.elapsedMs) * 1000)} notifications/s (${fmt(r.elapsedMs / 1000, 2)} s)`
          : `  NOT every item was accepted and stored (${fmt(accepted)} answered 202, ${fmt(stored)} stored): no rate printed`,
        `  per batch request: p50 ${fmt(r.latencyMs.p50)} ms, p99 ${fmt(r.latencyMs.p99)} ms, max ${fmt(r.latencyMs.max)} ms`,
        `  CPU per notification: Herald (all API processes) ${fmt(heraldMs / N, 3)} ms, load generator ${fmt(r.cpuMs / N, 3)} ms` +
          (driver === 'postgres' ? `, PostgreSQL backends ${fmt(backendMs / N, 3)} ms` : ''),
        ...(walBytes === null ? [] : [`  WAL: ${fmt(walBytes / N)} bytes per notification (the server's whole WAL during the run, other databases included)`]),
        `  machine: ${fmt(machineMs / r.elapsedMs, 2)} of ${cpus().length} cores busy, of which other processes ${fmt(Math.max(0, machineMs - heraldMs - r.cpuMs - backendMs) / r.elapsedMs, 2)}`,
      ].join('\n') + '\n',
    );
  } finally {
    for (const e of extra) await e.close();
    await api.close();
    await store.close();
    if (!flags.keep) {
      rmSync(dir, { recursive: true, force: true });
      if (driver === 'postgres') {
        const c = new pg.Client({ connectionString: PG_URL });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await c.end();
      }
    }
  }
}

/** A further API process on the same database (this file with --serve); resolves once it listens. */
function spawnApi(dataDir: string, env: NodeJS.ProcessEnv): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', JSON.stringify({ dataDir, env })], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return new Promise((ok, no) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('url ')) return;
      ok({
        url: line.slice(4),
        pid: child.pid!,
        close: async () => {
          child.stdin.end();
          await exited;
        },
      });
    });
    child.on('exit', (code) => no(new Error(`an API process exited with ${code} before listening`)));
  });
}

/** The server processes of the connections to --pg-url's database (Herald's pool), other than ours. */
async function backendPids(): Promise<number[]> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    const r = await c.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return r.rows.map((x: { pid: number }) => Number(x.pid));
  } finally {
    await c.end();
  }
}

/** The server's current WAL position. */
async function walLsn(): Promise<string> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return String((await c.query('SELECT pg_current_wal_lsn() AS l')).rows[0].l);
  } finally {
    await c.end();
  }
}

/** WAL bytes written since `lsn`. */
async function walSince(lsn: string): Promise<number> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return Number((await c.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS b', [lsn])).rows[0].b);
  } finally {
    await c.end();
  }
}

async function totalDeliveries(store: Store): Promise<number> {
  return Object.values(await store.countByState()).reduce((a, b) => a + b, 0);
}

process.stdout.write(`bench:batch on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}\n`);
for (const driver of DRIVERS) await runDriver(driver);
