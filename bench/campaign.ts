/**
 * `npm run bench:campaign` (issue 6's benchmark; numbers are printed, never asserted): a campaign
 * of N recipients (default 100,000; `--big` 600,000) through `herald api` + `--workers` ×
 * `herald worker` on PostgreSQL, to the sandbox provider limited to R sms per second (default
 * 2,000), while one-time codes arrive at `--otp-rate` per second (default 20). It prints the
 * drain time against the lower bound N / (R − OTP actually sent), the most sms the sandbox
 * received in one second, the 429s it answered, OTP latency from intake to sandbox receipt, and
 * each worker's peak memory, against the issue's targets. Then (unless `--peer none`) the same
 * workload through the BullMQ notifier of issue 16 (bench/peers/bullmq-notifier), refereed by a
 * fresh sandbox with the same quota and measured by the same code, and the Herald / peer ratios.
 * See docs/benchmarks.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CAMPAIGN_PHONE_PREFIX, uploadAudience } from './campaign/audience.js';
import { api, memoryMb, startHerald, type HeraldProcesses } from './campaign/herald.js';
import { measure, type OtpFigures, type Spread } from './campaign/measure.js';
import { runPeerCampaign, type CampaignRun } from './campaign/peer-run.js';
import { ratio, textTable } from './peers/compare.js';
import { startOtpTraffic, type OtpTraffic } from './campaign/otp.js';
import { startReferee, type Referee } from './campaign/referee.js';
import { startWaitSampler, type WaitSample } from './campaign/wait-sampler.js';
import { deriveRates, heraldConfig, type BenchSettings, type DomainModule } from './campaign/settings.js';
import { dropSchema, provideDatabase, schemaClient, type ChaosDatabase } from './chaos/database.js';
import { killAllChildren, requireBuild, ROOT } from './chaos/processes.js';
import { postgresCpuMs } from './campaign/postgres-cpu.js';
import { machineBusyCpuMs, parentPid, processCpuMs, startCpuMeter } from './throughput/cpu.js';

/** One content key for every Herald process of this run: PostgreSQL refuses to start without one (docs/retention.md). */
const CONTENT_KEY = randomBytes(32).toString('base64');

const HELP = `Usage: npm run bench:campaign -- [flags]

  --n N              recipients (default 100000)
  --big              600,000 recipients (overrides --n)
  --rate R           the sandbox's sms quota per second (default 2000)
  --workers W        herald worker processes (default 4)
  --otp-rate O       one-time codes per second during the campaign (default 20)
  --burst B          the account's burst (default 64: one claim can fill a batch)
  --skew-ms J        skew budget for quotaSafeRate: spread between a permit and its receipt (default 100)
  --auth-headroom H  auth lane guaranteed rate = H × OTP rate (default 1.25)
  --batch S          worker.batch_size (default 64)
  --loops L          worker.loops_per_account (default 2)
  --sweep-ms M       worker.sweep_interval_ms: the campaign runner's pass interval (default 1000, Herald's)
  --referee-nice P   scheduling priority of this process, which hosts the sandbox (default -10)
  --quiet-wait S     wait up to S seconds for an idle machine before starting (default 120)
  --settle-timeout S after the last campaign send, stop waiting for stragglers after S seconds (default 120)
  --baseline-s S     OTPs alone for S seconds before the campaign, for the path's own latency (default 5)
  --peer P           bullmq (default): then run the same workload through the BullMQ notifier
                     (bench/peers/bullmq-notifier) and print Herald / peer ratios; none: Herald only
  --peer-redis URL   the peer's Redis (its own key prefix, only its keys deleted); default: a
                     redis-server of its own without persistence
  --keep             keep Herald's PostgreSQL schema afterwards (to inspect what was left queued)

Database: DATABASE_URL (a throwaway schema, dropped afterwards), else an embedded PostgreSQL.
`;

