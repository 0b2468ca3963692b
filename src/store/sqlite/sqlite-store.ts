/**
 * The embedded SQLite driver: WAL, synchronous=FULL by default (an acknowledged notification
 * survives power loss), one writer at a time. better-sqlite3 is synchronous, so each method
 * runs its transaction to completion before yielding: a transaction never spans an await.
 *
 * The store implements the core of the contract itself and composes the parts, each a table
 * module over the shared SqliteContext (sql-context.ts); no module imports this file back.
 * Intake's writes (createNotification, reserveIdempotencyKey) are group-committed: see
 * SqliteContext.grouped for exactly when a caller's write is durable.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_STATES, type DeliveryState, type Purpose } from '../../domain/index.js';
import type {
  ApiKeyRecord,
  ClaimedDelivery,
  ClaimRequest,
  BatchItemOutcome,
  BatchKeyTerms,
  BatchNotification,
  CreatedNotification,
  DeliveryFacts,
  DeliveryFilter,
  DeliveryListItem,
  DeliveryStateCounts,
  DeliveryView,
  IdempotencyKeyRef,
  IdempotencyRequest,
  LateOutcome,
  LeaseRenewal,
  NewApiKey,
  NewNotification,
  NewTenant,
  NotificationView,
  Page,
  Reservation,
  TenantIdempotencyCompletion,
  TransitionResult,
  TransitionWrite,
  Unsubscribe,
} from '../core-store.js';
import { bindTo, type ContentCipher, openContent } from '../content-cipher.js';
import { loadMigrations } from '../named-sql.js';
import { toAttemptView, toDeliveryFacts, toDeliveryView, type Row, json, jsonOrNull } from '../rows.js';
import type { Store } from '../store.js';
import { SqliteCampaigns } from './campaigns.js';
import { SqliteDevices } from './devices.js';
import { claimDue, nextDue } from './claims.js';
import { SqliteEvidence } from './evidence.js';
import { SqliteFallbacks } from './fallbacks.js';
import { SqliteHealth } from './health.js';
import { SqlitePush } from './push.js';
import { SqliteReports } from './reports.js';
import { SqliteIntakeLimits } from './intake-limits.js';
import { SqliteAlerts } from './alerts.js';
import { SqliteSessions } from './sessions.js';
import { SqliteAudit } from './audit.js';
import { apiKeyParams, SqliteTenants } from './tenants.js';
import { toApiKeyRecord } from '../tenant-rows.js';
import { SqliteEventStream } from './event-stream.js';
import { isSearch, planDeliveryList, toDeliveryPage, type DrivingFilter } from '../delivery-list.js';
import { SqliteTemplates } from './templates.js';
import { takeIdempotencyKey } from './idempotency.js';
import { SqliteObservability } from './observability.js';
import { SqliteLimiter } from './limiter.js';
import { insertNotification, insertNotifications, mapCreateError } from './notifications.js';
import { SqlitePreferences } from './preferences.js';
import { SqliteRetention } from './retention.js';
import { SqliteReview } from './review.js';
import { SqliteContext } from './sql-context.js';
import { applyTransition } from './transitions.js';
import { SqliteWebhooks } from './webhooks.js';

/** The delivery list's statement per driving filter (queries/delivery_list.sql). */
const LIST_STATEMENTS: Record<DrivingFilter, string> = {
  none: 'deliveries_list',
  state: 'deliveries_list_by_state',
  terminal_reason: 'deliveries_list_by_terminal_reason',
  downstream_status: 'deliveries_list_by_downstream_status',
  provider_account: 'deliveries_list_by_provider_account',
  campaign: 'deliveries_list_by_campaign',
  device: 'deliveries_list_by_device',
  delivery_id: 'deliveries_list_by_id',
  notification: 'deliveries_list_by_notification',
};

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
}

/** Opens (creating if needed) a SQLite store; call `migrate()` before use. */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('foreign_keys = ON');
  return new SqliteStore(db, options.contentCipher ?? null);
}

