/**
 * `buildApp(deps)` assembles the HTTP API without listening: tests drive it through
 * `app.inject()`, the CLI calls `listen`. Cross-cutting checks (auth, problem documents)
 * are plugins; each route group registers itself.
 */
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import { addResponseSchemas } from './response-schemas.js';
import { cachedSerializerFactory } from './serializer-cache.js';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ERROR_CODES } from '../errors.js';
import type { ReplayService } from '../delivery/replay-service.js';
import type { IntakeService } from '../intake/intake-service.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { Store } from '../store/store.js';
import { requireApiKey } from './auth.js';
import { frameworkErrorHandler, installProblemHandlers } from './problem-handler.js';
import { refuseNulCharacters } from './nul-guard.js';
import { requirementOf, routeKey } from './route-scopes.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { notificationRoutes } from './routes/notifications.js';
import { reviewRoutes } from './routes/review.js';
import { statsRoutes } from './routes/stats.js';
import { providerAccountRoutes } from './routes/provider-accounts.js';
import { webhookRoutes } from './routes/webhooks.js';
import { campaignRoutes } from './routes/campaigns.js';
import { audienceRoutes } from './routes/audiences.js';
import { recipientProfileRoutes } from './routes/recipient-profiles.js';
import { recipientErasureRoutes } from './routes/recipient-erasure.js';
import { erasureRoutes } from './routes/erasures.js';
import type { RetentionService } from '../delivery/retention-service.js';
import type { AddressPolicy } from '../webhooks/address-policy.js';
import type { CallbackVerifier, InboundReceiver, ProviderAccountConfig } from '../providers/provider.js';
import { callbackRoutes } from './routes/callbacks.js';
import { inboundWebhookRoutes } from './routes/inbound-webhooks.js';
import { preferenceRoutes } from './routes/preferences.js';
import { suppressionRoutes } from './routes/suppressions.js';
import { unsubscribeRoutes } from './routes/unsubscribe.js';
import { pushSubscriptionRoutes } from './routes/push-subscriptions.js';
import { reportRoutes } from './routes/reports.js';
import { alertRoutes } from './routes/alerts.js';
import { templateRoutes } from './routes/templates.js';
import { TemplateRenderer } from '../templates/template-renderer.js';
import { keyRoutes } from './routes/keys.js';
import { LiveKeys } from './live-keys.js';
import { tenantRoutes } from './routes/tenants.js';
import { auditRoutes } from './routes/audit.js';
import type { UnsubscribeLinks } from '../preferences/unsubscribe-links.js';
import type { Clock } from '../clock.js';
import type { DeviceGateway } from '../devices/device-gateway.js';
import { deviceApiRoutes } from './routes/device-api.js';
import { deviceRoutes } from './routes/devices.js';
import { smsgateThirdPartyRoutes } from './routes/smsgate-third-party.js';
import { metricsRoutes, type MetricsRouteDeps } from './routes/metrics.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { sessionRoutes } from './routes/session.js';
import { eventStreamRoutes } from './routes/event-stream.js';
import type { OutboxSignal } from './outbox-signal.js';
import type { LoginLimiter } from './login-limiter.js';
import { DEFAULT_SESSION_IDLE_S, DEFAULT_SESSION_TTL_S, type SessionAuth } from './session-auth.js';
import { systemClock } from '../clock.js';
import { NO_INTAKE_LIMITS, type IntakeLimitsPolicy, type Route } from '../domain/index.js';
import { installRequestLimits } from './request-limits.js';
import { limitsRoutes } from './routes/limits.js';
import { schedulingRoutes } from './routes/scheduling.js';
import type { SchedulingPolicies } from '../delivery/scheduling-policies.js';

