/**
 * The PostgreSQL driver, for many API and worker processes on many machines. Claims use
 * FOR UPDATE SKIP LOCKED inside one statement; transitions are written as one batched
 * statement; migrations take an advisory lock so processes starting together apply each
 * migration once. Times are BIGINT epoch ms, as in SQLite.
 *
 * The store implements the core of the contract itself and composes the parts, each a table
 * module over the shared PostgresContext (sql-context.ts); no module imports this file back.
 */
import pg from 'pg';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_STATES, type DeliveryState, type Purpose } from '../../domain/index.js';
import type {
  BatchItemOutcome,
  BatchKeyTerms,
  BatchNotification,
  ApiKeyRecord,
  ClaimedDelivery,
  ClaimRequest,
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
  ReadyListener,
  Reservation,
  TenantIdempotencyCompletion,
  TransitionResult,
  TransitionWrite,
  Unsubscribe,
} from '../core-store.js';
import { bindTo, type ContentCipher, openContent } from '../content-cipher.js';
import { loadMigrations } from '../named-sql.js';
import { toAttemptView, toDeliveryFacts, toDeliveryView, json, jsonOrNull } from '../rows.js';
import type { Store } from '../store.js';
import { PostgresCampaigns } from './campaigns.js';
import { PostgresDevices } from './devices.js';
import { claimOn, nextDue } from './claims.js';
import { Coalescer } from './coalescer.js';
import { PostgresEvidence } from './evidence.js';
import { PostgresFallbacks } from './fallbacks.js';
import { PostgresHealth } from './health.js';
import { PostgresPush } from './push.js';
import { PostgresReports } from './reports.js';
import { PostgresIntakeLimits } from './intake-limits.js';
import { PostgresAlerts } from './alerts.js';
import { PostgresSessions } from './sessions.js';
import { PostgresAudit } from './audit.js';
import { PostgresTenants } from './tenants.js';
import { scopesText, toApiKeyRecord } from '../tenant-rows.js';
import { PostgresEventStream } from './event-stream.js';
import { DELIVERY_LIST_PARAMS, isSearch, planDeliveryList, toDeliveryPage, type DrivingFilter } from '../delivery-list.js';
import { PostgresTemplates } from './templates.js';
import { PostgresObservability } from './observability.js';
import { IdempotencyReservations } from './idempotency.js';
import { PostgresLimiter } from './limiter.js';
import { NotificationWriter } from './notifications.js';
import { PostgresPreferences } from './preferences.js';
import { PostgresReview } from './review.js';
import { PostgresContext } from './sql-context.js';
import { applyRun } from './transitions.js';
import { PostgresRetention } from './retention.js';
import { PostgresWebhooks } from './webhooks.js';

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
/** Any constant works; it only has to be the same in every Herald process. */
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
}

/** Opens a pooled Postgres store; call `migrate()` before use. */
export function openPostgresStore(options: PostgresStoreOptions): PostgresStore {
  return new PostgresStore(options);
}

export class PostgresStore implements Store {
  readonly driver = 'postgres' as const;
  private readonly sql: PostgresContext;
  private readonly notifications: NotificationWriter;
  private readonly reservations: IdempotencyReservations;
  readonly evidence: PostgresEvidence;
  readonly limiter: PostgresLimiter;
  readonly webhooks: PostgresWebhooks;
  readonly campaigns: PostgresCampaigns;
  readonly preferences: PostgresPreferences;
  readonly review: PostgresReview;
  readonly fallbacks: PostgresFallbacks;
  readonly health: PostgresHealth;
  readonly devices: PostgresDevices;
  readonly push: PostgresPush;
  readonly reports: PostgresReports;
  readonly intakeLimits: PostgresIntakeLimits;
  readonly alerts: PostgresAlerts;
  readonly sessions: PostgresSessions;
  readonly audit: PostgresAudit;
  readonly tenants: PostgresTenants;
  readonly eventStream: PostgresEventStream;
  readonly templates: PostgresTemplates;
  readonly observability: PostgresObservability;
  readonly retention: PostgresRetention;

