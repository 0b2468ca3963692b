/**
 * A whole Herald in one test: a real sandbox provider on an ephemeral port, a SQLite store in
 * a fresh temp directory, the intake API (driven with app.inject), a worker and a sweeper that
 * tests drive with runOnce()/drain(), and a manual clock. Nothing listens except the sandbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { ManualClock } from '../../src/clock.js';
import { DEFAULT_DEMOTION_POLICY, type DemotionPolicy, type LadderName, type Purpose, type Route } from '../../src/domain/index.js';
import { RouteEvaluator } from '../../src/delivery/route-evaluator.js';
import { resolveConfig, sandboxAccounts, type HeraldConfig } from '../../src/config/config.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { ClaimSender, type ClaimSenderOptions } from '../../src/delivery/claim-sender.js';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { Sweeper } from '../../src/delivery/sweeper.js';
import { FallbackScheduler } from '../../src/delivery/fallback-scheduler.js';
import { EvidenceApplier } from '../../src/delivery/evidence-applier.js';
import { CampaignRunner } from '../../src/campaigns/campaign-runner.js';
import { Reconciler } from '../../src/delivery/reconciler.js';
import { generateWebhookSecret } from '../../src/signing/standard-webhooks.js';
import { buildApp, type DashboardDeps } from '../../src/http/app.js';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { IntakeService, type IntakeOptions } from '../../src/intake/intake-service.js';
import { DeliveryCounters } from '../../src/metrics/counters.js';
import { SystemMetrics } from '../../src/observability/system-metrics.js';
import type { CallbackVerifier, ProviderAccountConfig, ProviderAdapter } from '../../src/providers/provider.js';
import { callbackVerifiers, createAdapter, inboundReceivers } from '../../src/runtime/node.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { openTestPostgresStore, pgUrl } from './postgres.js';
import { AddressPolicy } from '../../src/webhooks/address-policy.js';
import { createDeviceGateway, type DeviceGateway } from '../../src/devices/device-gateway.js';
import type { DevicesConfig } from '../../src/config/config.js';

export type Driver = 'sqlite' | 'postgres';
export const DRIVERS: Driver[] = ['sqlite', 'postgres'];

export const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
export const silentLogger = pino({ level: 'silent' });
/** The configuration's `worker:` section with its defaults (a DeliveryWorker has none of its own). */
export const WORKER_DEFAULTS = resolveConfig(undefined).worker;