const { values: flags } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    big: { type: 'boolean', default: false },
    rate: { type: 'string', default: '2000' },
    workers: { type: 'string', default: '4' },
    'otp-rate': { type: 'string', default: '20' },
    burst: { type: 'string', default: '64' },
    'skew-ms': { type: 'string', default: '100' },
    'auth-headroom': { type: 'string', default: '1.25' },
    batch: { type: 'string', default: '64' },
    loops: { type: 'string', default: '2' },
    'sweep-ms': { type: 'string', default: '1000' },
    'referee-nice': { type: 'string', default: '-10' },
    'quiet-wait': { type: 'string', default: '120' },
    'settle-timeout': { type: 'string', default: '120' },
    'baseline-s': { type: 'string', default: '5' },
    peer: { type: 'string', default: 'bullmq' },
    'peer-redis': { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function num(name: string, value: string | undefined, min: number, integer = true): number {
  const v = Number(value);
  if (!Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
    process.stderr.write(`--${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${min}, got ${value}\n${HELP}`);
    process.exit(2);
  }
  return v;
}

const settings: BenchSettings = {
  n: flags.big ? 600_000 : num('n', flags.n, 1),
  quota: num('rate', flags.rate, 1),
  workers: num('workers', flags.workers, 1),
  otpRate: num('otp-rate', flags['otp-rate'], 0.1, false),
  burst: num('burst', flags.burst, 1),
  skewMs: num('skew-ms', flags['skew-ms'], 0, false),
  authHeadroom: num('auth-headroom', flags['auth-headroom'], 1, false),
  batchSize: num('batch', flags.batch, 1),
  loops: num('loops', flags.loops, 1),
  sweepIntervalMs: num('sweep-ms', flags['sweep-ms'], 10),
  pollIntervalMs: 1_000,
};
const REFEREE_NICE = num('referee-nice', flags['referee-nice'], -20);
const QUIET_WAIT_S = num('quiet-wait', flags['quiet-wait'], 0, false);
const SETTLE_TIMEOUT_S = num('settle-timeout', flags['settle-timeout'], 1, false);
const BASELINE_S = num('baseline-s', flags['baseline-s'], 0, false);
const PEER = flags.peer as 'bullmq' | 'none';
if (PEER !== 'bullmq' && PEER !== 'none') {
  process.stderr.write(`--peer must be bullmq or none, got ${flags.peer}\n${HELP}`);
  process.exit(2);
}
/** The bench process's scheduling priority, as set in main(). */
let referenceNice = 'normal priority';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const log = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—');
const ms = (s: Spread) => `${fmt(s.p50)} / ${fmt(s.p99)} / ${fmt(s.max)} ms`;

async function dist<T>(rel: string): Promise<T> {
  return (await import(new URL(`dist/${rel}`, `file://${ROOT}/`).href)) as T;
}

/** Waits up to QUIET_WAIT_S for a 2 s window in which the machine is (nearly) idle. */
async function awaitQuiet(): Promise<string> {
  const deadline = performance.now() + QUIET_WAIT_S * 1000;
  let busy = NaN;
  do {
    const b0 = machineBusyCpuMs();
    await sleep(2_000);
    busy = (machineBusyCpuMs() - b0) / 2_000;
    if (busy < 0.25) return `machine idle before the run (${fmt(busy * 100)}% of a core busy)`;
  } while (performance.now() < deadline);
  return `WARNING: machine still busy before the run (${fmt(busy * 100)}% of a core used by other processes)`;
}

type SandboxModule = typeof import('../src/sandbox/index.js');

async function main(): Promise<number> {
  requireBuild();
  const domain = await dist<DomainModule>('domain/index.js');
  const sandboxMod = await dist<SandboxModule>('sandbox/index.js');
  const rates = deriveRates(settings, domain);
  const s = settings;

  log(`bench:campaign — ${fmt(s.n)} recipients, sandbox sms quota ${fmt(s.quota)}/s, ${s.workers} workers, OTP ${fmt(s.otpRate, 1)}/s`);
  log(
    `  account: rate_per_second ${fmt(rates.accountRate, 2)} (= quotaSafeRate({quota: ${s.quota}, burst: ${s.burst}, skewMs: ${s.skewMs}}); enforced ${fmt(rates.accountRateEffective, 2)}/s), burst ${s.burst}`,
  );
  log(`           at most ${fmt(rates.worstSecond)} sends received in any second if every send arrives within ${s.skewMs} ms of every other granted with it`);
  log(`  lanes:   ${JSON.stringify(rates.lanes)}`);
  for (const b of rates.budgets) {
    log(
      `           ${b.name}: guaranteed ${fmt(b.guaranteed_rate, 2)}/s, max ${fmt(b.max_rate, 2)}/s, slots ${b.guaranteed_concurrency}..${b.max_concurrency}`,
    );
  }
  log(`  worker:  batch_size ${s.batchSize}, loops_per_account ${s.loops}, sweep_interval_ms ${s.sweepIntervalMs}, poll_interval_ms ${s.pollIntervalMs}`);

  const quiet = QUIET_WAIT_S > 0 ? await awaitQuiet() : 'quiet wait skipped';
  log(`  ${quiet}`);

  try {
    // The sandbox lives in this process: its received_at must be arrival time, not arrival plus
    // however long two busy cores kept its event loop waiting (as the chaos run does for its sandbox).
    setPriority(process.pid, REFEREE_NICE);
    referenceNice = `nice ${getPriority(process.pid)}`;
  } catch (err) {
    log(`  could not set this process's priority (${(err as Error).message}); sandbox timestamps may lag under load`);
  }

  log(`\n=== Herald: herald api + ${s.workers} × herald worker on PostgreSQL ===`);
  const herald = await runHerald(sandboxMod, rates, quiet);
  if (PEER === 'none') return 0;

  log(`\n=== the BullMQ notifier (issue 16's peer), same workload, same referee ===`);
  const peerQuiet = QUIET_WAIT_S > 0 ? await awaitQuiet() : 'quiet wait skipped';
  log(`  ${peerQuiet}`);
  const peer = await runPeerCampaign({
    sandbox: sandboxMod,
    n: s.n,
    quota: s.quota,
    otpRate: s.otpRate,
    baselineS: BASELINE_S,
    settleTimeoutS: SETTLE_TIMEOUT_S,
    ...(flags['peer-redis'] ? { redisUrl: flags['peer-redis'] } : {}),
    log,
    fmt,
  });
  reportPeer(peer, peerQuiet);
  compare(herald, peer);
  return 0;
}

/** The campaign through Herald (api + workers on PostgreSQL); prints Herald's full report. */
async function runHerald(sandboxMod: SandboxModule, rates: ReturnType<typeof deriveRates>, quiet: string): Promise<CampaignRun> {
  const s = settings;
  const schema = `herald_bench_cmp_${randomBytes(5).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-campaign-'));
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  const appName = `herald-${schema}`;
  let db: ChaosDatabase | null = null;
  let referee: Referee | null = null;
  let herald: HeraldProcesses | null = null;
  let otp: OtpTraffic | null = null;
  try {
    db = await provideDatabase();
    log(
      `  database: ${db.source === 'embedded' ? 'embedded PostgreSQL (fsync off)' : 'DATABASE_URL'}, schema ${schema}; bench process (sandbox + OTP client): ${referenceNice}`,
    );
    referee = await startReferee(sandboxMod, s.quota);
    const configFile = join(dir, 'herald.json');
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(configFile, JSON.stringify(heraldConfig(s, rates, referee.url), null, 2));
    herald = await startHerald({
      workers: s.workers,
      configFile,
      dataDir,
      // PGAPPNAME tags Herald's sessions, so the wait sampler sees only this run's.
      env: { DATABASE_URL: db.url, HERALD_PG_SCHEMA: schema, HERALD_BOOTSTRAP_KEY: apiKey, PGAPPNAME: appName, HERALD_CONTENT_KEY: CONTENT_KEY },
    });
    const { apiUrl } = herald;
    const pgClient = await schemaClient(db.url, schema);
    const postmaster = parentPid(Number((await pgClient.query('SELECT pg_backend_pid() AS pid')).rows[0].pid));

    // ---- Audience, streamed.
    const audience = await uploadAudience(apiUrl, apiKey, s.n);
    log(
      `\naudience ${audience.id}: ${fmt(audience.size)} recipients uploaded in ${fmt(audience.seconds, 1)} s (${fmt(audience.size / audience.seconds)} rows/s, NDJSON streamed)`,
    );

    // ---- The campaign: a draft first (its plan), then /start (planned again for now).
    const deadlineAt = new Date(Date.now() + Math.ceil(rates.configBestSeconds * 1.5 + 120) * 1000).toISOString();
    type Campaign = {
      id: string;
      status: string;
      plan: Record<string, unknown>;
      lane: string;
      lane_rate: number;
      progress: Record<string, unknown>;
      started_at: string | null;
      finished_at: string | null;
    };
    const draft = await api<Campaign>(apiUrl, apiKey, 'POST', '/v1/campaigns', 201, {
      name: 'bench',
      channel: 'sms',
      purpose: 'marketing',
      content: { text: 'Sale: everything must go. Reply STOP to opt out.' },
      deadline_at: deadlineAt,
      audience: { audience_id: audience.id },
    });
    log(`campaign ${draft.id}: ${draft.status}, lane ${draft.lane} at ${fmt(draft.lane_rate, 2)}/s, deadline ${deadlineAt}`);

    // ---- Baseline: OTPs alone for a few seconds (Herald otherwise idle), the path's own latency.
    let baseline: OtpTraffic | null = null;
    if (BASELINE_S > 0) {
      baseline = startOtpTraffic({ apiUrl, apiKey, rate: s.otpRate, firstIndex: 1_000_000 });
      await sleep(BASELINE_S * 1000);
      await baseline.stop();
      await sleep(1_000); // the last codes reach the sandbox
      log(`baseline: ${baseline.records.length} OTPs in ${BASELINE_S} s with no campaign running`);
    }

    // ---- Go: OTP traffic and the campaign start together; CPU accounted from here.
    const workerPids = herald.workers.map((w) => w.pid);
    const groups = {
      'bench (sandbox + OTP client)': () => processCpuMs(process.pid),
      api: () => processCpuMs(herald!.api.pid),
      workers: () => workerPids.reduce((a, p) => a + processCpuMs(p), 0),
      postgres: () => (postmaster ? postgresCpuMs(postmaster) : 0),
    };
    const meter = startCpuMeter(groups);
    // Other processes on this shared VM (invisible here, but counted by /proc/stat) are shown per window.
    let window = startCpuMeter(groups);
    let campaignSent = 0;
    let otpSent = 0;
    let lastCampaignAt = Date.now();
    referee.onRecord((e) => {
      if (e.destination.startsWith(CAMPAIGN_PHONE_PREFIX)) {
        campaignSent++;
        lastCampaignAt = Date.now();
      } else otpSent++;
    });
    const limiterBefore = await limiterTraffic(pgClient, schema);
    const serverBefore = await serverActivity(pgClient, schema);
    const waits = await startWaitSampler(db.url, appName);
    otp = startOtpTraffic({ apiUrl, apiKey, rate: s.otpRate });
    const startedAt = Date.now();
    const started = await api<Campaign>(apiUrl, apiKey, 'POST', `/v1/campaigns/${draft.id}/start`, 200);
    log(`started: ${started.status}; plan ${JSON.stringify(started.plan)}\n`);

    // ---- Wait for the last campaign message (progress from the referee: no API load meanwhile).
    let lastLine = startedAt;
    let lastCount = 0;
    let incomplete: string | null = null;
    for (;;) {
      await sleep(100);
      const now = Date.now();
      const crash = herald.crashed();
      if (crash) throw new Error(crash);
      if (campaignSent >= s.n) break;
      if (now - lastCampaignAt > SETTLE_TIMEOUT_S * 1000 && campaignSent > 0) {
        incomplete = `no campaign message for ${SETTLE_TIMEOUT_S} s with ${fmt(s.n - campaignSent)} not sent`;
        break;
      }
      if (now - startedAt > Math.max(600, rates.configBestSeconds * 4) * 1000) {
        incomplete = `gave up after ${fmt((now - startedAt) / 1000)} s with ${fmt(s.n - campaignSent)} not sent`;
        break;
      }
      if (now - lastLine >= 5_000) {
        const fanned = await pgClient
          .query('SELECT fanned_out FROM campaigns WHERE id = $1', [draft.id])
          .then((r) => Number(r.rows[0]?.fanned_out ?? NaN))
          .catch(() => NaN);
        const w = window.stop();
        window = startCpuMeter(groups);
        const secs = (now - lastLine) / 1000;
        log(
          `  t=${fmt((now - startedAt) / 1000)}s fanned out ${fmt(fanned)}, sent ${fmt(campaignSent)}/${fmt(s.n)} (${fmt((campaignSent - lastCount) / secs)}/s), OTP ${fmt(otpSent)}/${fmt(otp.records.length)}, ` +
            `429s ${fmt(referee.refused())}; cores busy ${fmt(w.machine! / secs, 2)} (workers ${fmt(w.workers! / secs, 2)}, postgres ${fmt(w.postgres! / secs, 2)}, bench ${fmt(w['bench (sandbox + OTP client)']! / secs, 2)}, other ${fmt(w.other! / secs, 2)})`,
        );
        lastLine = now;
        lastCount = campaignSent;
      }
    }
    await otp.stop();
    const cpu = meter.stop();
    const cpuSeconds = (Date.now() - startedAt) / 1000;
    const waited = await waits.stop();
    await sleep(1_100); // table statistics are flushed at most once a second
    const limiterAfter = await limiterTraffic(pgClient, schema);
    const serverAfter = await serverActivity(pgClient, schema);
    const server = {
      walBytes: serverAfter.walBytes - serverBefore.walBytes,
      checkpoints: serverAfter.checkpoints - serverBefore.checkpoints,
      autovacuums: serverAfter.autovacuums - serverBefore.autovacuums,
    };
    const limiter = {
      scans: limiterAfter.scans - limiterBefore.scans,
      rowUpdates: limiterAfter.rowUpdates - limiterBefore.rowUpdates,
      attempts: limiterAfter.attempts - limiterBefore.attempts,
      seconds: (limiterAfter.at - limiterBefore.at) / 1000,
    };
    // The last codes were accepted by intake just now: give them time to reach the sandbox.
    const otpDeadline = Date.now() + 5_000;
    while (otpSent < otp.records.filter((r) => r.status === 202).length && Date.now() < otpDeadline) await sleep(20);

    const memory = [herald.api, ...herald.workers].map((c) => ({ name: c.name, mem: memoryMb(c.pid) }));
    // `completed` is set by the runner's next pass once nothing is in flight.
    let final = await api<Campaign>(apiUrl, apiKey, 'GET', `/v1/campaigns/${draft.id}`, 200);
    for (let i = 0; i < 40 && final.status === 'running' && !incomplete; i++) {
      await sleep(250);
      final = await api<Campaign>(apiUrl, apiKey, 'GET', `/v1/campaigns/${draft.id}`, 200);
    }
    // Herald's side of the story: every 429 it saw is an attempt with outcome throttled; each
    // accepted attempt's started_at is the `now` its permit was granted at (for the skew).
    const throttledHerald = Number(
      (await pgClient.query(`SELECT count(*)::int AS n FROM attempts WHERE outcome = 'throttled' OR late_outcome = 'throttled'`)).rows[0].n,
    );
    const permitAt = new Map<string, number>();
    const rows = await pgClient.query({
      text: `SELECT d.idempotency_key AS k, a.started_at AS t FROM attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE a.outcome = 'accepted'`,
      rowMode: 'array',
    });
    for (const [k, t] of rows.rows as Array<[string, string]>) permitAt.set(k, Number(t));
    const otpRows = new Map<string, { createdAt: number; permitAt: number | null }>();
    const otpQuery = await pgClient.query({
      text: `SELECT d.destination, n.created_at, a.started_at FROM deliveries d JOIN notifications n ON n.id = d.notification_id
             LEFT JOIN attempts a ON a.delivery_id = d.id AND a.number = 1 WHERE d.purpose = 'otp'`,
      rowMode: 'array',
    });
    for (const [dest, created, permit] of otpQuery.rows as Array<[string, string, string | null]>) {
      otpRows.set(dest, { createdAt: Number(created), permitAt: permit === null ? null : Number(permit) });
    }
    await pgClient.end();

    const m = measure({
      entries: referee.handle.ledger.entries({ channel: 'sms' }),
      refusedPerSecond: referee.refusedPerSecond,
      quota: s.quota,
      startedAt,
      otp: otp.records,
      ...(baseline ? { baselineOtp: baseline.records } : {}),
      permitAt,
      otpRows,
    });
    report({ m, rates, final, cpu, cpuSeconds, memory, throttledHerald, incomplete, quiet, waited, limiter, server });
    return { m, incomplete, memory: memory.map((x) => ({ name: x.name, peak: x.mem?.peak ?? NaN })), cpu, cpuSeconds };
  } finally {
    await otp?.stop().catch(() => {});
    if (herald) await Promise.all([herald.api, ...herald.workers].map((c) => c.stop(5_000)));
    await killAllChildren();
    await referee?.close().catch(() => {});
    if (db) {
      if (flags.keep) log(`kept schema ${schema} (--keep)`);
      else await dropSchema(db.url, schema).catch((err: Error) => log(`could not drop schema ${schema}: ${err.message}`));
      await db.stop();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Cumulative scans and row updates of the run's rate_limiters table, and attempts inserted (statistics views, read-only). */
async function limiterTraffic(c: import('pg').Client, schema: string): Promise<{ scans: number; rowUpdates: number; attempts: number; at: number }> {
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

/** Cluster-wide WAL position and checkpoint count, and autovacuum/analyze runs on the run's tables (statistics views, read-only). */
async function serverActivity(c: import('pg').Client, schema: string): Promise<{ walBytes: number; checkpoints: number; autovacuums: number }> {
  const r = await c.query(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS wal,
            (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)::int AS checkpoints,
            (SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM pg_stat_user_tables WHERE schemaname = $1)::int AS autovacuums`,
    [schema],
  );
  const row = r.rows[0] as { wal: number; checkpoints: number; autovacuums: number };
  return { walBytes: Number(row.wal), checkpoints: row.checkpoints, autovacuums: row.autovacuums };
}

