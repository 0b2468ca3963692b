/**
 * The PostgreSQL driver, for many API and worker processes on many machines. Claims use
 * FOR UPDATE SKIP LOCKED inside one statement; transitions are written as one batched
 * statement; migrations take an advisory lock so processes starting together apply each
 * migration once. Times are BIGINT epoch ms, as in SQLite.
 *
 * The store is the core of the contract (parts/core.ts, with the dialect-specific methods below)
 * and composes the parts: those written once for both drivers (parts/) over this driver's
 * PostgresContext (sql-context.ts), extended where a part has methods of its own here. No module
 * imports this file back.
 */
import pg from 'pg';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  ApiKeyRecord,
  BatchItemOutcome,
  BatchKeyTerms,
  BatchNotification,
  ClaimedDelivery,
  ClaimRequest,
  CreatedNotification,
  IdempotencyRequest,
  LeaseRenewal,
  NewNotification,
  ReadyListener,
  Reservation,
  TenantIdempotencyCompletion,
  TransitionResult,
  TransitionWrite,
  Unsubscribe,
} from '../core-store.js';
import type { ContentCipher } from '../content-cipher.js';
import { loadMigrations } from '../named-sql.js';
import { AlertsPart } from '../parts/alerts.js';
import { AuditPart } from '../parts/audit.js';
import { CorePart } from '../parts/core.js';
import { EventStreamPart } from '../parts/event-stream.js';
import { FallbacksPart } from '../parts/fallbacks.js';
import { HealthPart } from '../parts/health.js';
import { RoutesPart } from '../parts/routes.js';
import { ObservabilityPart } from '../parts/observability.js';
import { PreferencesPart } from '../parts/preferences.js';
import { SchedulingPart } from '../parts/scheduling.js';
import { PushPart } from '../parts/push.js';
import { ReportsPart } from '../parts/reports.js';
import { ReviewPart } from '../parts/review.js';
import { SessionsPart } from '../parts/sessions.js';
import { TemplatesPart } from '../parts/templates.js';
import { TenantsPart } from '../parts/tenants.js';
import type { Store } from '../store.js';
import { errorFields, QUIET_STORE_LOGGER, type StoreLogger } from '../store-log.js';
import { toApiKeyRecord } from '../tenant-rows.js';
import { PostgresCampaigns } from './campaigns.js';
import { claimOn } from './claims.js';
import { Coalescer } from './coalescer.js';
import { PostgresDevices } from './devices.js';
import { PostgresEvidence } from './evidence.js';
import { IdempotencyReservations } from './idempotency.js';
import { PostgresIntakeLimits } from './intake-limits.js';
import { InboundPart } from '../parts/inbound.js';
import { PostgresLimiter } from './limiter.js';
import { NotificationWriter } from './notifications.js';
import { PostgresRetention } from './retention.js';
import { PostgresContext } from './sql-context.js';
import { applyRun, guardedTransition } from './transitions.js';
import { listen } from './listen.js';
import { PostgresWebhooks } from './webhooks.js';

const migrations = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/**
 * The advisory lock's class (any constant, the same in every Herald process); its second key is
 * the schema's hash, so processes migrating one schema queue, and other schemas (a test suite's
 * one schema per test, several installs on one server) migrate at the same time.
 */
const MIGRATION_LOCK = 72_616_001;

export interface PostgresStoreOptions {
  /** postgres://user@host:port/db */
  connectionString: string;
  /** Tables live in this schema (tests isolate themselves with one schema each). Default: public. */
  schema?: string;
  /** Pool size per process. Default 10. */
  maxConnections?: number;
  /** Seals message content at rest (content-cipher.ts). Absent: content in clear (the runtime always passes one). */
  contentCipher?: ContentCipher | null;
  /** Where errors the store handles itself are logged (store-log.ts). Absent: nowhere (the runtime always passes one). */
  logger?: StoreLogger;
}

/** Opens a pooled Postgres store; call `migrate()` before use. */
export function openPostgresStore(options: PostgresStoreOptions): PostgresStore {
  return new PostgresStore(options);
}