export interface Harness {
  dir: string;
  clock: ManualClock;
  sandbox: SandboxHandle;
  driver: Driver;
  store: Store;
  /** On PostgreSQL, the schema this harness's tables live in (tests that read tables directly); null on SQLite. */
  pgSchema: string | null;
  /** A second connection to the same database, as another process would have. */
  openPeerStore(): Store;
  config: HeraldConfig;
  app: Awaited<ReturnType<typeof buildApp>>;
  apiKey: string;
  tenantId: string;
  /** A new worker with its own adapters (as a restarted or second process would have). */
  newWorker(opts?: {
    workerId?: string;
    leaseMs?: number;
    random?: () => number;
    ladderOverrides?: ReadonlyMap<string, Partial<Record<Purpose, LadderName>>>;
    /** Another connection (openPeerStore()), as a worker in another process would have. */
    store?: Store;
    batchSize?: number;
  }): DeliveryWorker;
  /** A claim → call → record path of its own without loops (the API process's code fast path uses one); options as newWorker's. */
  newSender(opts?: Parameters<Harness['newWorker']>[0]): ClaimSender;
  worker: DeliveryWorker;
  sweeper: Sweeper;
  fallbacks: FallbackScheduler;
  /** Settles unknown deliveries (look-up or ambiguity policy); drive it with runOnce(). */
  reconciler: Reconciler;
  /** Merges recorded callback events into deliveries; drive it with runOnce(). */
  evidence: EvidenceApplier;
  /** Fans campaigns out, holds paused ones, finishes them; drive it with runOnce(). */
  campaigns: CampaignRunner;
  /** With `callbacks: true` (the sandbox posts its callbacks to it), `devices` or `listen`: the listening API's URL. */
  apiUrl: string | null;
  /** The delivery counters shared by the harness's intake, replay service, app, workers and sweeper. */
  counters: DeliveryCounters;
  /** With `metrics`: what GET /metrics serves (its store reads use the harness clock). */
  metrics: SystemMetrics | null;
  /** With `routes`: the route evaluator intake reads (drive it with runOnce()). */
  routeEvaluator: RouteEvaluator | null;
  /** With `devices`: the phone gateway (device API on `apiUrl` + devices.base_path; drive its reports and sweep with runOnce()). */
  devices: DeviceGateway | null;
  /** With `recordAnswers`: each JSON answer as its route built it (before serialization), newest last, keyed by method and URL. */
  answers: Array<{ method: string; url: string; payload: unknown }>;
  /** POST /v1/notifications with the harness key. */
  send(body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; headers: Record<string, unknown> }>;
  get(url: string): Promise<{ status: number; json: any }>;
  /** POST a JSON body (none when undefined) to any route with the harness key. */
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export const otpBody = (over: Record<string, unknown> = {}) => ({
  recipient: { id: 'user-1', phone: '+14155550123', email: 'ada@example.com' },
  purpose: 'otp',
  channels: ['sms'],
  content: { text: 'Your code is 123456', subject: 'Your code' },
  ttl_seconds: 300,
  ...over,
});

export interface HarnessOptions {
  timeoutMs?: number;
  intake?: Partial<IntakeOptions>;
  driver?: Driver;
  /** Adjusts each sandbox account (ambiguity policy, capabilities, windows). */
  account?: (a: ProviderAccountConfig) => ProviderAccountConfig;
  /**
   * Gives every account a callback secret, makes the API listen on an ephemeral port and
   * registers it with the sandbox, so the sandbox's signed callbacks reach Herald for real.
   */
  callbacks?: boolean;
  /** Makes the API listen on an ephemeral port (`apiUrl`) for a client that speaks real HTTP (@herald/client). */
  listen?: boolean;
  /** The sandbox's PRNG seed (faults and callback behaviour). Default 1. */
  seed?: number;
  /** Networks webhook URLs may point at (config webhooks.allow_networks). Default none: public addresses only. */
  webhookAllowNetworks?: string[];
  /**
   * Wall-clock time instead of the manual clock, for tests of real-time behaviour (rate limits
   * measured by the sandbox's per-second ledger). advance/set are then refused.
   */
  wallClock?: boolean;
  /**
   * Runs the Android phone gateway for the android_gateway accounts `account` made (config
   * `devices` overrides): its device API listens on `apiUrl`, and the adapters use it.
   */
  devices?: Partial<DevicesConfig>;
  /**
   * Builds each account's callback verifier instead of its kind (null: none), e.g. an SES
   * verifier whose way out to SNS serves the test's own certificates.
   */
  callbackVerifier?: (account: ProviderAccountConfig) => CallbackVerifier | null;
  /**
   * Serves GET /metrics (optionally behind a bearer token), its store read cached for `cacheMs`
   * (default SystemMetrics's 5 s); `acceptedProgressAfterMs` stands for config metrics.accepted_progress_after_s.
   */
  metrics?: { token?: string; cacheMs?: number; acceptedProgressAfterMs?: number };
  /** The dashboard's server side (its web root, session lifetimes, login limiter); null turns it off. Default: on, defaults. */
  dashboard?: DashboardDeps | null;
  /** PostgreSQL: the server to use instead of the suite's (test/setup/postgres.ts), e.g. one with pg_stat_statements. */
  pgConnectionString?: string;
  /** One logger for the app (request logs included) and every service (the log canary test reads it). Default: silent, and the app logs nothing. */
  logger?: Logger;
  /** Accounts added after the sandbox's three (e.g. a second SMS account for a route), given those three as `account` made them. */
  moreAccounts?: (accounts: ProviderAccountConfig[]) => ProviderAccountConfig[];
  /**
   * Routes (config `routes:`): intake routes new deliveries along them, as this harness's route
   * evaluator (`routeEvaluator`, driven with runOnce(); its changes counted in `counters`) last read them.
   */
  /** Keeps each answer as the route built it, before its response schema serializes it (`answers`). */
  recordAnswers?: boolean;
  routes?: { routes: Route[]; policy?: DemotionPolicy; /** `routes.on_ambiguity: follow_policy` (default true) or `stay`. */ failoverAfterUnknown?: boolean };
}

/** A ManualClock that reads the wall clock: for the few tests whose referee counts real seconds. */
class WallClock extends ManualClock {
  constructor() {
    super(0);
  }
  override now(): number {
    return Date.now();
  }
  override advance(): void {
    throw new Error('a wall-clock harness cannot advance time');
  }
  override set(): void {
    throw new Error('a wall-clock harness cannot set time');
  }
}

export async function createHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const driver = opts.driver ?? 'sqlite';
  const log = opts.logger ?? silentLogger;
  const dir = mkdtempSync(join(tmpdir(), 'herald-test-'));
  const clock = opts.wallClock ? new WallClock() : new ManualClock(T0);
  // One clock for both sides: the sandbox signs callbacks with it and Herald checks their timestamps.
  const sandbox = await startSandbox({ port: 0, seed: opts.seed ?? 1, now: () => new Date(clock.now()) });
  const config = resolveConfig({ data_dir: dir, worker: { lease_ms: 30_000 } });
  config.provider_accounts = sandboxAccounts(sandbox.url).map((a) => {
    const base: ProviderAccountConfig = {
      ...a,
      timeout_ms: opts.timeoutMs ?? 2_000,
      ...(opts.callbacks ? { callback_secrets: [generateWebhookSecret()] } : {}),
    };
    return opts.account ? opts.account(base) : base;
  });
  if (opts.moreAccounts) config.provider_accounts.push(...opts.moreAccounts(config.provider_accounts));
  let store: Store;
  let dropSchema = async () => {};
  let pgSchema: string | null = null;
  let openPeerStore: () => Store;
  const peers: Store[] = [];
  if (driver === 'postgres') {
    const url = opts.pgConnectionString ?? pgUrl();
    const pg = await openTestPostgresStore(undefined, null, url);
    store = pg.store;
    pgSchema = pg.schema;
    dropSchema = () => pg.drop();
    openPeerStore = () => {
      const s = openPostgresStore({ connectionString: url, schema: pg.schema, maxConnections: 2 });
      peers.push(s);
      return s;
    };
  } else {
    store = openSqliteStore({ path: join(dir, 'herald.db') });
    await store.migrate();
    openPeerStore = () => {
      const s = openSqliteStore({ path: join(dir, 'herald.db') });
      peers.push(s);
      return s;
    };
  }
  const tenantId = 'default';
  await store.ensureTenant({ id: tenantId, name: 'Default' }, T0);
  const apiKey = generateApiKey();
  await store.createApiKey({ id: 'key_test', tenantId, keyHash: hashApiKey(apiKey), label: 'test', now: T0 });
  const counters = new DeliveryCounters();
  const devices = opts.devices
    ? createDeviceGateway({
        store,
        clock,
        logger: log,
        accounts: config.provider_accounts,
        devices: { ...config.devices, ...opts.devices },
        random: () => 0.5,
        onSignal: (status) => counters.series.signal('sms', status),
      })
    : null;
  const routeEvaluator = opts.routes
    ? new RouteEvaluator({
        store,
        clock,
        logger: log,
        routes: opts.routes.routes,
        policy: opts.routes.policy ?? DEFAULT_DEMOTION_POLICY,
        intervalMs: 60_000,
        onChange: (c) => counters.series.routeChanges.inc({ provider_account: c.providerAccount, action: c.action }),
      })
    : null;
  const routing = opts.routes ? { routing: { routes: opts.routes.routes, health: routeEvaluator! } } : {};
  // The worker's and the reconciler's failover along the same routes (docs/routing.md).
  const failover = opts.routes
    ? { routing: { routes: opts.routes.routes, health: routeEvaluator!, failoverAfterUnknown: opts.routes.failoverAfterUnknown ?? true } }
    : {};
  const intake = new IntakeService({
    store,
    accounts: config.provider_accounts,
    clock,
    counters,
    ...routing,
    ...opts.intake,
    logger: opts.intake?.logger ?? log,
  });
  const replay = new ReplayService({ store, clock, counters });
  let evidence: EvidenceApplier | null = null;
  const metrics = opts.metrics
    ? new SystemMetrics({
        store,
        clock,
        counters,
        accounts: config.provider_accounts,
        deviceAwayMs: { ...config.devices, ...opts.devices }.away_after_seconds * 1000,
        acceptedProgressAfterMs: opts.metrics.acceptedProgressAfterMs ?? config.metrics.accepted_progress_after_s * 1000,
        ...(opts.metrics.cacheMs === undefined ? {} : { cacheMs: opts.metrics.cacheMs }),
      })
    : null;
  const answers: Harness['answers'] = [];
  const app = await buildApp({
    ...(opts.recordAnswers
      ? {
          beforeRoutes: (a) =>
            a.addHook('preSerialization', async (request, _reply, payload) => {
              answers.push({ method: request.method, url: request.url, payload });
              return payload;
            }),
        }
      : {}),
    store,
    intake,
    replay,
    counters,
    accounts: config.provider_accounts,
    ...(opts.routes ? { routes: opts.routes.routes } : {}),
    ...(opts.metrics?.acceptedProgressAfterMs === undefined ? {} : { acceptedProgressAfterMs: opts.metrics.acceptedProgressAfterMs }),
    clock,
    callbackVerifiers: opts.callbackVerifier
      ? new Map(
          config.provider_accounts.flatMap((a) => {
            const v = opts.callbackVerifier!(a);
            return v ? [[a.id, v] as const] : [];
          }),
        )
      : callbackVerifiers(config.provider_accounts),
    inboundReceivers: inboundReceivers(config.provider_accounts),
    publicUrl: config.public_url,
    onEvidence: () => evidence?.poke(),
    webhookPolicy: new AddressPolicy({ allowNetworks: opts.webhookAllowNetworks ?? [] }),
    devices,
    metrics: metrics ? { metrics, token: opts.metrics?.token ?? null } : null,
    ...(opts.dashboard !== undefined ? { dashboard: opts.dashboard } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  let apiUrl: string | null = null;
  if (opts.callbacks || devices || opts.listen) apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  if (opts.callbacks) {
    for (const a of config.provider_accounts) {
      sandbox.callbacks.register(a.channel, { url: `${apiUrl}/v1/callbacks/${a.id}`, secret: a.callback_secrets![0]! });
    }
  }
  const workers: DeliveryWorker[] = [];
  const allAdapters: ProviderAdapter[] = [];
  /** What a worker or a sender of its own is built from: its own adapters, as in another process. */
  const senderOptions = (o: Parameters<Harness['newWorker']>[0] & {}, workerId: string): ClaimSenderOptions => {
    const adapters = new Map(config.provider_accounts.map((a) => [a.id, createAdapter(a, config.public_url, devices?.offers)] as const));
    allAdapters.push(...adapters.values());
    return {
      store: o.store ?? store,
      adapters,
      clock,
      logger: log,
      workerId,
      settings: { ...WORKER_DEFAULTS, lease_ms: o.leaseMs ?? WORKER_DEFAULTS.lease_ms, batch_size: o.batchSize ?? 16 },
      random: o.random ?? (() => 0.5),
      counters,
      accounts: config.provider_accounts,
      ...(o.ladderOverrides ? { ladderOverrides: o.ladderOverrides } : {}),
      ...failover,
    };
  };
  const newWorker: Harness['newWorker'] = (o = {}) => {
    const w = new DeliveryWorker(senderOptions(o, o.workerId ?? `worker-${workers.length + 1}`));
    workers.push(w);
    return w;
  };
  const newSender: Harness['newSender'] = (o = {}) => new ClaimSender(senderOptions(o, o.workerId ?? 'api'));
  const worker = newWorker();
  const sweeper = new Sweeper({ store, clock, logger: log, counters });
  const reconcilerAdapters = new Map(config.provider_accounts.map((a) => [a.id, createAdapter(a, config.public_url, devices?.offers)] as const));
  allAdapters.push(...reconcilerAdapters.values());
  const reconciler = new Reconciler({
    store,
    clock,
    logger: log,
    adapters: reconcilerAdapters,
    accounts: config.provider_accounts,
    random: () => 0.5,
    counters,
    ...failover,
  });
  evidence = new EvidenceApplier({ store, clock, logger: log, counters });
  const auth = { authorization: `Bearer ${apiKey}` };
  return {
    answers,
    dir,
    clock,
    sandbox,
    driver,
    store,
    pgSchema,
    openPeerStore,
    config,
    app,
    apiKey,
    tenantId,
    newWorker,
    newSender,
    worker,
    sweeper,
    fallbacks: new FallbackScheduler({ store, clock, logger: log }),
    campaigns: new CampaignRunner({
      store,
      clock,
      logger: log,
      // Fan-out checks what intake's limits check on a row's own data (SMS countries, number types).
      intake: new IntakeService({
        store,
        accounts: config.provider_accounts,
        clock,
        logger: log,
        ...(opts.intake?.limits ? { limits: opts.intake.limits } : {}),
        ...routing,
      }),
      accounts: config.provider_accounts,
      ...(opts.routes ? { routes: opts.routes.routes } : {}),
    }),
    reconciler,
    evidence,
    apiUrl,
    counters,
    metrics,
    devices,
    routeEvaluator,
    async send(body, headers = {}) {
      const r = await app.inject({ method: 'POST', url: '/v1/notifications', headers: { ...auth, ...headers }, payload: body as object });
      return { status: r.statusCode, json: r.json(), headers: r.headers };
    },
    async get(url) {
      const r = await app.inject({ method: 'GET', url, headers: auth });
      return { status: r.statusCode, json: r.json() };
    },
    async post(url, body, headers = {}) {
      const r = await app.inject({ method: 'POST', url, headers: { ...auth, ...headers }, ...(body === undefined ? {} : { payload: body as object }) });
      return { status: r.statusCode, json: r.json(), headers: r.headers };
    },
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      await sandbox.close();
      await devices?.close();
      await app.close();
      await Promise.allSettled(allAdapters.map((a) => a.close()));
      for (const p of peers) await p.close();
      await store.close();
      await dropSchema();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