function report(r: {
  m: ReturnType<typeof measure>;
  rates: ReturnType<typeof deriveRates>;
  final: { status: string; progress: Record<string, unknown> };
  cpu: Record<string, number>;
  cpuSeconds: number;
  memory: Array<{ name: string; mem: { peak: number; now: number } | null }>;
  throttledHerald: number;
  incomplete: string | null;
  quiet: string;
  waited: WaitSample;
  limiter: { scans: number; rowUpdates: number; attempts: number; seconds: number };
  server: { walBytes: number; checkpoints: number; autovacuums: number };
}): void {
  const { m, rates } = r;
  const s = settings;
  const otpActual = m.otp.rateDuringDrain;
  const lower = s.n / (s.quota - otpActual);
  const workerPeak = Math.max(...r.memory.filter((x) => x.name.startsWith('worker')).map((x) => x.mem?.peak ?? NaN));
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

  log(`\n=== results ===`);
  if (r.incomplete) log(`WARNING: the campaign did not finish: ${r.incomplete}`);
  log(`campaign final status ${r.final.status}; progress ${JSON.stringify(r.final.progress)}`);
  log(`campaign messages in the ledger: ${fmt(m.campaign.entries)} (${fmt(m.campaign.distinctKeys)} distinct keys)`);
  log(
    `OTP: ${fmt(m.otp.requested)} requested, ${fmt(m.otp.answered202)} answered 202${Object.keys(m.otp.otherAnswers).length ? ` (others ${JSON.stringify(m.otp.otherAnswers)})` : ''}, ${fmt(m.otp.delivered)} received by the sandbox; ${fmt(m.otp.duringDrain)} during the drain = ${fmt(otpActual, 2)}/s`,
  );
  log('');
  log(
    `drain time: ${fmt(m.campaign.drainSeconds, 2)} s = start → first campaign message ${fmt(m.campaign.startupSeconds, 2)} s + sending ${fmt(m.campaign.sendingSeconds, 2)} s at ${fmt(m.campaign.sendingRate, 1)}/s`,
  );
  log(`  issue's lower bound N / (R − OTP sent) = ${fmt(s.n)} / (${fmt(s.quota)} − ${fmt(otpActual, 2)}) = ${fmt(lower, 2)} s`);
  log(
    `  this configuration's best N / bulk lane rate = ${fmt(s.n)} / ${fmt(rates.bulkRateEffective, 2)} = ${fmt(rates.configBestSeconds, 2)} s (account rate ${fmt(rates.accountRateEffective, 2)}/s = quotaSafeRate with burst ${s.burst}, skew ${s.skewMs} ms; auth reserves ${fmt(rates.accountRateEffective - rates.bulkRateEffective, 2)}/s)`,
  );
  log(
    `  campaign messages per full second while sending: min ${fmt(m.campaign.perSecond.min)}, p1 ${fmt(m.campaign.perSecond.p1)}, median ${fmt(m.campaign.perSecond.p50)}, max ${fmt(m.campaign.perSecond.max)} (${m.campaign.perSecond.count} seconds)`,
  );
  log(
    `sandbox: most sms received in one second ${fmt(m.sandbox.maxReceivedPerSecond)} (accepted ${fmt(m.sandbox.maxAcceptedPerSecond)}; seconds above ${fmt(s.quota)}: ${m.sandbox.secondsAboveQuota})`,
  );
  log(
    `429s: ${fmt(m.sandbox.refused429)} answered by the sandbox's quota (counted at the sandbox); Herald recorded ${fmt(r.throttledHerald)} throttled attempts`,
  );
  if (m.skew) {
    log(
      `permit → sandbox receipt (received_at − attempts.started_at), ms: campaign min ${fmt(m.skew.campaign.min)} / p50 ${fmt(m.skew.campaign.p50)} / p99 ${fmt(m.skew.campaign.p99)} / max ${fmt(m.skew.campaign.max)}; OTP min ${fmt(m.skew.otp.min)} / p50 ${fmt(m.skew.otp.p50)} / p99 ${fmt(m.skew.otp.p99)} / max ${fmt(m.skew.otp.max)}`,
    );
    log(
      `  observed skew (max − min over every send) ${fmt(Math.max(m.skew.campaign.max, m.skew.otp.max) - Math.min(m.skew.campaign.min, m.skew.otp.min))} ms vs the ${s.skewMs} ms budgeted`,
    );
  }
  const otpLines = (label: string, o: OtpFigures) => {
    log(`${label}: ${fmt(o.delivered)}/${fmt(o.requested)} received; intake → sandbox p50 / p99 / max ${ms(o.latency)}; intake answer (202) ${ms(o.intake)}`);
    if (o.stages) {
      log(
        `  request → notification created_at ${ms(o.stages.toCreated)}; created_at → permit (claim) ${ms(o.stages.toPermit)}; permit → sandbox receipt ${ms(o.stages.toReceipt)}`,
      );
    }
  };
  if (m.baselineOtp) otpLines('OTP latency, no campaign (baseline)', m.baselineOtp);
  otpLines('OTP latency during the campaign', m.otp);
  const wt = r.waited;
  log(
    `PostgreSQL sessions of this run (pg_stat_activity, ${fmt(wt.samples)} samples): ${fmt(wt.active, 2)} active on average, ${fmt(wt.lockWaits, 2)} waiting for a lock ` +
      `(${fmt(wt.limiterWaits, 2)} on the limiter's row); by wait event: ${wt.events
        .slice(0, 6)
        .map(([k, v]) => `${k} ${fmt(v, 2)}`)
        .join(', ')}`,
  );
  log(
    `  running (on CPU), mean sessions by statement: ${wt.running
      .slice(0, 6)
      .map(([k, v]) => `${fmt(v, 2)} "${k}"`)
      .join('; ')}`,
  );
  // A claim that spends permits writes both limiter rows (lane + account): spent claims = row
  // updates / 2, exact. Claims that spent nothing leave only index scans: on PostgreSQL 15 with
  // generic prepared plans (every pooled session after 5 runs) an empty claim costs 3 scans of
  // rate_limiters (limiter_ensure 2, limiter_lock 1) and a spending one 4, so the empty ones are
  // estimated as (scans − 4 × spent) / 3 (custom plans in a session's first 5 runs cost one more).
  const spentClaims = r.limiter.rowUpdates / 2;
  const emptyClaims = Math.max(0, (r.limiter.scans - 4 * spentClaims) / 3);
  log(
    `claims (each locks the account's limiter rows until it commits): ${fmt(spentClaims / r.limiter.seconds)}/s took deliveries (${fmt(r.limiter.attempts / Math.max(1, spentClaims), 1)} each on average); ` +
      `~${fmt(emptyClaims / r.limiter.seconds)}/s came back empty (estimated from pg_stat_user_tables scans of rate_limiters)`,
  );
  log(
    `PostgreSQL server during the run (cluster-wide): ${fmt(r.server.walBytes / 1e6)} MB of WAL (${fmt(r.server.walBytes / Math.max(1, m.campaign.entries + m.otp.requested))} bytes per message), ` +
      `${r.server.checkpoints} checkpoint(s); ${r.server.autovacuums} autovacuum/autoanalyze run(s) on this run's tables`,
  );
  log(`memory (peak RSS, VmHWM): ${r.memory.map((x) => `${x.name} ${fmt(x.mem?.peak ?? NaN)} MB`).join(', ')}`);
  const parts = Object.entries(r.cpu)
    .filter(([k]) => k !== 'machine')
    .map(([k, v]) => `${k} ${fmt(v, 1)}`);
  log(
    `CPU-s over ${fmt(r.cpuSeconds, 1)} s (2 cores = ${fmt(2 * r.cpuSeconds, 1)} CPU-s): ${parts.join(', ')}; machine busy ${fmt(r.cpu.machine!, 1)} (${fmt((100 * r.cpu.machine!) / (2 * r.cpuSeconds))}% of 2 cores)`,
  );
  const otherCores = r.cpu.other! / r.cpuSeconds;
  log(`${r.quiet}; during the run other processes used ${fmt(otherCores, 2)} cores on average${otherCores > 0.2 ? ' — WARNING: a disturbed run' : ''}`);

  const rows: Array<[string, string, string, string]> = [
    [
      'drain time',
      `${fmt(m.campaign.drainSeconds, 2)} s (${fmt(100 * (m.campaign.drainSeconds / lower - 1), 1)}% over bound ${fmt(lower, 2)} s; config best ${fmt(rates.configBestSeconds, 2)} s)`,
      'within 1% of N/(R − OTP)',
      verdict(m.campaign.drainSeconds <= lower * 1.01 && !r.incomplete),
    ],
    ['max sms received in 1 s', fmt(m.sandbox.maxReceivedPerSecond), `≤ ${fmt(s.quota)}`, verdict(m.sandbox.maxReceivedPerSecond <= s.quota)],
    ['429s', fmt(m.sandbox.refused429), '0', verdict(m.sandbox.refused429 === 0)],
    ['OTP latency p50', `${fmt(m.otp.latency.p50)} ms`, '≤ 10 ms', verdict(m.otp.latency.p50 <= 10)],
    ['OTP latency p99', `${fmt(m.otp.latency.p99)} ms`, '≤ 50 ms', verdict(m.otp.latency.p99 <= 50)],
    ['worker memory (peak RSS)', `${fmt(workerPeak)} MB (max of ${s.workers})`, '< 200 MB', verdict(workerPeak < 200)],
  ];
  const w = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => row[i]!.length), ['measure', 'result', 'target', ''][i]!.length));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(w[i]!)).join(' | ')} |`;
  log('');
  log(line(['measure', 'result', 'target', '']));
  log(`|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`);
  for (const row of rows) log(line(row));
}

/** The peer's figures, from the same measure() as Herald's (no permit times: BullMQ keeps none). */
function reportPeer(r: CampaignRun, quiet: string): void {
  const { m } = r;
  const s = settings;
  const lower = s.n / (s.quota - m.otp.rateDuringDrain);
  log(`\n=== results: the BullMQ notifier ===`);
  if (r.incomplete) log(`WARNING: the campaign did not finish: ${r.incomplete}`);
  log(`campaign messages in the ledger: ${fmt(m.campaign.entries)} (${fmt(m.campaign.distinctKeys)} distinct keys)`);
  log(
    `drain time: ${fmt(m.campaign.drainSeconds, 2)} s = start → first campaign message ${fmt(m.campaign.startupSeconds, 2)} s + sending ${fmt(m.campaign.sendingSeconds, 2)} s at ${fmt(m.campaign.sendingRate, 1)}/s`,
  );
  log(`  issue's lower bound N / (R − OTP sent) = ${fmt(s.n)} / (${fmt(s.quota)} − ${fmt(m.otp.rateDuringDrain, 2)}) = ${fmt(lower, 2)} s`);
  log(
    `sandbox: most sms received in one second ${fmt(m.sandbox.maxReceivedPerSecond)} (accepted ${fmt(m.sandbox.maxAcceptedPerSecond)}; seconds above ${fmt(s.quota)}: ${m.sandbox.secondsAboveQuota}); 429s ${fmt(m.sandbox.refused429)}`,
  );
  const otpLine = (label: string, o: OtpFigures) =>
    log(`${label}: ${fmt(o.delivered)}/${fmt(o.requested)} received; intake → sandbox p50 / p99 / max ${ms(o.latency)}; intake answer (202) ${ms(o.intake)}`);
  if (m.baselineOtp) otpLine('OTP latency, no campaign (baseline)', m.baselineOtp);
  otpLine('OTP latency during the campaign', m.otp);
  log(`memory (peak RSS, VmHWM): ${r.memory.map((x) => `${x.name} ${fmt(x.peak)} MB`).join(', ')}`);
  const parts = Object.entries(r.cpu)
    .filter(([k]) => k !== 'machine')
    .map(([k, v]) => `${k} ${fmt(v, 1)}`);
  log(
    `CPU-s over ${fmt(r.cpuSeconds, 1)} s (2 cores = ${fmt(2 * r.cpuSeconds, 1)} CPU-s): ${parts.join(', ')}; machine busy ${fmt(r.cpu.machine!, 1)} (${fmt((100 * r.cpu.machine!) / (2 * r.cpuSeconds))}% of 2 cores)`,
  );
  const otherCores = r.cpu.other! / r.cpuSeconds;
  log(`${quiet}; during the run other processes used ${fmt(otherCores, 2)} cores on average${otherCores > 0.2 ? ' — WARNING: a disturbed run' : ''}`);
}

