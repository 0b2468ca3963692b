/**
 * Assembles a running Herald from configuration: store, provider adapters, intake, HTTP app,
 * worker and sweeper. `herald start` runs every role in one process; `herald api` and
 * `herald worker` run one each. Tests use the same assembly.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { ConfigError, installSchedulingPolicy, metricsToken, type HeraldConfig } from '../config/config.js';
import { limitsWarnings } from '../config/limits-config.js';
import type { Random, RouteHealthView } from '../domain/index.js';
import { DeliveryWorker } from '../delivery/worker.js';
import { OtpFastPath } from '../delivery/otp-fast-path.js';
import { ClaimSender } from '../delivery/claim-sender.js';
import { SchedulingPolicies } from '../delivery/scheduling-policies.js';
import { ReplayService } from '../delivery/replay-service.js';
import { Sweeper } from '../delivery/sweeper.js';
import { RouteEvaluator } from '../delivery/route-evaluator.js';
import { routeAssignmentProblems } from '../config/routes-config.js';
import { RetentionService } from '../delivery/retention-service.js';
import { FallbackScheduler } from '../delivery/fallback-scheduler.js';
import { WakeSignal } from '../delivery/wake-signal.js';
import { OutboxSignal } from '../http/outbox-signal.js';
import { IntakeService } from '../intake/intake-service.js';
import { DeliveryCounters } from '../metrics/counters.js';
import { SystemMetrics } from '../observability/system-metrics.js';
import type { Alerter } from '../observability/alerter.js';
import type { PeriodicService } from '../periodic/periodic-service.js';
import type { ProviderAccountConfig, ProviderAdapter } from '../providers/provider.js';
import { providerKind } from '../providers/registry.js';
import type { CallbackVerifier, InboundReceiver } from '../providers/provider.js';
import { EvidenceApplier } from '../delivery/evidence-applier.js';
import { CampaignRunner } from '../campaigns/campaign-runner.js';
import { Reconciler } from '../delivery/reconciler.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { mayUseAccount, type NewNotification, type Store } from '../store/store.js';
import type { StoreLogger } from '../store/store-log.js';
import { TemplateRenderer } from '../templates/template-renderer.js';
import { AddressPolicy } from '../webhooks/address-policy.js';
import { WebhookRelay } from '../webhooks/webhook-relay.js';
import { WebhookSender } from '../webhooks/webhook-sender.js';
import { UnsubscribeLinks } from '../preferences/unsubscribe-links.js';
import { createDeviceGateway, type DeviceGateway } from '../devices/device-gateway.js';
import type { DeviceGatewayPort } from '../providers/device-gateway-port.js';
import { readTls, watchTls } from './tls.js';
import { createAlerter } from './alerter-wiring.js';
import { contentCipherFor } from './content-keys.js';

export type Role = 'api' | 'worker';

export interface HeraldNode {
  store: Store;
  app: FastifyInstance | null;
  /** GET /metrics on its own port (`metricsPort`, a process without the api role), or null. */
  metricsApp: FastifyInstance | null;
  worker: DeliveryWorker | null;
  sweeper: Sweeper;
  /** Demotes and restores accounts within their routes (every role; docs/routing.md), or null without a route of two accounts. */
  routeEvaluator: RouteEvaluator | null;
  /** Erases content and masks destinations past their retention (worker role; docs/retention.md). */
  retention: RetentionService | null;
  fallbacks: FallbackScheduler | null;
  /** Settles `unknown` deliveries by look-up or the account's ambiguity policy (worker role). */
  reconciler: Reconciler | null;
  /** Merges recorded provider callback events into deliveries (worker role). */
  evidence: EvidenceApplier | null;
  /** Fans running campaigns out, holds paused ones, finishes them (worker role). */
  campaigns: CampaignRunner | null;
  /** Customer webhooks: outbox relay and signed sender (worker role). */
  webhooks: { relay: WebhookRelay; sender: WebhookSender } | null;
  /** The Android phone gateway (device API in the api role; report applier and heartbeat sweep in the worker role), or null without android_gateway accounts. */
  devices: DeviceGateway | null;
  adapters: Map<string, ProviderAdapter>;
  /** This process's delivery counters, shared by every role it runs. */
  counters: DeliveryCounters;
  /** Operator alerts (worker role, when alerts.* has a target); drive it with runOnce(). */
  alerter: Alerter | null;
  /** Starts listening (api role) and the background loops (worker role). Returns the API URL, if any. */
  start(): Promise<string | null>;
  /** Graceful stop: no new requests or claims, in-flight calls finish and are recorded. */
  close(): Promise<void>;
}

