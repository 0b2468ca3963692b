/**
 * `npm run bench:campaign` (issue 6's benchmark; numbers are printed, never asserted): a campaign
 * of N recipients (default 100,000; `--big` 600,000) through `herald api` + `--workers` ×
 * `herald worker` on PostgreSQL (or, with `--driver sqlite`, one `herald start` on SQLite), to
 * the sandbox provider limited to R sms per second (default 2,000; 1,000 on SQLite), while
 * one-time codes arrive at `--otp-rate` per second (default 20). It prints the
 * drain time against the lower bound N / (R − OTP actually sent), the most sms the sandbox
 * received in one second, the 429s it answered, OTP latency from intake to sandbox receipt, and
 * each process's peak memory, against the issue's targets. Then (unless `--peer none`) the same
 * workload through the BullMQ notifier of issue 16 (bench/peers/bullmq-notifier), refereed by a
 * fresh sandbox with the same quota and measured by the same code, and the Herald / peer ratios.
 * See docs/benchmarks.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { uploadAudience } from './campaign/audience.js';
import { postgresBackend, sqliteBackend, type Driver, type HeraldBackend } from './campaign/backend.js';
import { awaitDrain, awaitLastCodes, countSends } from './campaign/drain.js';
import { api, describeLayout, memoryMb, startHerald, type HeraldLayout, type HeraldProcesses } from './campaign/herald.js';
import { measure } from './campaign/measure.js';
import { runPeerCampaign, type CampaignRun } from './campaign/peer-run.js';
import { allOtpLines, cpuLines, drainLines, fmt, log, lowerBound, memoryLine, sandboxLine } from './campaign/print.js';
import { ratio, textTable } from './peers/compare.js';
import { startOtpTraffic, type OtpTraffic } from './campaign/otp.js';
import { startReferee, type Referee } from './campaign/referee.js';
import { deriveRates, heraldConfig, type BenchSettings, type DomainModule } from './campaign/settings.js';
import { killAllChildren, requireBuild, ROOT } from './chaos/processes.js';
import { machineBusyCpuMs, processCpuMs, startCpuMeter } from './throughput/cpu.js';

/** One content key for every Herald process of this run: PostgreSQL refuses to start without one (docs/retention.md). */
const CONTENT_KEY = randomBytes(32).toString('base64');

const HELP = `Usage: npm run bench:campaign -- [flags]

  --driver D         postgres (default): herald api + --workers × herald worker on PostgreSQL;
                     sqlite: one herald start (api, workers and campaign runner in one process)
                     on the SQLite file of its own data directory, quota 1000/s unless --rate
  --n N              recipients (default 100000)
  --big              600,000 recipients (overrides --n)
  --rate R           the sandbox's sms quota per second (default 2000; 1000 with --driver sqlite)
  --workers W        herald worker processes (default 4; postgres only)
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
  --keep             keep Herald's PostgreSQL schema afterwards (to inspect what was left queued;
                     postgres only)

Database: postgres: DATABASE_URL (a throwaway schema, dropped afterwards), else an embedded
PostgreSQL. sqlite: herald.db in a temporary data directory (removed afterwards; DATABASE_URL is
not passed to Herald). The peer is the same with either driver.
`;