export class SqliteStore implements Store {
  readonly driver = 'sqlite' as const;
  private readonly sql: SqliteContext;
  readonly evidence: SqliteEvidence;
  readonly limiter: SqliteLimiter;
  readonly webhooks: SqliteWebhooks;
  readonly campaigns: SqliteCampaigns;
  readonly preferences: SqlitePreferences;
  readonly review: SqliteReview;
  readonly fallbacks: SqliteFallbacks;
  readonly health: SqliteHealth;
  readonly devices: SqliteDevices;
  readonly push: SqlitePush;
  readonly reports: SqliteReports;
  readonly intakeLimits: SqliteIntakeLimits;
  readonly alerts: SqliteAlerts;
  readonly sessions: SqliteSessions;
  readonly audit: SqliteAudit;
  readonly tenants: SqliteTenants;
  readonly eventStream: SqliteEventStream;
  readonly templates: SqliteTemplates;
  readonly observability: SqliteObservability;
  readonly retention: SqliteRetention;

  constructor(db: Database.Database, cipher: ContentCipher | null = null) {
    this.sql = new SqliteContext(db, cipher);
    this.evidence = new SqliteEvidence(this.sql);
    this.limiter = new SqliteLimiter(this.sql);
    this.webhooks = new SqliteWebhooks(this.sql);
    this.campaigns = new SqliteCampaigns(this.sql);
    this.preferences = new SqlitePreferences(this.sql);
    this.review = new SqliteReview(this.sql);
    this.fallbacks = new SqliteFallbacks(this.sql);
    this.health = new SqliteHealth(this.sql);
    this.devices = new SqliteDevices(this.sql);
    this.push = new SqlitePush(this.sql);
    this.reports = new SqliteReports(this.sql);
    this.intakeLimits = new SqliteIntakeLimits(this.sql);
    this.alerts = new SqliteAlerts(this.sql);
    this.sessions = new SqliteSessions(this.sql);
    this.audit = new SqliteAudit(this.sql);
    this.tenants = new SqliteTenants(this.sql);
    this.eventStream = new SqliteEventStream(this.sql);
    this.templates = new SqliteTemplates(this.sql);
    this.observability = new SqliteObservability(this.sql);
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

  async ensureTenant(tenant: NewTenant, now: number): Promise<void> {
    this.sql.stmt('tenant_ensure').run({ id: tenant.id, name: tenant.name, now });
  }

  async createApiKey(k: NewApiKey): Promise<void> {
    this.sql.stmt('api_key_insert').run(apiKeyParams(k));
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const r = this.sql.stmt('api_keys_find').get({ key_hash: keyHash }) as Row | undefined;
    return r ? toApiKeyRecord(r) : null;
  }

  async hasApiKeys(): Promise<boolean> {
    return Number((this.sql.stmt('api_keys_exist').get() as Row).e) === 1;
  }

  async reserveIdempotencyKey(r: IdempotencyRequest): Promise<Reservation> {
    // Group-committed with other intake writes (see SqliteContext.grouped): decided in arrival
    // order inside the shared transaction, answered once it is committed.
    return this.sql.grouped(() => takeIdempotencyKey(this.sql, r));
  }

  async releaseIdempotencyKey(r: IdempotencyKeyRef): Promise<void> {
    this.sql.stmt('idempotency_release').run({ tenant_id: r.tenantId, key: r.key });
  }

  async completeIdempotencyKey(r: TenantIdempotencyCompletion): Promise<void> {
    this.sql.stmt('idempotency_complete').run({
      tenant_id: r.tenantId,
      key: r.key,
      fingerprint: r.fingerprint,
      response_status: r.statusCode,
      response_body: JSON.stringify(r.body),
    });
  }

  async pruneIdempotencyKeys(now: number): Promise<number> {
    return this.sql.stmt('idempotency_prune').run({ now }).changes;
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

  async getNotification(tenantId: string, id: string): Promise<NotificationView | null> {
    const read = this.sql.db.transaction((): NotificationView | null => {
      const n = this.sql.stmt('notification_get').get({ tenant_id: tenantId, id }) as Row | undefined;
      if (!n) return null;
      const deliveries = (this.sql.stmt('deliveries_by_notification').all({ notification_id: id }) as Row[]).map(toDeliveryView);
      const attempts = this.sql.stmt('attempts_by_notification').all({ notification_id: id }) as Row[];
      return {
        id: String(n.id),
        tenantId: String(n.tenant_id),
        recipientId: String(n.recipient_id),
        purpose: n.purpose as NotificationView['purpose'],
        channels: json(n.channels_json),
        groupKey: String(n.group_key),
        generation: Number(n.generation),
        metadata: jsonOrNull(n.metadata_json),
        content: openContent(this.sql.cipher, n.content_json, bindTo('notifications', 'content_json', String(n.id))),
        expiresAt: Number(n.expires_at),
        createdAt: Number(n.created_at),
        deliveries: deliveries.map((d) => ({
          ...d,
          attempts: attempts.filter((a) => a.delivery_id === d.id).map(toAttemptView),
        })),
      };
    });
    // DEFERRED: a read transaction, one snapshot for the three queries, and no write lock.
    return read.deferred();
  }

  async listDeliveries(tenantId: string, filter: DeliveryFilter, cursor: string | null, limit: number): Promise<Page<DeliveryListItem>> {
    const plan = planDeliveryList(tenantId, filter, cursor, limit);
    // better-sqlite3 refuses named parameters a statement does not use (`q` outside the searches).
    const { q, ...rest } = plan.params;
    const rows = this.sql.stmt(LIST_STATEMENTS[plan.driving]).all(isSearch(plan.driving) ? { ...rest, q } : rest) as Row[];
    return toDeliveryPage(rows, limit);
  }

  async getDelivery(id: string): Promise<DeliveryView | null> {
    const r = this.sql.stmt('delivery_get').get({ id }) as Row | undefined;
    return r ? toDeliveryView(r) : null;
  }

  async latestGeneration(tenantId: string, groupKey: string): Promise<number | null> {
    const r = this.sql.stmt('latest_generation').get({ tenant_id: tenantId, group_key: groupKey }) as Row | undefined;
    return r && r.generation !== null ? Number(r.generation) : null;
  }

  async claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return this.sql.write(() => claimDue(this.sql, req));
  }

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

  async applyTransitions(writes: TransitionWrite[]): Promise<TransitionResult[]> {
    if (writes.length === 0) return [];
    return this.sql.write((): TransitionResult[] => writes.map((w) => ({ deliveryId: w.deliveryId, applied: applyTransition(this.sql, w) })));
  }

  async recordLateOutcome(r: LateOutcome): Promise<void> {
    this.sql.stmt('attempt_late_outcome').run({
      delivery_id: r.deliveryId,
      number: r.attemptNumber,
      late_outcome: r.outcome.kind,
      provider_message_id: r.outcome.kind === 'accepted' ? r.outcome.providerMessageId : null,
    });
  }

  async listExpiredLeases(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (this.sql.stmt('leases_expired').all({ now, limit }) as Row[]).map(toDeliveryFacts);
  }

  async listExpiredPending(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (this.sql.stmt('pending_expired').all({ now, limit }) as Row[]).map(toDeliveryFacts);
  }

  async nextDueAt(providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null> {
    return nextDue(this.sql, providerAccount, now, purposes);
  }

  async countByState(): Promise<DeliveryStateCounts> {
    const out = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
    for (const r of this.sql.stmt('count_by_state').all() as Row[]) out[r.state as DeliveryState] = Number(r.n);
    return out;
  }

  async listenForReady(): Promise<Unsubscribe> {
    // One process per SQLite file is the norm; intake wakes its own workers in memory.
    return async () => {};
  }
}