export interface NodeOptions {
  config: HeraldConfig;
  roles: Role[];
  logger: Logger;
  clock?: Clock;
  random?: Random;
  store?: Store;
  workerId?: string;
  /**
   * Serve GET /metrics on this port (config `host`) in a process without the api role, whose
   * counters would otherwise not be scraped (`herald worker --metrics-port N`). 0 picks a free one.
   */
  metricsPort?: number;
  /** Called after the TLS certificate was reloaded from its files (tests wait for it). */
  onTlsReload?: () => void;
}

/** The SQLite file inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, 'herald.db');
}

/** Where the data lives, for banners and logs (never with a password). */
export function describeDatabase(config: HeraldConfig, env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL;
  if (url) {
    const u = new URL(url);
    return `PostgreSQL ${u.hostname}:${u.port || 5432}${u.pathname}${env.HERALD_PG_SCHEMA ? ` (schema ${env.HERALD_PG_SCHEMA})` : ''}`;
  }
  return `SQLite ${databasePath(config.data_dir)} (synchronous=${config.database.synchronous})`;
}

/**
 * Opens the store and applies migrations: PostgreSQL when DATABASE_URL is set
 * (postgres://…; HERALD_PG_SCHEMA picks a schema other than public), else the SQLite file
 * in the data directory.
 */
export async function openStore(config: HeraldConfig, env: NodeJS.ProcessEnv = process.env, logger?: StoreLogger): Promise<Store> {
  const store = connectStore(config, env, logger);
  try {
    await store.migrate();
  } catch (err) {
    // Silent on purpose: the migration's error is the one the caller reports, and a store that
    // failed to migrate may fail to close for the same reason (no logger exists yet here).
    await store.close().catch(() => {});
    throw err;
  }
  return store;
}