export interface AppDeps {
  /** Serve HTTPS with this certificate and key (the runtime reloads them when the files change). */
  https?: { key: Buffer; cert: Buffer };
  /** The listening server's limits against slow clients (config `http`). Default: config's defaults. */
  serverLimits?: ServerLimits;
  store: Store;
  intake: IntakeService;
  /** Template previews' renderer (the one intake renders with, so they share its parse cache). Default: a new one over the store. */
  templates?: TemplateRenderer;
  /** Operator replays and the review queue. */
  replay: ReplayService;
  /** How long an `unknown` delivery waits for reconciliation before the review queue lists it. Default 15 minutes. */
  reviewUnknownAfterMs?: number;
  /**
   * The process logger: the app's own error lines (an unexpected error answered 500, a failed
   * callback write) go to it. Absent or false: the app logs nothing (tests).
   */
  logger?: Logger | false;
  /**
   * Called once the shared schemas are registered and before any route: where a test adds its
   * own hooks (test/http/operator-answers.test.ts sees each answer before its schema serializes it).
   */
  beforeRoutes?: (app: FastifyInstance) => void;
  /** Whether every request and its answer get a log line too (HERALD_LOG_REQUESTS=1). Default true when `logger` is given. */
  logRequests?: boolean;
  version?: string;
  /** Config `metrics.accepted_progress_after_s` in ms, for GET /v1/stats. Default 30 minutes. */
  acceptedProgressAfterMs?: number;
  /** The process's counters: `user_resends` counted by the resend route, callbacks by the callback route. Default: none kept. */
  counters?: DeliveryCounters;
  /** Configured provider accounts, shown (without credentials) at GET /v1/provider-accounts. */
  accounts?: ProviderAccountConfig[];
  /** The configured routes (config `routes:`), listed by GET /v1/provider-accounts with each account's standing. Default: none. */
  routes?: readonly Route[];
  clock?: Clock;
  /** Which customer webhook URLs may be registered (webhooks.allow_networks). Default: public addresses only. */
  webhookPolicy?: AddressPolicy;
  /** Verifiers of the provider accounts that receive delivery callbacks at POST /v1/callbacks/:id. */
  callbackVerifiers?: ReadonlyMap<string, CallbackVerifier>;
  /** Receivers of the provider accounts that take incoming messages at POST /v1/callbacks/:id/inbound (Twilio). */
  inboundReceivers?: ReadonlyMap<string, InboundReceiver>;
  /** Called when callbacks recorded new events (wakes an in-process evidence applier). */
  onEvidence?: () => void;
  /** Herald's public URL (config `public_url`): callbacks whose signature covers the URL are checked against it. */
  publicUrl?: string;
  /** Verifies one-click unsubscribe tokens at /v1/unsubscribe/:token. Default: one over `store` (the key is in the database). */
  unsubscribe?: UnsubscribeLinks;
  /** Called when a campaign starts, resumes or is cancelled (wakes an in-process campaign runner). */
  onCampaignRunnable?: () => void;
  /** The Android phone gateway: its device API under devices.base_path and /v1/devices. Absent: no android_gateway account. */
  devices?: DeviceGateway | null;
  /** GET /metrics (Prometheus text format) and its optional bearer token. Absent: no /metrics route. */
  metrics?: MetricsRouteDeps | null;
  /** DELETE /v1/recipients/:id erases through it (it keeps the destination-hash secret). Default: one over `store`. */
  retention?: RetentionService;
  /** The dashboard (config `dashboard`): /dashboard, sign-in sessions, the cookie on /v1. Default: on, with the default lifetimes; null: off. */
  dashboard?: DashboardDeps | null;
  /** This process's commits of outbox rows, so GET /v1/events/stream sends them at once (else it polls every second). */
  outboxSignal?: OutboxSignal | null;
  /** How often an event stream polls the store (tests shorten it). Default 1000 ms. */
  eventStreamPollMs?: number;
  /** How often an idle event stream gets a comment line (tests shorten it). Default 15 000 ms. */
  eventStreamHeartbeatMs?: number;
  /** How often a session's event stream re-reads its session (tests shorten it). Default 5000 ms. */
  eventStreamSessionCheckMs?: number;
  /** The limits on the way in (config `limits`, docs/abuse-limits.md): the per-key request quota here, shown at GET /v1/limits. Default: intake's. */
  limits?: IntakeLimitsPolicy;
  /** The process's cache of tenants' scheduling policies over the install's defaults (GET/PUT /v1/scheduling). Default: one over the issue's defaults. */
  scheduling?: SchedulingPolicies;
}

/** One method of one route as registered (test/http/tenant-isolation.test.ts walks them all). */
export interface RouteTableEntry {
  method: string;
  url: string;
  /** Its key in route-scopes.ts. */
  key: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, in order. */
    routeTable: readonly RouteTableEntry[];
  }
}