/** Herald and the peer side by side: the ratios issue 16 lists, each system against its own bound. */
function compare(h: CampaignRun, p: CampaignRun): void {
  const s = settings;
  const bound = (r: CampaignRun) => s.n / (s.quota - r.m.otp.rateDuringDrain);
  const overBound = (r: CampaignRun) => r.m.campaign.drainSeconds / bound(r);
  const peakRss = (r: CampaignRun) => Math.max(...r.memory.map((x) => x.peak));
  // The system's processes plus the bench process (sandbox + OTP client): not other processes, interrupts or steal.
  const ownCpu = (r: CampaignRun) =>
    Object.entries(r.cpu)
      .filter(([k]) => !['machine', 'other', 'irq', 'steal'].includes(k))
      .reduce((a, [, v]) => a + v, 0);
  const rows: string[][] = [
    ['drain time ÷ N/(R − OTP sent)', `${fmt(overBound(h), 3)}×`, `${fmt(overBound(p), 3)}×`, ratio(overBound(h), overBound(p))],
    [
      'drain time',
      `${fmt(h.m.campaign.drainSeconds, 2)} s`,
      `${fmt(p.m.campaign.drainSeconds, 2)} s`,
      ratio(h.m.campaign.drainSeconds, p.m.campaign.drainSeconds),
    ],
    [
      'most sms received in 1 s',
      fmt(h.m.sandbox.maxReceivedPerSecond),
      fmt(p.m.sandbox.maxReceivedPerSecond),
      ratio(h.m.sandbox.maxReceivedPerSecond, p.m.sandbox.maxReceivedPerSecond),
    ],
    [
      `seconds above R = ${fmt(s.quota)}`,
      fmt(h.m.sandbox.secondsAboveQuota),
      fmt(p.m.sandbox.secondsAboveQuota),
      ratio(h.m.sandbox.secondsAboveQuota, p.m.sandbox.secondsAboveQuota),
    ],
    ['429s answered by the sandbox', fmt(h.m.sandbox.refused429), fmt(p.m.sandbox.refused429), ratio(h.m.sandbox.refused429, p.m.sandbox.refused429)],
    [
      'code latency p50 (intake request → receipt)',
      `${fmt(h.m.otp.latency.p50)} ms`,
      `${fmt(p.m.otp.latency.p50)} ms`,
      ratio(h.m.otp.latency.p50, p.m.otp.latency.p50),
    ],
    ['code latency p99', `${fmt(h.m.otp.latency.p99)} ms`, `${fmt(p.m.otp.latency.p99)} ms`, ratio(h.m.otp.latency.p99, p.m.otp.latency.p99)],
    ['codes received / requested', `${fmt(h.m.otp.delivered)} / ${fmt(h.m.otp.requested)}`, `${fmt(p.m.otp.delivered)} / ${fmt(p.m.otp.requested)}`, ''],
    [
      'campaign entries (distinct keys)',
      `${fmt(h.m.campaign.entries)} (${fmt(h.m.campaign.distinctKeys)})`,
      `${fmt(p.m.campaign.entries)} (${fmt(p.m.campaign.distinctKeys)})`,
      '',
    ],
    ['largest peak RSS of a process', `${fmt(peakRss(h))} MB`, `${fmt(peakRss(p))} MB`, ratio(peakRss(h), peakRss(p))],
    ["CPU-s of the run's own processes during the drain", fmt(ownCpu(h), 1), fmt(ownCpu(p), 1), ratio(ownCpu(h), ownCpu(p))],
  ];
  log(`\n=== Herald against the BullMQ notifier (${fmt(s.n)} recipients, R = ${fmt(s.quota)}/s, codes at ${fmt(s.otpRate, 1)}/s) ===`);
  if (h.incomplete || p.incomplete)
    log(`WARNING: not finished: ${[h.incomplete && `Herald: ${h.incomplete}`, p.incomplete && `peer: ${p.incomplete}`].filter(Boolean).join('; ')}`);
  for (const l of textTable(['measure', 'Herald', 'BullMQ notifier', 'Herald / peer'], rows)) log(l);
}

main()
  .then((code) => process.exit(code))
  .catch(async (err: Error) => {
    process.stderr.write(`bench:campaign failed: ${err.stack ?? err.message}\n`);
    await killAllChildren();
    process.exit(1);
  });