/** Opens the store without migrating (for `herald migrate`, which reports what it applies). */
export function connectStore(config: HeraldConfig, env: NodeJS.ProcessEnv = process.env, logger?: StoreLogger): Store {
  const url = env.DATABASE_URL;
  if (url !== undefined && url !== '') {
    if (!/^postgres(ql)?:\/\//.test(url)) throw new ConfigError('DATABASE_URL must be a postgres:// URL', 'DATABASE_URL');
    return openPostgresStore({
      connectionString: url,
      ...(env.HERALD_PG_SCHEMA ? { schema: env.HERALD_PG_SCHEMA } : {}),
      ...(env.HERALD_PG_POOL ? { maxConnections: Number(env.HERALD_PG_POOL) } : {}),
      contentCipher: contentCipherFor(config, 'postgres', env),
      ...(logger ? { logger } : {}),
    });
  }
  return openSqliteStore({
    path: databasePath(config.data_dir),
    synchronous: config.database.synchronous,
    contentCipher: contentCipherFor(config, 'sqlite', env),
    ...(logger ? { logger } : {}),
  });
}

/**
 * Builds the adapter for one configured provider account, by its kind (providers/registry.ts).
 * With Herald's public URL, the adapter knows where the provider should post its callbacks.
 */
export function createAdapter(account: ProviderAccountConfig, publicUrl?: string, deviceGateway?: DeviceGatewayPort | null): ProviderAdapter {
  const callbackUrl = publicUrl === undefined ? null : `${publicUrl.replace(/\/+$/, '')}/v1/callbacks/${encodeURIComponent(account.id)}`;
  return providerKind(account.kind).createAdapter(account, { callbackUrl, deviceGateway: deviceGateway ?? null });
}

/** The verifier of an account's delivery callbacks, or null when it receives none. */
export function createCallbackVerifier(account: ProviderAccountConfig): CallbackVerifier | null {
  return providerKind(account.kind).createCallbackVerifier(account);
}

/** Every configured account's inbound-message receiver, by account id (kinds and accounts without one are absent). */
export function inboundReceivers(accounts: readonly ProviderAccountConfig[]): Map<string, InboundReceiver> {
  const out = new Map<string, InboundReceiver>();
  for (const a of accounts) {
    const r = providerKind(a.kind).createInboundReceiver?.(a);
    if (r) out.set(a.id, r);
  }
  return out;
}

/** Every configured account's callback verifier, by account id (accounts without callbacks are absent). */
export function callbackVerifiers(accounts: readonly ProviderAccountConfig[]): Map<string, CallbackVerifier> {
  const out = new Map<string, CallbackVerifier>();
  for (const a of accounts) {
    const v = createCallbackVerifier(a);
    if (v) out.set(a.id, v);
  }
  return out;
}

/**
 * Refuses to start when a tenant's own route names an account the tenant is not assigned
 * (assignments live in the database, so the schema cannot check it; docs/routing.md).
 */
async function checkRouteAssignments(config: HeraldConfig, store: Store): Promise<void> {
  const tenants = [...new Set(config.routes.routes.map((r) => r.tenantId).filter((t) => t !== '*'))];
  const access = new Map(await Promise.all(tenants.map(async (t) => [t, await store.tenants.accountAccess(t)] as const)));
  const [problem] = routeAssignmentProblems(config.routes, (t, a) => mayUseAccount(access.get(t)!, t, a));
  if (problem) throw new ConfigError(`${problem.field} ${problem.message}`, problem.field);
}

/** The health of routes no evaluator watches (a one-account route): nothing demoted, no latency. */
const UNEVALUATED: RouteHealthView = { demotedIn: () => new Set(), latencyMs: () => new Map() };

/** Assembles the requested roles; nothing listens or loops until `start()`. */
export async function createHeraldNode(opts: NodeOptions): Promise<HeraldNode> {
  const { config, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const store = opts.store ?? (await openStore(config, process.env, logger));
  await checkRouteAssignments(config, store);
  const wake = new WakeSignal();
  const counters = new DeliveryCounters();
  // Every process evaluates the routes: the store makes one of them record each change.
  const routeEvaluator = config.routes.routes.some((r) => r.accounts.length > 1)
    ? new RouteEvaluator({
        store,
        clock,
        logger,
        routes: config.routes.routes,
        policy: config.routes.demotion,
        overrides: config.routes.demotionOverrides,
        intervalMs: config.routes.evaluateEveryMs,
        // Counted where recorded (one process per change); alerts read the changes from the store.
        onChange: (c) => counters.series.routeChanges.inc({ provider_account: c.providerAccount, action: c.action }),
      })
    : null;
  // Intake reads the routes' health as this process's evaluator last read it (no query per request);
  // a one-account route has no evaluator and nothing to demote, but still names its account.
  const routing = { routing: { routes: config.routes.routes, health: routeEvaluator ?? UNEVALUATED } };
  const failoverRouting = { ...routing.routing, failoverAfterUnknown: config.routes.failoverAfterUnknown };
  const adapters = new Map<string, ProviderAdapter>();
  let app: FastifyInstance | null = null;
  let worker: DeliveryWorker | null = null;
  let retention: RetentionService | null = null;
  let fallbacks: FallbackScheduler | null = null;
  let reconciler: Reconciler | null = null;
  let evidence: EvidenceApplier | null = null;
  let campaigns: CampaignRunner | null = null;
  let webhooks: HeraldNode['webhooks'] = null;
  let alerting: ReturnType<typeof createAlerter> = null;
  const webhookPolicy = new AddressPolicy({ allowNetworks: config.webhooks.allow_networks });
  let unlisten: (() => Promise<void>) | null = null;
  // The phones' gateway, shared by both roles of one process (offers signal its connections in memory).
  const devices = createDeviceGateway({
    store,
    clock,
    logger,
    accounts: config.provider_accounts,
    devices: config.devices,
    wake: (account) => wake.notify(account),
    ...(opts.random ? { random: opts.random } : {}),
    intervalMs: config.worker.sweep_interval_ms,
    onSignal: (status) => counters.series.signal('sms', status),
  });
  // Read at assembly, so a bad pair stops the process before anything listens.
  const tlsPair = opts.roles.includes('api') && config.tls ? readTls(config.tls) : null;
  let stopWatchingTls: (() => void) | null = null;

  // GET /metrics: the store's state (the same in every process) and this process's counters.
  const metrics = {
    metrics: new SystemMetrics({
      store,
      clock,
      counters,
      // Progress past accepted comes from callbacks (an account with a verifier) or a phone's reports.
      accounts: config.provider_accounts.map((a) => ({ ...a, reportsProgress: a.kind === 'android_gateway' || createCallbackVerifier(a) !== null })),
      deviceAwayMs: config.devices.away_after_seconds * 1000,
      acceptedProgressAfterMs: config.metrics.accepted_progress_after_s * 1000,
    }),
    token: metricsToken(config),
  };
  const metricsApp =
    opts.metricsPort !== undefined && !opts.roles.includes('api') ? await (await import('../http/metrics-app.js')).buildMetricsApp(metrics) : null;

  // A worker sends through these; so does an API process with the code fast path.
  const fastPathOn = opts.roles.includes('api') && config.worker.otp_fast_path && config.provider_accounts.length > 0;
  if (opts.roles.includes('worker') || fastPathOn) {
    for (const account of config.provider_accounts) adapters.set(account.id, createAdapter(account, config.public_url, devices?.offers));
  }
  // One cache of the tenants' scheduling policies per process, over the install's defaults (`scheduling:`).
  const scheduling = new SchedulingPolicies(store, clock, installSchedulingPolicy(config));
  const workerOptions = (workerId: string) => ({
    scheduling,
    store,
    adapters,
    clock,
    logger,
    wake,
    workerId,
    settings: config.worker,
    // Marketing e-mail carries one-click unsubscribe links to this URL (RFC 8058).
    unsubscribeLinks: new UnsubscribeLinks({ store, clock, publicUrl: config.public_url }),
    ...(opts.random ? { random: opts.random } : {}),
    counters,
    accounts: config.provider_accounts,
    // Failover within a channel (docs/routing.md): a qualifying answer moves the delivery along its route.
    routing: failoverRouting,
  });
  // Host, pid and a random suffix: a restarted process with a recycled pid is a new worker.
  const processId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  // The code fast path's own sender: a worker's claim → call → record path without its loops (src/delivery/otp-fast-path.ts).
  const fastPath = fastPathOn ? new OtpFastPath({ sender: new ClaimSender(workerOptions(`${opts.workerId ?? processId}:api`)), logger }) : null;

  if (opts.roles.includes('api')) {
    // SMS to every country, or codes without velocity limits: said once, loudly (docs/abuse-limits.md).
    for (const w of limitsWarnings(config.limits, config.provider_accounts.filter((a) => a.channel === 'sms').length)) logger.warn(w);
    // The dashboard's event streams in this process hear of intake's and replays' outbox rows at once.
    const outboxSignal = new OutboxSignal();
    // One renderer (and parse cache) for intake and the template previews.
    const templates = new TemplateRenderer(store);
    const intake = new IntakeService({
      store,
      templates,
      accounts: config.provider_accounts,
      clock,
      logger,
      wake: (account) => {
        wake.notify(account);
        outboxSignal.notify();
      },
      ...(fastPath ? { onCommitted: (n: NewNotification) => fastPath.offer(n) } : {}),
      counters,
      limits: config.limits,
      sendAtHorizonMs: config.scheduling.send_at_horizon_days * 86_400_000,
      ...routing,
    });
    const replay = new ReplayService({
      store,
      clock,
      wake: (account) => {
        wake.notify(account);
        outboxSignal.notify();
      },
      counters,
    });
    // Loaded here, not at the top: a worker process never builds the HTTP app, and Fastify, the
    // routes and their schemas are ~6.5 MB of live heap (docs/benchmarks.md, "Memory"), which V8's
    // heap growth multiplies into the peak.
    const { buildApp } = await import('../http/app.js');
    app = await buildApp({
      ...(tlsPair ? { https: tlsPair } : {}),
      serverLimits: {
        headersTimeoutMs: config.http.headers_timeout_s * 1000,
        requestTimeoutMs: config.http.request_timeout_s * 1000,
        keepAliveTimeoutMs: config.http.keep_alive_timeout_s * 1000,
        maxRequestsPerSocket: config.http.max_requests_per_socket,
      },
      store,
      intake,
      templates,
      replay,
      counters,
      accounts: config.provider_accounts,
      routes: config.routes.routes,
      acceptedProgressAfterMs: config.metrics.accepted_progress_after_s * 1000,
      clock,
      logger,
      logRequests: process.env.HERALD_LOG_REQUESTS === '1',
      callbackVerifiers: callbackVerifiers(config.provider_accounts),
      inboundReceivers: inboundReceivers(config.provider_accounts),
      // The URL providers were given for callbacks (Twilio signs it).
      publicUrl: config.public_url,
      // In one process, recorded callbacks are applied at once; other processes poll every second.
      onEvidence: () => evidence?.poke(),
      // In one process, a started or resumed campaign fans out at once; other processes poll every second.
      onCampaignRunnable: () => campaigns?.poke(),
      webhookPolicy,
      devices,
      metrics,
      outboxSignal,
      scheduling,
      dashboard: config.dashboard.enabled ? { sessionTtlS: config.dashboard.session_ttl_s, sessionIdleS: config.dashboard.session_idle_s } : null,
    });
  }
  if (opts.roles.includes('worker')) {
    worker = new DeliveryWorker(workerOptions(opts.workerId ?? processId));
    retention = new RetentionService({
      store,
      clock,
      logger,
      counters,
      intervalMs: config.retention.interval_ms,
      batchSize: config.retention.batch_size,
      policy: {
        contentDays: config.retention.content_days,
        destinationDays: config.retention.destination_days,
        otpEraseAfterSettled: config.retention.otp_erase_after_settled,
      },
    });
    fallbacks = new FallbackScheduler({ store, clock, logger, intervalMs: config.worker.sweep_interval_ms, wake: (account) => wake.notify(account) });
    reconciler = new Reconciler({
      store,
      clock,
      logger,
      adapters,
      accounts: config.provider_accounts,
      intervalMs: config.worker.sweep_interval_ms,
      counters,
      wake: (account) => wake.notify(account),
      ...(opts.random ? { random: opts.random } : {}),
      routing: failoverRouting,
    });
    evidence = new EvidenceApplier({ store, clock, logger, intervalMs: config.worker.sweep_interval_ms, counters });
    campaigns = new CampaignRunner({
      store,
      clock,
      logger,
      // Fan-out builds each notification with intake's own rules (no idempotency keys, no wake: the runner wakes).
      intake: new IntakeService({
        store,
        accounts: config.provider_accounts,
        clock,
        logger,
        limits: config.limits,
        sendAtHorizonMs: config.scheduling.send_at_horizon_days * 86_400_000,
        ...routing,
      }),
      accounts: config.provider_accounts,
      wake: (account) => wake.notify(account),
      intervalMs: config.worker.sweep_interval_ms,
      // The tenant's zone for recipients that name none, as the plan's waves and the send-time check read it.
      scheduling,
      // A campaign with a route is spread over its healthy accounts, as its plan counted them.
      routes: config.routes.routes,
    });
    webhooks = {
      relay: new WebhookRelay({ store, clock, logger, intervalMs: config.worker.sweep_interval_ms }),
      sender: new WebhookSender({
        store,
        clock,
        logger,
        policy: webhookPolicy,
        timeoutMs: config.webhooks.timeout_ms,
        concurrencyPerEndpoint: config.webhooks.concurrency_per_endpoint,
        intervalMs: config.worker.sweep_interval_ms,
        ...(opts.random ? { random: opts.random } : {}),
      }),
    };
    // Operator alerts send through the worker's own adapters, never through the queue they watch.
    alerting = createAlerter({ config, accounts: config.provider_accounts, adapters, store, clock, logger, registry: metrics.metrics.registry });
  }

  // Every process sweeps, an API without workers too: a code whose expiry passed ends `expired` (and
  // its producer hears so) while no worker is running, and a lease the code fast path left lapse
  // is rescued by the process that took it. Sweeps are writes guarded by state and fencing token,
  // so any number of sweepers agree; a pass is four statements a second.
  const sweeper = new Sweeper({ store, clock, logger, intervalMs: config.worker.sweep_interval_ms, counters });

  /**
   * The background services, in start order: the worker first, then the periodic
   * services (each a PeriodicService). Started in this order, stopped in reverse, so the worker's
   * calls in flight finish and are written while everything it may need still runs.
   */
  const services = (): Array<Pick<PeriodicService, 'start' | 'stop'>> =>
    [worker, sweeper, routeEvaluator, retention, fallbacks, reconciler, evidence, campaigns, webhooks?.relay, webhooks?.sender, alerting?.alerter].filter(
      (s): s is NonNullable<typeof s> => s !== null && s !== undefined,
    );

  return {
    store,
    app,
    metricsApp,
    worker,
    sweeper,
    routeEvaluator,
    retention,
    fallbacks,
    reconciler,
    evidence,
    campaigns,
    webhooks,
    devices,
    adapters,
    counters,
    alerter: alerting?.alerter ?? null,
    async start() {
      if (worker) {
        // Intake in another process (Postgres) wakes this one through the database.
        unlisten = await store
          .listenForReady((account) => wake.notify(account))
          .catch((err) => {
            logger.warn({ err }, 'cannot listen for ready work; falling back to polling');
            return null;
          });
      }
      for (const s of services()) s.start();
      if (worker) devices?.startLoops();
      if (metricsApp) {
        const url = await metricsApp.listen({ host: config.host, port: opts.metricsPort ?? 0 });
        logger.info({ url: `${url}/metrics` }, 'metrics listening');
      }
      if (app) await devices?.listen();
      if (!app) return null;
      const address = await app.listen({ host: config.host, port: config.port });
      if (config.tls) stopWatchingTls = watchTls(app.server as import('node:https').Server, config.tls, logger, opts.onTlsReload);
      return address;
    },
    async close() {
      // Order matters: stop taking requests, then let in-flight calls finish and be recorded,
      // then release sockets and the database.
      stopWatchingTls?.();
      await app?.close();
      // Codes the fast path is sending: their outcomes are written before the store closes.
      await fastPath?.drain();
      await metricsApp?.close();
      await unlisten?.();
      for (const s of services().reverse()) await s.stop();
      alerting?.close();
      await devices?.close();
      await Promise.allSettled([...adapters.values()].map((a) => a.close()));
      if (!opts.store) await store.close();
    },
  };
}