  constructor(private readonly options: PostgresStoreOptions) {
    const schema = options.schema ?? 'public';
    if (!/^[a-z_][a-z0-9_]{0,50}$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      // search_path per connection: every named statement stays schema-agnostic.
      options: `-c search_path=${schema}`,
    });
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    this.sql = new PostgresContext(pool, schema, options.contentCipher ?? null);
    this.notifications = new NotificationWriter(this.sql);
    this.reservations = new IdempotencyReservations(this.sql);
    this.evidence = new PostgresEvidence(this.sql);
    this.limiter = new PostgresLimiter(this.sql);
    this.webhooks = new PostgresWebhooks(this.sql);
    this.campaigns = new PostgresCampaigns(this.sql);
    this.preferences = new PostgresPreferences(this.sql);
    this.review = new PostgresReview(this.sql);
    this.fallbacks = new PostgresFallbacks(this.sql);
    this.health = new PostgresHealth(this.sql);
    this.devices = new PostgresDevices(this.sql, options.connectionString);
    this.push = new PostgresPush(this.sql);
    this.reports = new PostgresReports(this.sql);
    this.intakeLimits = new PostgresIntakeLimits(this.sql);
    this.alerts = new PostgresAlerts(this.sql);
    this.sessions = new PostgresSessions(this.sql);
    this.audit = new PostgresAudit(this.sql);
    this.tenants = new PostgresTenants(this.sql);
    this.eventStream = new PostgresEventStream(this.sql);
    this.templates = new PostgresTemplates(this.sql);
    this.observability = new PostgresObservability(this.sql);
    this.retention = new PostgresRetention(this.sql);
  }

  async migrate(): Promise<string[]> {
    const c = await this.sql.pool.connect();
    const applied: string[] = [];
    try {
      // Session-level advisory lock: processes starting together queue here, then each sees
      // what the first applied. Taken before CREATE SCHEMA, whose IF NOT EXISTS is not safe
      // against a concurrent creator.
      await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
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
          await c.query('ROLLBACK').catch(() => {});
          throw err;
        }
        applied.push(m.name);
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      c.release();
    }
    return applied;
  }

  /** Ends the pool; safe to call more than once, like the SQLite driver's. */
  async close(): Promise<void> {
    await this.sql.close();
  }

  async ensureTenant(tenant: NewTenant, now: number): Promise<void> {
    await this.sql.q('tenant_ensure', [tenant.id, tenant.name, now]);
  }

  async createApiKey(k: NewApiKey): Promise<void> {
    await this.sql.q('api_key_insert', [k.id, k.tenantId, k.keyHash, k.label, scopesText(k), k.expiresAt ?? null, k.now]);
  }

  /** Every API request looks its key up: concurrent look-ups share one query (see Coalescer). */
  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.keyLookups.push(keyHash);
  }

  private readonly keyLookups = new Coalescer<string, ApiKeyRecord | null>(
    async (hashes) => {
      const rows = await this.sql.q('api_keys_find', [hashes]);
      const found = new Map(rows.map((r) => [String(r.key_hash), toApiKeyRecord(r)]));
      return hashes.map((h) => ({ ok: true, value: found.get(h) ?? null }));
    },
    2,
    256,
  );

  async hasApiKeys(): Promise<boolean> {
    const [r] = await this.sql.q('api_keys_exist');
    return r?.e === true;
  }

  /** A new key is taken by a coalesced insert; one that exists is decided in a transaction (see IdempotencyReservations). */
  async reserveIdempotencyKey(r: IdempotencyRequest): Promise<Reservation> {
    return this.reservations.reserve(r);
  }

  async releaseIdempotencyKey(r: IdempotencyKeyRef): Promise<void> {
    await this.sql.q('idempotency_release', [r.tenantId, r.key]);
  }

  async completeIdempotencyKey(r: TenantIdempotencyCompletion): Promise<void> {
    await this.sql.q('idempotency_complete', [r.tenantId, r.key, r.fingerprint, r.statusCode, JSON.stringify(r.body)]);
  }

  async pruneIdempotencyKeys(now: number): Promise<number> {
    return this.sql.count('idempotency_prune', [now]);
  }

  /** Group-committed with concurrent intake writes where it can be (see NotificationWriter). */
  async createNotification(n: NewNotification, idem?: TenantIdempotencyCompletion): Promise<CreatedNotification> {
    return this.notifications.create(n, idem);
  }

  /** One transaction for the batch, multi-row where it can be (see NotificationWriter.createBatch). */
  async createNotifications(items: BatchNotification[], keys?: BatchKeyTerms): Promise<BatchItemOutcome[]> {
    return this.notifications.createBatch(items, keys);
  }

  async getNotification(tenantId: string, id: string): Promise<NotificationView | null> {
    // REPEATABLE READ: the notification, its deliveries and their attempts from one snapshot.
    const c = await this.sql.pool.connect();
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const [n] = await this.sql.q('notification_get', [tenantId, id], c);
      if (!n) return null;
      const deliveries = (await this.sql.q('deliveries_by_notification', [id], c)).map(toDeliveryView);
      const attempts = await this.sql.q('attempts_by_notification', [id], c);
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
        deliveries: deliveries.map((d) => ({ ...d, attempts: attempts.filter((a) => a.delivery_id === d.id).map(toAttemptView) })),
      };
    } finally {
      await c.query('COMMIT').catch(() => {});
      c.release();
    }
  }

  async listDeliveries(tenantId: string, filter: DeliveryFilter, cursor: string | null, limit: number): Promise<Page<DeliveryListItem>> {
    const plan = planDeliveryList(tenantId, filter, cursor, limit);
    const names = isSearch(plan.driving) ? DELIVERY_LIST_PARAMS : DELIVERY_LIST_PARAMS.filter((p) => p !== 'q');
    return toDeliveryPage(
      await this.sql.qPlanned(
        LIST_STATEMENTS[plan.driving],
        names.map((p) => plan.params[p]),
      ),
      limit,
    );
  }

  async getDelivery(id: string): Promise<DeliveryView | null> {
    const [r] = await this.sql.q('delivery_get', [id]);
    return r ? toDeliveryView(r) : null;
  }

  async latestGeneration(tenantId: string, groupKey: string): Promise<number | null> {
    const [r] = await this.sql.q('latest_generation', [tenantId, groupKey]);
    return r && r.generation !== null ? Number(r.generation) : null;
  }

  async claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return claimOn(this.sql, req, this.sql.pool);
  }

  async renewLeases(r: LeaseRenewal): Promise<string[]> {
    if (r.leases.length === 0) return [];
    const rows = await this.sql.q('lease_renew', [r.leases.map((l) => l.deliveryId), r.leases.map((l) => l.leaseVersion), r.workerId, r.leaseUntil, r.now]);
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

  async recordLateOutcome(r: LateOutcome): Promise<void> {
    await this.sql.q('attempt_late_outcome', [
      r.deliveryId,
      r.attemptNumber,
      r.outcome.kind,
      r.outcome.kind === 'accepted' ? r.outcome.providerMessageId : null,
    ]);
  }

  async listExpiredLeases(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (await this.sql.q('leases_expired', [now, Math.max(0, limit)])).map(toDeliveryFacts);
  }

  async listExpiredPending(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (await this.sql.q('pending_expired', [now, Math.max(0, limit)])).map(toDeliveryFacts);
  }

  async nextDueAt(providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null> {
    return nextDue(this.sql, providerAccount, now, purposes);
  }

  async countByState(): Promise<DeliveryStateCounts> {
    const out = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
    for (const r of await this.sql.q('count_by_state')) out[r.state as DeliveryState] = Number(r.n);
    return out;
  }

  async listenForReady(onReady: ReadyListener): Promise<Unsubscribe> {
    // A dedicated connection (LISTEN is per session); reconnects after errors with a short backoff.
    let stopped = false;
    let client: pg.Client | null = null;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const c = new pg.Client({ connectionString: this.options.connectionString });
      c.on('notification', (msg) => {
        if (msg.channel === this.sql.readyChannel && msg.payload) onReady(msg.payload);
      });
      c.on('error', () => {
        client = null;
        c.end().catch(() => {});
        if (!stopped) setTimeout(() => void connect().catch(() => {}), 1_000).unref();
      });
      await c.connect();
      await c.query(`LISTEN ${this.sql.readyChannel}`);
      client = c;
    };
    await connect();
    return async () => {
      stopped = true;
      await client?.end().catch(() => {});
      client = null;
    };
  }
}