/** The pool (one per store) and the context every part of it shares. */
function contextFor(options: PostgresStoreOptions): PostgresContext {
  const schema = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,50}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    // search_path per connection: every named statement stays schema-agnostic.
    options: `-c search_path=${schema}`,
  });
  const log = options.logger ?? QUIET_STORE_LOGGER;
  // An idle client's error (server restart) must not crash the process: the pool drops that
  // client and connects a new one when next asked, and the caller of the next query sees any
  // lasting failure; nothing here has a caller to tell, so it is logged.
  pool.on('error', (err) => log.warn(errorFields(err), 'store: an idle pooled connection failed; the pool replaces it'));
  return new PostgresContext(pool, schema, options.contentCipher ?? null, log);
}

export class PostgresStore extends CorePart<PostgresContext> implements Store {
  readonly driver = 'postgres' as const;
  private readonly sql: PostgresContext;
  private readonly notifications: NotificationWriter;
  private readonly reservations: IdempotencyReservations;
  readonly evidence: PostgresEvidence;
  readonly limiter: PostgresLimiter;
  readonly webhooks: PostgresWebhooks;
  readonly campaigns: PostgresCampaigns;
  readonly preferences: PreferencesPart;
  readonly scheduling: SchedulingPart;
  readonly review: ReviewPart;
  readonly fallbacks: FallbacksPart;
  readonly health: HealthPart;
  readonly routes: RoutesPart;
  readonly devices: PostgresDevices;
  readonly push: PushPart;
  readonly reports: ReportsPart;
  readonly intakeLimits: PostgresIntakeLimits;
  readonly inbound: InboundPart;
  readonly alerts: AlertsPart;
  readonly sessions: SessionsPart;
  readonly audit: AuditPart;
  readonly tenants: TenantsPart;
  readonly eventStream: EventStreamPart;
  readonly templates: TemplatesPart;
  readonly observability: ObservabilityPart;
  readonly retention: PostgresRetention;

  constructor(private readonly options: PostgresStoreOptions) {
    super(contextFor(options));
    this.sql = this.x;
    this.notifications = new NotificationWriter(this.sql);
    this.reservations = new IdempotencyReservations(this.sql);
    this.evidence = new PostgresEvidence(this.sql);
    this.limiter = new PostgresLimiter(this.sql);
    this.webhooks = new PostgresWebhooks(this.sql);
    this.campaigns = new PostgresCampaigns(this.sql);
    this.preferences = new PreferencesPart(this.sql);
    this.scheduling = new SchedulingPart(this.sql, guardedTransition);
    this.review = new ReviewPart(this.sql, guardedTransition);
    this.fallbacks = new FallbacksPart(this.sql);
    this.health = new HealthPart(this.sql);
    this.routes = new RoutesPart(this.sql);
    this.devices = new PostgresDevices(this.sql, options.connectionString);
    this.push = new PushPart(this.sql);
    this.reports = new ReportsPart(this.sql);
    this.intakeLimits = new PostgresIntakeLimits(this.sql);
    this.inbound = new InboundPart(this.sql);
    this.alerts = new AlertsPart(this.sql);
    this.sessions = new SessionsPart(this.sql);
    this.audit = new AuditPart(this.sql);
    this.tenants = new TenantsPart(this.sql);
    this.eventStream = new EventStreamPart(this.sql);
    this.templates = new TemplatesPart(this.sql);
    this.observability = new ObservabilityPart(this.sql);
    this.retention = new PostgresRetention(this.sql);
  }

