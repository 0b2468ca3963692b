/**
 * The embedded SQLite driver: WAL, synchronous=FULL by default (an acknowledged notification
 * survives power loss), one writer at a time. better-sqlite3 is synchronous, so each method
 * runs its transaction to completion before yielding: a transaction never spans an await.
 *
 * The store is the core of the contract (parts/core.ts, with the dialect-specific methods below)
 * and composes the parts: those written once for both drivers (parts/) over this driver's
 * SqliteContext (sql-context.ts), extended where a part has methods of its own here. No module
 * imports this file back. Intake's writes (createNotification, reserveIdempotencyKey) are
 * group-committed: see SqliteContext.grouped for exactly when a caller's write is durable.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
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
import type { Row } from '../rows.js';
import type { Store } from '../store.js';
import type { StoreLogger } from '../store-log.js';
import { toApiKeyRecord } from '../tenant-rows.js';
import { SqliteCampaigns } from './campaigns.js';
import { claimDue } from './claims.js';
import { SqliteDevices } from './devices.js';
import { SqliteEvidence } from './evidence.js';
import { takeIdempotencyKey } from './idempotency.js';
import { SqliteIntakeLimits } from './intake-limits.js';
import { InboundPart } from '../parts/inbound.js';
import { SqliteLimiter } from './limiter.js';
import { insertNotification, insertNotifications, mapCreateError } from './notifications.js';
import { SqliteRetention } from './retention.js';
import { SqliteContext } from './sql-context.js';
import { applyTransition, guardedTransition } from './transitions.js';
import { SqliteWebhooks } from './webhooks.js';

const migrations = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface SqliteStoreOptions {
  /** Database file; `:memory:` for a throwaway store. */
  path: string;
  /** FULL (default) fsyncs every commit; NORMAL may lose the last commits on power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long a writer waits for the lock held by another process before failing. */
  busyTimeoutMs?: number;
  /** Seals message content at rest (content-cipher.ts). Absent: content in clear (the runtime always passes one). */
  contentCipher?: ContentCipher | null;
  /** Where errors the store handles itself are logged (store-log.ts). Absent: nowhere (the runtime always passes one). */
  logger?: StoreLogger;
}

/** Opens (creating if needed) a SQLite store; call `migrate()` before use. */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('foreign_keys = ON');
  return new SqliteStore(db, options.contentCipher ?? null, options.logger);
}

export class SqliteStore extends CorePart<SqliteContext> implements Store {
  readonly driver = 'sqlite' as const;
  private readonly sql: SqliteContext;
  readonly evidence: SqliteEvidence;
  readonly limiter: SqliteLimiter;
  readonly webhooks: SqliteWebhooks;
  readonly campaigns: SqliteCampaigns;
  readonly preferences: PreferencesPart;
  readonly scheduling: SchedulingPart;
  readonly review: ReviewPart;
  readonly fallbacks: FallbacksPart;
  readonly health: HealthPart;
  readonly routes: RoutesPart;
  readonly devices: SqliteDevices;
  readonly push: PushPart;
  readonly reports: ReportsPart;
  readonly intakeLimits: SqliteIntakeLimits;
  readonly inbound: InboundPart;
  readonly alerts: AlertsPart;
  readonly sessions: SessionsPart;
  readonly audit: AuditPart;
  readonly tenants: TenantsPart;
  readonly eventStream: EventStreamPart;
  readonly templates: TemplatesPart;
  readonly observability: ObservabilityPart;
  readonly retention: SqliteRetention;

  constructor(db: Database.Database, cipher: ContentCipher | null = null, logger?: StoreLogger) {
    super(new SqliteContext(db, cipher, logger));
    this.sql = this.x;
    this.evidence = new SqliteEvidence(this.sql);
    this.limiter = new SqliteLimiter(this.sql);
    this.webhooks = new SqliteWebhooks(this.sql);
    this.campaigns = new SqliteCampaigns(this.sql);
    this.preferences = new PreferencesPart(this.sql);
    this.scheduling = new SchedulingPart(this.sql, guardedTransition);
    this.review = new ReviewPart(this.sql, guardedTransition);
    this.fallbacks = new FallbacksPart(this.sql);
    this.health = new HealthPart(this.sql);
    this.routes = new RoutesPart(this.sql);
    this.devices = new SqliteDevices(this.sql);
    this.push = new PushPart(this.sql);
    this.reports = new ReportsPart(this.sql);
    this.intakeLimits = new SqliteIntakeLimits(this.sql);
    this.inbound = new InboundPart(this.sql);
    this.alerts = new AlertsPart(this.sql);
    this.sessions = new SessionsPart(this.sql);
    this.audit = new AuditPart(this.sql);
    this.tenants = new TenantsPart(this.sql);
    this.eventStream = new EventStreamPart(this.sql);
    this.templates = new TemplatesPart(this.sql);
    this.observability = new ObservabilityPart(this.sql);
    this.retention = new SqliteRetention(this.sql);
  }