const { values: flags } = parseArgs({
  options: {
    driver: { type: 'string', default: 'postgres' },
    n: { type: 'string', default: '100000' },
    big: { type: 'boolean', default: false },
    rate: { type: 'string' },
    workers: { type: 'string' },
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

const DRIVER = flags.driver as Driver;
if (DRIVER !== 'postgres' && DRIVER !== 'sqlite') {
  process.stderr.write(`--driver must be postgres or sqlite, got ${flags.driver}\n${HELP}`);
  process.exit(2);
}
if (DRIVER === 'sqlite' && (flags.workers !== undefined || flags.keep)) {
  process.stderr.write(`--${flags.keep ? 'keep' : 'workers'} is for --driver postgres: on SQLite one herald start runs everything\n${HELP}`);
  process.exit(2);
}
const LAYOUT: HeraldLayout = DRIVER === 'sqlite' ? { kind: 'start' } : { kind: 'split', workers: num('workers', flags.workers ?? '4', 1) };

const settings: BenchSettings = {
  n: flags.big ? 600_000 : num('n', flags.n, 1),
  quota: num('rate', flags.rate ?? (DRIVER === 'sqlite' ? '1000' : '2000'), 1),
  workers: LAYOUT.kind === 'split' ? LAYOUT.workers : 1,
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

  log(`bench:campaign — ${fmt(s.n)} recipients, sandbox sms quota ${fmt(s.quota)}/s, ${describeLayout(LAYOUT)} on ${DRIVER}, OTP ${fmt(s.otpRate, 1)}/s`);
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

  log(`\n=== Herald: ${describeLayout(LAYOUT)} on ${DRIVER === 'sqlite' ? 'SQLite' : 'PostgreSQL'} ===`);
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
  });
  reportPeer(peer, peerQuiet);
  compare(herald, peer);
  return 0;
}

/** The campaign through Herald (on either driver); prints Herald's full report. */
async function runHerald(sandboxMod: SandboxModule, rates: ReturnType<typeof deriveRates>, quiet: string): Promise<CampaignRun> {
  const s = settings;
  const dir = mkdtempSync(join(tmpdir(), 'herald-bench-campaign-'));
  const dataDir = join(dir, 'data');
  const apiKey = `bench-${randomBytes(16).toString('hex')}`;
  let backend: HeraldBackend | null = null;
  let referee: Referee | null = null;
  let herald: HeraldProcesses | null = null;
  let otp: OtpTraffic | null = null;
  try {
    mkdirSync(dataDir, { recursive: true });
    backend = DRIVER === 'sqlite' ? sqliteBackend({ dataDir, synchronous: 'FULL' }) : await postgresBackend({ keep: flags.keep });
    log(`  database: ${backend.describe}; bench process (sandbox + OTP client): ${referenceNice}`);
    referee = await startReferee(sandboxMod, s.quota);
    const configFile = join(dir, 'herald.json');
    writeFileSync(configFile, JSON.stringify(heraldConfig(s, rates, referee.url), null, 2));
    herald = await startHerald({
      layout: LAYOUT,
      configFile,
      dataDir,
      env: { ...backend.env, HERALD_BOOTSTRAP_KEY: apiKey, HERALD_CONTENT_KEY: CONTENT_KEY },
    });
    const { apiUrl } = herald;
    await backend.attach(herald);

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
    // Other processes on this shared VM (invisible here, but counted by /proc/stat) are shown per window.
    const h = herald;
    const groups: Record<string, () => number> = {
      'bench (sandbox + OTP client)': () => processCpuMs(process.pid),
      ...(LAYOUT.kind === 'split'
        ? {
            api: () => processCpuMs(h.processes[0]!.pid),
            workers: () => h.processes.slice(1).reduce((a, c) => a + processCpuMs(c.pid), 0),
          }
        : { 'herald start': () => processCpuMs(h.processes[0]!.pid) }),
      ...backend.cpuGroups,
    };
    const meter = startCpuMeter(groups);
    const sends = countSends(referee);
    await backend.begin();
    otp = startOtpTraffic({ apiUrl, apiKey, rate: s.otpRate });
    const startedAt = Date.now();
    const started = await api<Campaign>(apiUrl, apiKey, 'POST', `/v1/campaigns/${draft.id}/start`, 200);
    log(`started: ${started.status}; plan ${JSON.stringify(started.plan)}\n`);

    // ---- Wait for the last campaign message.
    const b = backend;
    const { incomplete } = await awaitDrain({
      n: s.n,
      startedAt,
      settleTimeoutS: SETTLE_TIMEOUT_S,
      giveUpS: Math.max(600, rates.configBestSeconds * 4),
      sends,
      referee,
      otp,
      groups,
      crashed: () => h.crashed(),
      progress: async () => `fanned out ${fmt(await b.fannedOut(draft.id))}`,
    });
    await otp.stop();
    const cpu = meter.stop();
    const cpuSeconds = (Date.now() - startedAt) / 1000;
    const storeLines = await backend.end();
    // The last codes were accepted by intake just now: give them time to reach the sandbox.
    await awaitLastCodes(sends, otp);

    const memory = herald.processes.map((c) => ({ name: c.name, peak: memoryMb(c.pid)?.peak ?? NaN }));
    // `completed` is set by the runner's next pass once nothing is in flight.
    let final = await api<Campaign>(apiUrl, apiKey, 'GET', `/v1/campaigns/${draft.id}`, 200);
    for (let i = 0; i < 40 && final.status === 'running' && !incomplete; i++) {
      await sleep(250);
      final = await api<Campaign>(apiUrl, apiKey, 'GET', `/v1/campaigns/${draft.id}`, 200);
    }
    // Herald's side of the story: every 429 it saw is an attempt with outcome throttled; each
    // accepted attempt's started_at is the `now` its permit was granted at (for the skew).
    const rows = await backend.rows();

    const m = measure({
      entries: referee.handle.ledger.entries({ channel: 'sms' }),
      refusedPerSecond: referee.refusedPerSecond,
      quota: s.quota,
      startedAt,
      otp: otp.records,
      ...(baseline ? { baselineOtp: baseline.records } : {}),
      permitAt: rows.permitAt,
      otpRows: rows.otpRows,
    });
    const run: CampaignRun = { m, incomplete, memory, cpu, cpuSeconds };
    report({ run, rates, final, throttledHerald: rows.throttled, quiet, storeLines: storeLines(m.campaign.entries + m.otp.requested) });
    return run;
  } finally {
    await otp?.stop().catch(() => {});
    if (herald) await Promise.all(herald.processes.map((c) => c.stop(5_000)));
    await killAllChildren();
    await referee?.close().catch(() => {});
    const note = await backend?.close().catch((err: Error) => `could not close the store: ${err.message}`);
    if (note) log(note);
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(r: {
  run: CampaignRun;
  rates: ReturnType<typeof deriveRates>;
  final: { status: string; progress: Record<string, unknown> };
  throttledHerald: number;
  quiet: string;
  /** The driver's own figures over the drain (PostgreSQL sessions, claims and WAL; SQLite's WAL file and writes). */
  storeLines: string[];
}): void {
  const { rates } = r;
  const { m } = r.run;
  const s = settings;
  const lower = lowerBound(m, s.n, s.quota);
  // The worker's memory target: on PostgreSQL the largest worker's; on SQLite the one process that is also the API.
  const workers = r.run.memory.filter((x) => x.name.startsWith('worker') || x.name === 'start');
  const workerPeak = Math.max(...workers.map((x) => x.peak));
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

  log(`\n=== results ===`);
  if (r.run.incomplete) log(`WARNING: the campaign did not finish: ${r.run.incomplete}`);
  log(`campaign final status ${r.final.status}; progress ${JSON.stringify(r.final.progress)}`);
  log(`campaign messages in the ledger: ${fmt(m.campaign.entries)} (${fmt(m.campaign.distinctKeys)} distinct keys)`);
  log(
    `OTP: ${fmt(m.otp.requested)} requested, ${fmt(m.otp.answered202)} answered 202${Object.keys(m.otp.otherAnswers).length ? ` (others ${JSON.stringify(m.otp.otherAnswers)})` : ''}, ${fmt(m.otp.delivered)} received by the sandbox; ${fmt(m.otp.duringDrain)} during the drain = ${fmt(m.otp.rateDuringDrain, 2)}/s`,
  );
  log('');
  for (const l of drainLines(m, s.n, s.quota)) log(l);
  log(
    `  this configuration's best N / bulk lane rate = ${fmt(s.n)} / ${fmt(rates.bulkRateEffective, 2)} = ${fmt(rates.configBestSeconds, 2)} s (account rate ${fmt(rates.accountRateEffective, 2)}/s = quotaSafeRate with burst ${s.burst}, skew ${s.skewMs} ms; auth reserves ${fmt(rates.accountRateEffective - rates.bulkRateEffective, 2)}/s)`,
  );
  log(
    `  campaign messages per full second while sending: min ${fmt(m.campaign.perSecond.min)}, p1 ${fmt(m.campaign.perSecond.p1)}, median ${fmt(m.campaign.perSecond.p50)}, max ${fmt(m.campaign.perSecond.max)} (${m.campaign.perSecond.count} seconds)`,
  );
  log(sandboxLine(m, s.quota));
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
  for (const l of allOtpLines(m)) log(l);
  for (const l of r.storeLines) log(l);
  log(memoryLine(r.run.memory));
  for (const l of cpuLines(r.run.cpu, r.run.cpuSeconds, r.quiet)) log(l);

  const rows: Array<[string, string, string, string]> = [
    [
      'drain time',
      `${fmt(m.campaign.drainSeconds, 2)} s (${fmt(100 * (m.campaign.drainSeconds / lower - 1), 1)}% over bound ${fmt(lower, 2)} s; config best ${fmt(rates.configBestSeconds, 2)} s)`,
      'within 1% of N/(R − OTP)',
      verdict(m.campaign.drainSeconds <= lower * 1.01 && !r.run.incomplete),
    ],
    ['max sms received in 1 s', fmt(m.sandbox.maxReceivedPerSecond), `≤ ${fmt(s.quota)}`, verdict(m.sandbox.maxReceivedPerSecond <= s.quota)],
    ['429s', fmt(m.sandbox.refused429), '0', verdict(m.sandbox.refused429 === 0)],
    ['OTP latency p50', `${fmt(m.otp.latency.p50)} ms`, '≤ 10 ms', verdict(m.otp.latency.p50 <= 10)],
    ['OTP latency p99', `${fmt(m.otp.latency.p99)} ms`, '≤ 50 ms', verdict(m.otp.latency.p99 <= 50)],
    [
      LAYOUT.kind === 'split' ? 'worker memory (peak RSS)' : 'herald start memory (peak RSS)',
      `${fmt(workerPeak)} MB${LAYOUT.kind === 'split' ? ` (max of ${s.workers})` : ' (api + worker in one process)'}`,
      '< 200 MB',
      verdict(workerPeak < 200),
    ],
  ];
  log('');
  for (const l of textTable(['measure', 'result', 'target', ''], rows)) log(l);
}

/** The peer's figures, from the same measure() and the same lines as Herald's (no permit times: BullMQ keeps none). */
function reportPeer(r: CampaignRun, quiet: string): void {
  const { m } = r;
  const s = settings;
  log(`\n=== results: the BullMQ notifier ===`);
  if (r.incomplete) log(`WARNING: the campaign did not finish: ${r.incomplete}`);
  log(`campaign messages in the ledger: ${fmt(m.campaign.entries)} (${fmt(m.campaign.distinctKeys)} distinct keys)`);
  for (const l of drainLines(m, s.n, s.quota)) log(l);
  log(`${sandboxLine(m, s.quota)}; 429s ${fmt(m.sandbox.refused429)}`);
  for (const l of allOtpLines(m)) log(l);
  log(memoryLine(r.memory));
  for (const l of cpuLines(r.cpu, r.cpuSeconds, quiet)) log(l);
}

/** Herald and the peer side by side: the ratios issue 16 lists, each system against its own bound. */
function compare(h: CampaignRun, p: CampaignRun): void {
  const s = settings;
  const bound = (r: CampaignRun) => lowerBound(r.m, s.n, s.quota);
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
  log(
    `\n=== Herald (${describeLayout(LAYOUT)} on ${DRIVER === 'sqlite' ? 'SQLite' : 'PostgreSQL'}) against the BullMQ notifier (${fmt(s.n)} recipients, R = ${fmt(s.quota)}/s, codes at ${fmt(s.otpRate, 1)}/s) ===`,
  );
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