  async migrate(): Promise<string[]> {
    const c = await this.sql.pool.connect();
    const applied: string[] = [];
    try {
      // Session-level advisory lock: processes starting together queue here, then each sees
      // what the first applied. Taken before CREATE SCHEMA, whose IF NOT EXISTS is not safe
      // against a concurrent creator.
      await c.query('SELECT pg_advisory_lock($1, hashtext($2))', [MIGRATION_LOCK, this.sql.schema]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.sql.schema}`);
      await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
      const done = new Set((await c.query('SELECT version FROM schema_migrations')).rows.map((r: { version: unknown }) => Number(r.version)));
      for (const m of loadMigrations(migrations)) {
        if (done.has(m.version)) continue;
        await c.query('BEGIN');
        try {
          await c.query(m.sql);
          await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
          await c.query('COMMIT');
        } catch (err) {
          // The migration's error is the one thrown; a ROLLBACK that fails too is only logged.
          await c
            .query('ROLLBACK')
            .catch((e: unknown) => this.sql.log.warn({ migration: m.name, ...errorFields(e) }, 'store: ROLLBACK of a failed migration failed'));
          throw err;
        }
        applied.push(m.name);
      }
    } finally {
      // The lock is the session's: it goes with the connection if the unlock cannot be sent.
      await c
        .query('SELECT pg_advisory_unlock($1, hashtext($2))', [MIGRATION_LOCK, this.sql.schema])
        .catch((e: unknown) => this.sql.log.warn(errorFields(e), 'store: releasing the migration lock failed; it ends with the connection'));
      c.release();
    }
    return applied;
  }

  /** Ends the pool; safe to call more than once, like the SQLite driver's. */
  async close(): Promise<void> {
    await this.sql.close();
  }

  // ---- dialect-specific: PostgreSQL's own way of doing these (see parts/core.ts for the list and SQLite's)

  /** Every API request looks its key up: concurrent look-ups share one query (see Coalescer). */
  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.keyLookups.push(keyHash);
  }

  private readonly keyLookups = new Coalescer<string, ApiKeyRecord | null>(
    async (hashes) => {
      const rows = await this.sql.all('api_keys_find', { key_hashes: hashes });
      const found = new Map(rows.map((r) => [String(r.key_hash), toApiKeyRecord(r)]));
      return hashes.map((h) => ({ ok: true, value: found.get(h) ?? null }));
    },
    2,
    256,
  );

  /** A new key is taken by a coalesced insert; one that exists is decided in a transaction (see IdempotencyReservations). */
  async reserveIdempotencyKey(r: IdempotencyRequest): Promise<Reservation> {
    return this.reservations.reserve(r);
  }

  /** Group-committed with concurrent intake writes where it can be (see NotificationWriter). */
  async createNotification(n: NewNotification, idem?: TenantIdempotencyCompletion): Promise<CreatedNotification> {
    return this.notifications.create(n, idem);
  }

  /** One transaction for the batch, multi-row where it can be (see NotificationWriter.createBatch). */
  async createNotifications(items: BatchNotification[], keys?: BatchKeyTerms): Promise<BatchItemOutcome[]> {
    return this.notifications.createBatch(items, keys);
  }

  async claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return claimOn(this.sql, req, this.sql.pool);
  }

  async renewLeases(r: LeaseRenewal): Promise<string[]> {
    if (r.leases.length === 0) return [];
    const rows = await this.sql.all('lease_renew', {
      ids: r.leases.map((l) => l.deliveryId),
      lease_versions: r.leases.map((l) => l.leaseVersion),
      worker_id: r.workerId,
      lease_until: r.leaseUntil,
      now: r.now,
    });
    return rows.map((x) => String(x.id));
  }

  async applyTransitions(writes: TransitionWrite[]): Promise<TransitionResult[]> {
    if (writes.length === 0) return [];
    // One statement sees one snapshot, so a delivery named twice would be decided twice against
    // its old state. Split such batches into runs of distinct ids, applied in order.
    const runs: TransitionWrite[][] = [[]];
    let seen = new Set<string>();
    for (const w of writes) {
      if (seen.has(w.deliveryId)) {
        runs.push([]);
        seen = new Set();
      }
      seen.add(w.deliveryId);
      runs[runs.length - 1]!.push(w);
    }
    if (runs.length === 1) {
      // The usual batch (distinct ids): one statement is one transaction, one round trip.
      const ids = await applyRun(this.sql, writes, this.sql.pool);
      return writes.map((w) => ({ deliveryId: w.deliveryId, applied: ids.has(w.deliveryId) }));
    }
    const applied = new Array<boolean>(writes.length).fill(false);
    await this.sql.tx(async (c) => {
      let offset = 0;
      for (const run of runs) {
        const ids = await applyRun(this.sql, run, c);
        run.forEach((w, i) => (applied[offset + i] = ids.has(w.deliveryId)));
        offset += run.length;
      }
    });
    return writes.map((w, i) => ({ deliveryId: w.deliveryId, applied: applied[i]! }));
  }

  async listenForReady(onReady: ReadyListener): Promise<Unsubscribe> {
    return listen({
      channel: this.sql.readyChannel,
      onPayload: onReady,
      log: this.sql.log,
      connect: () => new pg.Client({ connectionString: this.options.connectionString }),
    });
  }
}