  async migrate(): Promise<string[]> {
    const db = this.sql.db;
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const applied: string[] = [];
    const run = db.transaction(() => {
      const done = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Row[]).map((r) => Number(r.version)));
      for (const m of loadMigrations(migrations)) {
        if (done.has(m.version)) continue;
        db.exec(m.sql);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
        applied.push(m.name);
      }
      // A migration may rebuild a table (SQLite changes a CHECK only that way, e.g. 0010): with
      // foreign keys off its DROP does not cascade, so every reference is checked here instead,
      // and one left dangling rolls the whole run back.
      const dangling = db.pragma('foreign_key_check') as Row[];
      if (dangling.length > 0) throw new Error(`a migration left ${dangling.length} broken foreign key reference(s), e.g. in ${String(dangling[0]!.table)}`);
    });
    // Foreign keys can only be switched outside a transaction (https://www.sqlite.org/foreignkeys.html).
    db.pragma('foreign_keys = OFF');
    try {
      // IMMEDIATE: two processes starting at once serialize here instead of both applying 0001.
      run.immediate();
    } finally {
      db.pragma('foreign_keys = ON');
    }
    return applied;
  }

  async close(): Promise<void> {
    // Intake writes waiting for their group commit are written (or refused) before closing.
    if (this.sql.db.open) this.sql.flushWrites();
    if (this.sql.db.open) this.sql.db.close();
  }

  // ---- dialect-specific: SQLite's own way of doing these (see parts/core.ts for the list and PostgreSQL's)

  /** One indexed read (PostgreSQL coalesces concurrent look-ups into one statement instead). */
  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const r = await this.sql.one('api_keys_find', { key_hash: keyHash });
    return r ? toApiKeyRecord(r) : null;
  }

  async reserveIdempotencyKey(r: IdempotencyRequest): Promise<Reservation> {
    // Group-committed with other intake writes (see SqliteContext.grouped): decided in arrival
    // order inside the shared transaction, answered once it is committed.
    return this.sql.grouped(() => takeIdempotencyKey(this.sql, r));
  }

  /** Written by group commit (see SqliteContext.grouped); a duplicate delivery identity is a StoreConflictError. */
  async createNotification(n: NewNotification, idem?: TenantIdempotencyCompletion): Promise<CreatedNotification> {
    try {
      return await this.sql.grouped(() => insertNotification(this.sql, n, idem));
    } catch (err) {
      throw mapCreateError(err);
    }
  }

  /**
   * One `BEGIN IMMEDIATE … COMMIT` (one fsync) for the whole batch; each item in its own
   * savepoint, in the order given, so a conflict rolls back that item alone.
   */
  async createNotifications(items: BatchNotification[], keys?: BatchKeyTerms): Promise<BatchItemOutcome[]> {
    if (items.length === 0) return [];
    try {
      return this.sql.write(() => insertNotifications(this.sql, items, keys));
    } catch (err) {
      throw mapCreateError(err);
    }
  }

  async claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return this.sql.write(() => claimDue(this.sql, req));
  }

  /** One statement per lease, in one transaction (PostgreSQL: one statement over arrays). */
  async renewLeases(r: LeaseRenewal): Promise<string[]> {
    const renewed = this.sql.write(() =>
      r.leases.filter(
        (l) =>
          this.sql.stmt('lease_renew').run({ id: l.deliveryId, lease_version: l.leaseVersion, worker_id: r.workerId, lease_until: r.leaseUntil, now: r.now })
            .changes === 1,
      ),
    );
    return renewed.map((l) => l.deliveryId);
  }

  /** Three statements per write, in one transaction (PostgreSQL: one statement per batch). */
  async applyTransitions(writes: TransitionWrite[]): Promise<TransitionResult[]> {
    if (writes.length === 0) return [];
    return this.sql.write((): TransitionResult[] => writes.map((w) => ({ deliveryId: w.deliveryId, applied: applyTransition(this.sql, w) })));
  }

  async listenForReady(): Promise<Unsubscribe> {
    // One process per SQLite file is the norm; intake wakes its own workers in memory.
    return async () => {};
  }
}