/** The dashboard's server side (docs/dashboard.md). */
export interface DashboardDeps {
  /** Absolute session lifetime in seconds (dashboard.session_ttl_s). Default 28800. */
  sessionTtlS?: number;
  /** Idle timeout in seconds (dashboard.session_idle_s). Default 3600. */
  sessionIdleS?: number;
  /** The built web app's folder. Default dist/web of this checkout. */
  webRoot?: string;
  /** Failed sign-ins (tests pass their own to see the limit). */
  loginLimiter?: LoginLimiter;
}

/** What node:http enforces on the listening server (config `http`, docs/security.md). */
export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** 0: no limit. */
  maxRequestsPerSocket: number;
  /**
   * How often node:http looks for connections past their timeouts (its default is 30 s, so a
   * slowloris client would hold a connection up to 30 s past headersTimeout). Default 1 s.
   */
  checkIntervalMs?: number;
}

/** config `http`'s defaults, for an app built without a config (tests). */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
  maxRequestsPerSocket: 1000,
};

/**
 * Headers on every answer unless its route set its own (the dashboard's CSP, the unsubscribe
 * page's): API answers are JSON, so a browser is told not to sniff them into HTML, not to frame
 * them, not to run anything in them, and not to send a Referer (URLs carry unsubscribe tokens).
 */
const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
};

/** 256 KiB: room for an HTML e-mail body; anything larger is refused with 413. */
export const BODY_LIMIT_BYTES = 256 * 1024;

const problemSchema = {
  $id: 'problem',
  type: 'object',
  description: 'RFC 9457 problem details',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    detail: { type: 'string' },
    instance: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
    limit: {
      type: 'object',
      description: 'The limit that refused the request (docs/abuse-limits.md): its name and bound.',
      properties: { name: { type: 'string' } },
      additionalProperties: true,
    },
    retry_after_s: { type: 'integer', description: 'Seconds until the request may pass (as Retry-After).' },
  },
} as const;

/** Builds the Fastify app with every route registered; does not listen. */
export async function buildApp(given: AppDeps): Promise<FastifyInstance> {
  // The one place a missing clock becomes the system clock: every route reads time from `deps.clock`.
  // One cache of live API keys for the whole app: the bearer check, the SMSGate API's Basic
  // password and the key routes (which forget what they revoke) share it.
  const deps = { ...given, clock: given.clock ?? systemClock, liveKeys: new LiveKeys(given.store) };
  const limits = deps.serverLimits ?? DEFAULT_SERVER_LIMITS;
  // node:http's own clocks: headers and the whole request each have a deadline (slowloris).
  const serverOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs ?? 1_000,
  };
  const app: FastifyInstance = Fastify({
    ...(deps.https ? { https: { key: deps.https.key, cert: deps.https.cert, ...serverOptions } } : { http: serverOptions }),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
    ...(deps.logger
      ? { loggerInstance: deps.logger, logController: new LogController({ disableRequestLogging: deps.logRequests === false }) }
      : { logger: false }),
    bodyLimit: BODY_LIMIT_BYTES,
    // One-click unsubscribe tokens travel in the path (RFC 8058) and run to ~1,200 characters
    // for the longest recipient ids; Fastify's default of 100 would answer 414.
    routerOptions: { maxParamLength: 1600 },
    frameworkErrors: frameworkErrorHandler,
    // Strict bodies: unknown fields are errors, not silently dropped; "2" is not 2.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    // Response serializers compiled once per process and shared by every app (serializer-cache.ts).
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
  }) as unknown as FastifyInstance;
  // Only JSON bodies: text/plain would otherwise reach handlers as a string.
  app.removeContentTypeParser('text/plain');
  installProblemHandlers(app);
  refuseNulCharacters(app);
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
    // On HTTPS, browsers (the dashboard) are told to stay on HTTPS: one year, per RFC 6797.
    if (deps.https) reply.header('strict-transport-security', 'max-age=31536000');
  });
  app.addSchema(problemSchema);
  addResponseSchemas(app);
  deps.beforeRoutes?.(app);
  // Every route must say what it needs (route-scopes.ts): a route the table does not list stops
  // the app from starting, so no route goes out without a scope by accident.
  const deviceBasePath = deps.devices ? deps.devices.basePath : null;
  const routeTable: RouteTableEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (requirementOf(method, route.url, deviceBasePath) === undefined)
        throw new Error(`route ${routeKey(method, route.url, deviceBasePath)} has no entry in src/http/route-scopes.ts (ROUTE_SCOPES)`);
      routeTable.push({ method, url: route.url, key: routeKey(method, route.url, deviceBasePath) });
    }
  });
  const dashboard = deps.dashboard === undefined ? {} : deps.dashboard;
  const sessions: SessionAuth | null =
    dashboard === null
      ? null
      : {
          ttlMs: (dashboard.sessionTtlS ?? DEFAULT_SESSION_TTL_S) * 1000,
          idleMs: (dashboard.sessionIdleS ?? DEFAULT_SESSION_IDLE_S) * 1000,
          clock: deps.clock,
        };
  if (sessions !== null) await app.register(cookie);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Herald API',
        version: deps.version ?? '0.1.0',
        description: 'Notification delivery that never guesses. Errors are RFC 9457 problem documents with a stable `code`.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    // A shared schema is named by its $id in components.schemas (not def-0, def-1, ...), so the
    // generated types (web/src/api-types.ts, @herald/client) keep the names response-schemas.ts gives.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok', driver: deps.store.driver }));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  if (deps.metrics) metricsRoutes(app, deps.metrics);
  await callbackRoutes(app, deps);
  await inboundWebhookRoutes(app, deps);
  await unsubscribeRoutes(app, deps);
  if (deps.devices) await deviceApiRoutes(app, deps.devices, deps.publicUrl ? deps.publicUrl.replace(/\/+$/, '') : null);
  await smsgateThirdPartyRoutes(app, deps);
  if (dashboard !== null && sessions !== null) {
    await dashboardRoutes(app, dashboard.webRoot ? { webRoot: dashboard.webRoot } : {});
    sessionRoutes(app, {
      store: deps.store,
      sessions,
      secureCookie: deps.https !== undefined,
      ...(dashboard.loginLimiter ? { limiter: dashboard.loginLimiter } : {}),
    });
  }
  await app.register(async (v1) => {
    requireApiKey(v1, deps.store, deps.liveKeys, sessions, deps.clock);
    const limits = deps.limits ?? deps.intake.limits?.policy ?? NO_INTAKE_LIMITS;
    installRequestLimits(v1, { store: deps.store, clock: deps.clock, policy: limits, ...(deps.counters ? { counters: deps.counters } : {}) });
    limitsRoutes(v1, { limits });
    notificationRoutes(v1, deps);
    deliveryRoutes(v1, deps);
    reviewRoutes(v1, deps);
    statsRoutes(v1, deps);
    providerAccountRoutes(v1, deps);
    webhookRoutes(v1, deps);
    preferenceRoutes(v1, deps);
    suppressionRoutes(v1, deps);
    schedulingRoutes(v1, deps);
    campaignRoutes(v1, deps);
    audienceRoutes(v1, deps);
    recipientProfileRoutes(v1, deps);
    recipientErasureRoutes(v1, deps);
    erasureRoutes(v1, deps);
    if (deps.devices) deviceRoutes(v1, { operator: deps.devices.operator, store: deps.store, clock: deps.clock });
    pushSubscriptionRoutes(v1, deps);
    reportRoutes(v1, deps);
    alertRoutes(v1, deps);
    eventStreamRoutes(v1, {
      store: deps.store,
      signal: deps.outboxSignal ?? null,
      ...(deps.eventStreamPollMs !== undefined ? { pollMs: deps.eventStreamPollMs } : {}),
      ...(deps.eventStreamHeartbeatMs !== undefined ? { heartbeatMs: deps.eventStreamHeartbeatMs } : {}),
      ...(deps.eventStreamSessionCheckMs !== undefined ? { sessionCheckMs: deps.eventStreamSessionCheckMs } : {}),
      sessions,
    });
    templateRoutes(v1, { ...deps, renderer: deps.templates ?? new TemplateRenderer(deps.store) });
    keyRoutes(v1, deps);
    tenantRoutes(v1, { ...deps, assignmentsChanged: () => deps.intake.accountAccess.forget() });
    auditRoutes(v1, deps);
  });
  await app.ready();
  return app;
}
