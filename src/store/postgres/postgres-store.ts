/**
 * The PostgreSQL driver, for many API and worker processes on many machines. Claims use
 * FOR UPDATE SKIP LOCKED inside one statement; transitions are written as one batched
 * statement; migrations take an advisory lock so processes starting together apply each
 * migration once. Times are BIGINT epoch ms, as in SQLite.
 */
import pg from 'pg';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_STATES, PURPOSES, type AmbiguityPolicy, type Channel, type DeliveryState, type Purpose, type RateLimit, type SubmitOutcome } from '../../domain/index.js';
import { loadMigrations, loadNamedSql } from '../named-sql.js';
import { PostgresEvidence } from './evidence.js';
import { PostgresPreferences } from './preferences.js';
import type { OptOut } from '../../domain/index.js';
import type { OptOutSource, SendCheck, StoredOptOut } from '../preference-store.js';
import { PostgresCampaigns } from './campaigns.js';
import type { AudienceRow, AudienceSource, AudienceView, CampaignDeliveryCount, CampaignRecord, CampaignStore, FanOutBatch, NewCampaign, RecipientProfile } from '../campaign-store.js';
import type { RecipientInput } from '../store.js';
import { PostgresLimiter } from './limiter.js';
import type { PermitRequest, PermittedClaimRequest } from '../limiter-store.js';
import { PostgresWebhooks } from './webhooks.js';
import type { NewWebhookEndpoint, WebhookEndpointView, WebhookMessage, WebhookStore, WebhookTarget } from '../webhook-store.js';
import type { AttemptResolution, EvidenceWrite, PendingEvidence, ProviderEventRecord, Suppression, UnknownDelivery } from '../evidence-store.js';
import { toAttemptView, toDeliveryFacts, toDeliveryView, toDueFallback, type Row } from '../rows.js';
import { toNotificationSource, toReplayRecord } from '../rows.js';
import type { NotificationSource, ReplayAudit, ReplayFilter, ReplayRecord, ReviewItem } from '../store.js';
import {
  StoreConflictError,
  type ApiKeyRecord,
  type ClaimRequest,
  type ClaimedDelivery,
  type DeliveryFacts,
  type DeliveryFilter,
  type DeliveryView,
  type IdempotencyCompletion,
  type NewNotification,
  type NotificationView,
  type CreatedNotification,
  type DueFallback,
  type Page,
  type Reservation,
  type Store,
  type TransitionResult,
  type TransitionWrite,
} from '../store.js';
import { attemptFields, transitionPayload } from '../transition-fields.js';
import { checkGeneration, pendingOlder, supersedeWrites } from '../challenge.js';

const here = dirname(fileURLToPath(import.meta.url));
/** Any constant works; it only has to be the same in every Herald process. */
const MIGRATION_LOCK = 72_616_001;

export interface PostgresStoreOptions {
  /** postgres://user@host:port/db */
  connectionString: string;
  /** Tables live in this schema (tests isolate themselves with one schema each). Default: public. */
  schema?: string;
  /** Pool size per process. Default 10. */
  maxConnections?: number;
}

/** Opens a pooled Postgres store; call `migrate()` before use. */
export function openPostgresStore(options: PostgresStoreOptions): PostgresStore {
  return new PostgresStore(options);
}

export type Client = pg.PoolClient;

export class PostgresStore implements Store {
  readonly driver = 'postgres' as const;
  private readonly sql = loadNamedSql(join(here, 'queries'));
  readonly pool: pg.Pool;
  private readonly schema: string;
  /** NOTIFY channel, per schema, so stores sharing a server (tests) do not wake each other. */
  private readonly readyChannel: string;

  constructor(private readonly options: PostgresStoreOptions) {
    this.schema = options.schema ?? 'public';
    if (!/^[a-z_][a-z0-9_]{0,50}$/.test(this.schema)) throw new Error(`invalid schema name ${this.schema}`);
    this.readyChannel = `herald_ready_${this.schema}`;
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 10,
      // search_path per connection: every named statement stays schema-agnostic.
      options: `-c search_path=${this.schema}`,
    });
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    this.pool.on('error', () => {});
  }

  private text(name: string): string {
    const t = this.sql.get(name);
    if (!t) throw new Error(`no SQL statement named ${name}`);
    return t;
  }

  /** `q`, `tx`, `applyRun` and `wakeListeners` are the driver's own: its table modules (evidence.ts, ...) use them; nothing outside src/store/postgres does. */
  async q(name: string, params: unknown[] = [], client: pg.Pool | Client = this.pool): Promise<Row[]> {
    const r = await client.query({ name: `${this.schema}.${name}`, text: this.text(name), values: params });
    return r.rows as Row[];
  }

  async tx<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  async migrate(): Promise<string[]> {
    const c = await this.pool.connect();
    const applied: string[] = [];
    try {
      // Session-level advisory lock: processes starting together queue here, then each sees
      // what the first applied. Taken before CREATE SCHEMA, whose IF NOT EXISTS is not safe
      // against a concurrent creator.
      await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await c.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      );
      const done = new Set((await c.query('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)));
      for (const m of loadMigrations(join(here, 'migrations'))) {
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

  private closed = false;

  /** Ends the pool; safe to call more than once, like the SQLite driver's. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.notifying.values()]);
    await this.pool.end();
  }

  /** Per provider account: the NOTIFY loop in flight, and whether a commit since asks for one more. */
  private readonly notifying = new Map<string, Promise<void>>();
  private readonly notifyAgain = new Set<string>();

  /**
   * Wakes workers in other processes after an intake commit. Coalesced per account: while a
   * NOTIFY is in flight, later commits ask for one more, sent when it returns, so every commit
   * is followed by a NOTIFY issued after it, at most two per account at a time instead of one
   * per notification. Best effort, as before: a worker that misses one finds the work by polling.
   */
  wakeListeners(accounts: string[]): void {
    for (const account of accounts) {
      if (this.notifying.has(account)) {
        this.notifyAgain.add(account);
        continue;
      }
      const run = (async () => {
        do {
          this.notifyAgain.delete(account);
          await this.q('ready_notify', [this.readyChannel, account]).catch(() => {});
        } while (this.notifyAgain.has(account) && !this.closed);
        this.notifying.delete(account);
      })();
      this.notifying.set(account, run);
    }
  }

  async ensureTenant(tenant: { id: string; name: string }, now: number): Promise<void> {
    await this.q('tenant_ensure', [tenant.id, tenant.name, now]);
  }

  async createApiKey(k: { id: string; tenantId: string; keyHash: string; label: string; now: number }): Promise<void> {
    await this.q('api_key_insert', [k.id, k.tenantId, k.keyHash, k.label, k.now]);
  }

  /** Every API request looks its key up: concurrent look-ups share one query (see Coalescer). */
  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    return this.keyLookups.push(keyHash);
  }

  private readonly keyLookups = new Coalescer<string, ApiKeyRecord | null>(async (hashes) => {
    const rows = await this.q('api_keys_find', [hashes]);
    const found = new Map(rows.map((r) => [String(r.key_hash), { id: String(r.id), tenantId: String(r.tenant_id) }]));
    return hashes.map((h) => ({ ok: true, value: found.get(h) ?? null }));
  }, 2, 256);

  async hasApiKeys(): Promise<boolean> {
    const [r] = await this.q('api_keys_exist');
    return r?.e === true;
  }

  async reserveIdempotencyKey(r: {
    tenantId: string;
    key: string;
    fingerprint: string;
    now: number;
    lockMs: number;
    retentionMs: number;
  }): Promise<Reservation> {
    const params = [r.tenantId, r.key, r.fingerprint, r.now + r.lockMs, r.now, r.now + r.retentionMs];
    // A new key (the usual case) is taken by the insert alone, committed with the inserts of
    // concurrent requests in one statement (see Coalescer); a key that exists is decided in the
    // transaction below, which starts with the same insert.
    if (await this.reservations.push(params)) return { kind: 'reserved' };
    return this.tx(async (c) => {
      if ((await this.q('idempotency_insert', params, c)).length === 1) return { kind: 'reserved' } as const;
      const [row] = await this.q('idempotency_get', [r.tenantId, r.key], c);
      if (!row) {
        // Deleted between our insert attempt and the read (released or pruned): it is ours now.
        await this.q('idempotency_insert', params, c);
        return { kind: 'reserved' } as const;
      }
      if (row.status === 'completed') {
        if (Number(row.expires_at) <= r.now) {
          await this.q('idempotency_replace', params, c);
          return { kind: 'reserved' } as const;
        }
        if (row.fingerprint !== r.fingerprint) return { kind: 'mismatch' } as const;
        return { kind: 'replay', statusCode: Number(row.response_status), body: JSON.parse(String(row.response_body)) } as const;
      }
      if (Number(row.locked_until) > r.now) {
        return row.fingerprint === r.fingerprint ? ({ kind: 'in_progress' } as const) : ({ kind: 'mismatch' } as const);
      }
      await this.q('idempotency_replace', params, c);
      return { kind: 'reserved' } as const;
    });
  }

  /** Inserts new reservations, many per statement; answers, for each, whether it was inserted. */
  private readonly reservations = new Coalescer<unknown[], boolean>(async (rows) => {
    // A key named twice in one group is inserted once; the repeat is decided on its own afterwards.
    const seen = new Set<string>();
    const first = rows.map((p) => {
      const id = JSON.stringify([p[0], p[1]]);
      return seen.has(id) ? false : (seen.add(id), true);
    });
    // In key order, so two groups naming the same keys wait for each other instead of deadlocking.
    const batch = rows.filter((_, i) => first[i]).sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : String(a[1]) > String(b[1]) ? 1 : 0));
    const col = (j: number) => batch.map((p) => p[j]);
    let inserted: Row[];
    try {
      inserted = await this.q('idempotency_insert_many', [col(0), col(1), col(2), col(3), col(4), col(5)]);
    } catch (err) {
      // Refused by the server, nothing inserted: each is decided by the transaction path alone.
      if (err instanceof pg.DatabaseError) return rows.map(() => ({ ok: true, value: false }));
      throw err;
    }
    const taken = new Set(inserted.map((r) => JSON.stringify([r.tenant_id, r.key])));
    return rows.map((p, i) => ({ ok: true, value: first[i]! && taken.has(JSON.stringify([p[0], p[1]])) }));
  }, 2, 256);

  async releaseIdempotencyKey(r: { tenantId: string; key: string }): Promise<void> {
    await this.q('idempotency_release', [r.tenantId, r.key]);
  }

  async completeIdempotencyKey(r: { tenantId: string; key: string; fingerprint: string; statusCode: number; body: unknown }): Promise<void> {
    await this.q('idempotency_complete', [r.tenantId, r.key, r.fingerprint, r.statusCode, JSON.stringify(r.body)]);
  }

  async pruneIdempotencyKeys(now: number): Promise<number> {
    const r = await this.pool.query({ name: `${this.schema}.idempotency_prune`, text: this.text('idempotency_prune'), values: [now] });
    return r.rowCount ?? 0;
  }

  /**
   * Group commit: concurrent intake writes are coalesced (see Coalescer) into one statement and
   * one commit for many notifications, instead of one commit each. A notification alone takes the
   * single-notification path. If a group fails in a way the server reports (a conflict, a bad
   * value, a reservation taken over), nothing of it was committed and each of its notifications
   * is written again on its own, so every caller gets the answer it would have had alone.
   */
  async createNotification(n: NewNotification, idem?: IdempotencyCompletion & { tenantId: string }): Promise<CreatedNotification> {
    // A producer-named challenge may supersede or be stale: it takes the locked path. A
    // notification that is its own group (intake's `ntf:<id>`) has no other generations.
    // A fallback plan or a ladder choice is written in the same transaction, on the same path.
    if (n.groupKey !== `ntf:${n.id}` || n.fallback || n.retryLadder) return this.createInChallenge(n, idem);
    await this.creates.push({ n, idem });
    return { superseded: [] };
  }

  private readonly creates = new Coalescer<CreateItem, void>((items) => this.createGroup(items), 2, 256);

  private async createGroup(items: CreateItem[]): Promise<Array<Settled<void>>> {
    if (items.length === 1) return [await settle(this.createOne(items[0]!.n, items[0]!.idem))];
    const withKey = items.filter((i) => i.idem);
    const params = createManyParams(items);
    let accounts: string[];
    try {
      const run = async (c: pg.Pool | Client): Promise<Row | undefined> => {
        const [r] = await this.q('notification_create_many', params, c);
        // A reservation was taken over (its lock ran out): roll the group back, then sort it out one by one.
        if (Number(r?.completed) !== withKey.length) throw new GroupRetry();
        return r;
      };
      // Without keys, one statement is one transaction; with keys, the check above needs BEGIN … COMMIT.
      const r = withKey.length === 0 ? await run(this.pool) : await this.tx(run);
      accounts = (r?.accounts as string[] | null) ?? [];
    } catch (err) {
      // The server refused the statement (or we did): nothing was committed, so each one alone.
      // Anything else (a lost connection) leaves the outcome unknown: every caller gets that error.
      if (!(err instanceof GroupRetry || err instanceof pg.DatabaseError)) throw err;
      return Promise.all(items.map((i) => settle(this.createOne(i.n, i.idem))));
    }
    this.wakeListeners(accounts);
    return items.map(() => ({ ok: true, value: undefined }));
  }

  private async createOne(n: NewNotification, idem?: IdempotencyCompletion & { tenantId: string }): Promise<void> {
    const params = createParams(n, idem);
    try {
      // One statement is one transaction: without a key, a single round trip instead of BEGIN,
      // four statements and COMMIT.
      const [r] = idem
        ? await this.tx(async (c) => {
            const rows = await this.q('notification_create', params, c);
            // The reservation was taken over (its lock ran out) by another request: do not commit twice.
            if (rows[0]?.completed !== true) throw new StoreConflictError('idempotency key is no longer reserved', { constraint: 'idempotency_keys' });
            return rows;
          })
        : await this.q('notification_create', params);
      this.wakeListeners((r?.accounts as string[] | null) ?? []);
    } catch (err) {
      throw asConflict(err);
    }
  }

  /**
   * A notification of a producer-named challenge: under a per-challenge advisory lock, refuse
   * an old or repeated generation, insert, and supersede the older generations' pending
   * deliveries, all in one transaction.
   */
  private async createInChallenge(n: NewNotification, idem?: IdempotencyCompletion & { tenantId: string }): Promise<CreatedNotification> {
    try {
      const { accounts, superseded } = await this.tx(async (c) => {
        await this.q('challenge_lock', [n.tenantId, n.groupKey], c);
        const [latest] = await this.q('latest_generation', [n.tenantId, n.groupKey], c);
        checkGeneration(latest?.generation, n.generation);
        // With fallback, only the first channel is a delivery now; the others wait their turn.
        const first = n.fallback ? { ...n, deliveries: n.deliveries.slice(0, 1) } : n;
        const [r] = await this.q('notification_create', createParams(first, idem), c);
        if (idem && r?.completed !== true) throw new StoreConflictError('idempotency key is no longer reserved', { constraint: 'idempotency_keys' });
        if (n.retryLadder) await this.q('notification_set_ladder', [n.id, n.retryLadder], c);
        if (n.fallback) {
          const later = n.deliveries.slice(1);
          await this.q('notification_set_fallback', [n.id, n.fallback.afterMs, n.fallback.evidence], c);
          await this.q(
            'fallback_insert',
            [
              n.id,
              later.map((_, i) => i + 1),
              later.map((d) => d.id),
              n.tenantId,
              later.map((d) => d.channel),
              later.map((d) => d.providerAccount),
              later.map((d) => d.destination),
              later.map((d) => d.idempotencyKey),
              // Only the next channel has a deadline; the ones after it start theirs in turn.
              later.map((_, i) => (i === 0 ? n.createdAt + n.fallback!.afterMs : null)),
            ],
            c,
          );
        }
        if (n.generation > 1) await this.q('fallbacks_drop_older', [n.tenantId, n.groupKey, n.generation], c);
        const older = pendingOlder(await this.q('challenge_pending_older', [n.tenantId, n.groupKey, n.generation], c));
        const writes = supersedeWrites(older.map((o) => o.facts), n.createdAt);
        const applied = writes.length > 0 ? await this.applyRun(writes, c) : new Set<string>();
        const superseded = older
          .filter((o) => applied.has(o.facts.deliveryId))
          .map((o) => ({ deliveryId: o.facts.deliveryId, channel: o.channel, purpose: o.purpose }));
        return { accounts: (r?.accounts as string[] | null) ?? [], superseded };
      });
      this.wakeListeners(accounts);
      return { superseded };
    } catch (err) {
      throw asConflict(err);
    }
  }

  async getNotification(tenantId: string, id: string): Promise<NotificationView | null> {
    // REPEATABLE READ: the notification, its deliveries and their attempts from one snapshot.
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const [n] = await this.q('notification_get', [tenantId, id], c);
      if (!n) return null;
      const deliveries = (await this.q('deliveries_by_notification', [id], c)).map(toDeliveryView);
      const attempts = await this.q('attempts_by_notification', [id], c);
      return {
        id: String(n.id),
        tenantId: String(n.tenant_id),
        recipientId: String(n.recipient_id),
        purpose: n.purpose as NotificationView['purpose'],
        channels: JSON.parse(String(n.channels_json)),
        groupKey: String(n.group_key),
        generation: Number(n.generation),
        metadata: n.metadata_json === null ? null : JSON.parse(String(n.metadata_json)),
        expiresAt: Number(n.expires_at),
        createdAt: Number(n.created_at),
        deliveries: deliveries.map((d) => ({ ...d, attempts: attempts.filter((a) => a.delivery_id === d.id).map(toAttemptView) })),
      };
    } finally {
      await c.query('COMMIT').catch(() => {});
      c.release();
    }
  }

  async listDeliveries(tenantId: string, filter: DeliveryFilter, cursor: string | null, limit: number): Promise<Page<DeliveryView>> {
    const size = Math.max(1, limit);
    const rows = await this.q('deliveries_list', [tenantId, filter.state ?? null, filter.channel ?? null, filter.purpose ?? null, cursor, size + 1]);
    const items = rows.slice(0, size).map(toDeliveryView);
    return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
  }

  async getDelivery(id: string): Promise<DeliveryView | null> {
    const [r] = await this.q('delivery_get', [id]);
    return r ? toDeliveryView(r) : null;
  }

  async claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return this.claimOn(req, this.pool);
  }

  /** claimBatch on a given client (inside the limiter's transaction) or the pool (its own). */
  async claimOn(req: ClaimRequest, client: pg.Pool | Client): Promise<ClaimedDelivery[]> {
    if (req.limit <= 0) return [];
    const leaseUntil = req.now + req.leaseMs;
    const rows = await this.q('claim_batch', [req.providerAccount, req.now, req.limit, req.workerId, leaseUntil, [...(req.purposes ?? PURPOSES)]], client);
    return rows.map((r) => ({
      deliveryId: String(r.id),
      notificationId: String(r.notification_id),
      tenantId: String(r.tenant_id),
      channel: r.channel as ClaimedDelivery['channel'],
      purpose: r.purpose as ClaimedDelivery['purpose'],
      providerAccount: String(r.provider_account),
      destination: String(r.destination),
      content: JSON.parse(String(r.content_json)),
      retryLadder: (r.retry_ladder ?? null) as ClaimedDelivery['retryLadder'],
      idempotencyKey: String(r.idempotency_key),
      expiresAt: Number(r.expires_at),
      attemptNumber: Number(r.attempt_count),
      leaseVersion: Number(r.lease_version),
      leaseUntil,
    }));
  }

  async renewLeases(r: { leases: Array<{ deliveryId: string; leaseVersion: number }>; workerId: string; leaseUntil: number; now: number }): Promise<string[]> {
    if (r.leases.length === 0) return [];
    const rows = await this.q('lease_renew', [r.leases.map((l) => l.deliveryId), r.leases.map((l) => l.leaseVersion), r.workerId, r.leaseUntil, r.now]);
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
      const ids = await this.applyRun(writes, this.pool);
      return writes.map((w) => ({ deliveryId: w.deliveryId, applied: ids.has(w.deliveryId) }));
    }
    const applied = new Array<boolean>(writes.length).fill(false);
    await this.tx(async (c) => {
      let offset = 0;
      for (const run of runs) {
        const ids = await this.applyRun(run, c);
        run.forEach((w, i) => (applied[offset + i] = ids.has(w.deliveryId)));
        offset += run.length;
      }
    });
    return writes.map((w, i) => ({ deliveryId: w.deliveryId, applied: applied[i]! }));
  }

  async applyRun(run: TransitionWrite[], c: pg.Pool | Client): Promise<Set<string>> {
    const now = run[0]!.now;
    const attempts = run.map((w) => (w.attempt ? attemptFields(w.attempt.outcome) : null));
    const rows = await this.q(
      'transitions_apply',
      [
        run.map((w) => w.deliveryId),
        run.map((w) => w.expect.state),
        run.map((w) => w.expect.leaseVersion),
        run.map((w) => w.transition.to),
        run.map((w) => w.transition.terminalReason),
        run.map((w) => w.transition.nextAttemptAt),
        run.map((w) => w.transition.providerMessageId ?? null),
        run.map((w) => (w.transition.to === 'accepted' ? 'accepted' : null)),
        attempts.map((a) => a?.error_code ?? null),
        now,
        run.map((w) => w.attempt?.number ?? null),
        attempts.map((a) => a?.outcome ?? null),
        attempts.map((a) => a?.provider_message_id ?? null),
        attempts.map((a) => a?.error_code ?? null),
        attempts.map((a) => a?.error_message ?? null),
        attempts.map((a) => a?.retry_after_ms ?? null),
        run.map((w) => transitionPayload(w)),
      ],
      c,
    );
    return new Set(rows.map((r) => String(r.id)));
  }

  async recordLateOutcome(r: { deliveryId: string; attemptNumber: number; outcome: SubmitOutcome }): Promise<void> {
    await this.q('attempt_late_outcome', [
      r.deliveryId,
      r.attemptNumber,
      r.outcome.kind,
      r.outcome.kind === 'accepted' ? r.outcome.providerMessageId : null,
    ]);
  }

  async listExpiredLeases(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (await this.q('leases_expired', [now, Math.max(0, limit)])).map(toDeliveryFacts);
  }

  async listExpiredPending(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (await this.q('pending_expired', [now, Math.max(0, limit)])).map(toDeliveryFacts);
  }

  async nextDueAt(providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null> {
    const [r] = await this.q('next_due_at', [providerAccount, now, [...(purposes ?? PURPOSES)]]);
    return r && r.at !== null ? Number(r.at) : null;
  }

  async recordProviderCalls(r: { providerAccount: string; bucketStart: number; calls: number; failures: number }): Promise<void> {
    await this.q('provider_calls_add', [r.providerAccount, r.bucketStart, r.calls, r.failures]);
  }

  async providerHealth(providerAccount: string, since: number): Promise<{ calls: number; failures: number }> {
    const [r] = await this.q('provider_health_since', [providerAccount, since]);
    return { calls: Number(r?.calls ?? 0), failures: Number(r?.failures ?? 0) };
  }

  async pruneProviderHealth(before: number): Promise<number> {
    const r = await this.pool.query({ name: `${this.schema}.provider_health_prune`, text: this.text('provider_health_prune'), values: [before] });
    return r.rowCount ?? 0;
  }

  async listDueFallbacks(now: number, limit: number): Promise<DueFallback[]> {
    return (await this.q('fallbacks_due', [now, Math.max(0, limit)])).map(toDueFallback);
  }

  async resolveFallback(r: { notificationId: string; position: number; action: 'create' | 'drop'; now: number; nextDueAt: number }): Promise<boolean> {
    const account = await this.tx(async (c): Promise<string | false | null> => {
      const [taken] = await this.q('fallback_take', [r.notificationId, r.position], c);
      if (!taken) return false;
      if (r.action === 'drop') {
        await this.q('fallbacks_drop', [r.notificationId], c);
        return null;
      }
      await this.q(
        'fallback_delivery_insert',
        [taken.delivery_id, r.notificationId, taken.tenant_id, r.position, taken.channel, taken.provider_account, taken.destination, taken.idempotency_key, r.now],
        c,
      );
      await this.q('fallback_schedule_next', [r.notificationId, r.position + 1, r.nextDueAt], c);
      await this.q(
        'outbox_insert',
        [
          taken.tenant_id,
          r.notificationId,
          taken.delivery_id,
          'delivery.ready',
          JSON.stringify({ delivery_id: taken.delivery_id, from: null, state: 'ready', channel: taken.channel, fallback: true }),
          r.now,
        ],
        c,
      );
      return String(taken.provider_account);
    });
    if (account === false) return false;
    if (account !== null) this.wakeListeners([account]);
    return true;
  }

  async countByState(): Promise<Record<DeliveryState, number>> {
    const out = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
    for (const r of await this.q('count_by_state')) out[r.state as DeliveryState] = Number(r.n);
    return out;
  }

  async listReview(tenantId: string, opts: { now: number; unknownAfterMs: number }, cursor: string | null, limit: number): Promise<Page<ReviewItem>> {
    const size = Math.max(1, limit);
    const rows = await this.q('review_list', [tenantId, opts.now - opts.unknownAfterMs, cursor, size + 1]);
    const items = rows.slice(0, size).map((r) => ({ ...toDeliveryView(r), reviewReason: r.review_reason as ReviewItem['reviewReason'] }));
    return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
  }

  /** Customer webhooks (see webhook-store.ts), in their own module. */
  private readonly webhooks = new PostgresWebhooks(this);

  createWebhookEndpoint(e: NewWebhookEndpoint): Promise<void> {
    return this.webhooks.createEndpoint(e);
  }

  listWebhookEndpoints(tenantId: string): Promise<WebhookEndpointView[]> {
    return this.webhooks.listEndpoints(tenantId);
  }

  async getWebhookEndpoint(tenantId: string, id: string): Promise<WebhookEndpointView | null> {
    return (await this.webhooks.listEndpoints(tenantId, id))[0] ?? null;
  }

  deleteWebhookEndpoint(tenantId: string, id: string): Promise<boolean> {
    return this.webhooks.deleteEndpoint(tenantId, id);
  }

  rotateWebhookSecret(r: { tenantId: string; id: string; secret: string; previousUntil: number; now: number }): Promise<boolean> {
    return this.webhooks.rotateSecret(r);
  }

  enableWebhookEndpoint(r: { tenantId: string; id: string; now: number }): Promise<boolean> {
    return this.webhooks.enableEndpoint(r);
  }

  relayOutbox(r: { now: number; limit: number }): Promise<{ published: number; messages: number }> {
    return this.webhooks.relayOutbox(r);
  }

  pruneWebhookHistory(r: { outboxBefore: number; messagesBefore: number; limit: number }): Promise<{ outbox: number; messages: number }> {
    return this.webhooks.pruneHistory(r);
  }

  claimWebhookEndpoints(r: { now: number; owner: string; leaseMs: number; limit: number }): Promise<WebhookTarget[]> {
    return this.webhooks.claimEndpoints(r);
  }

  listWebhookHeads(r: { endpointId: string; now: number; limit: number }): Promise<WebhookMessage[]> {
    return this.webhooks.listHeads(r);
  }

  recordWebhookAttempts(r: Parameters<WebhookStore['recordWebhookAttempts']>[0]): Promise<void> {
    return this.webhooks.recordAttempts(r);
  }

  releaseWebhookEndpoint(r: { endpointId: string; owner: string }): Promise<void> {
    return this.webhooks.releaseEndpoint(r);
  }

  /** Recipients, audiences and campaigns (see campaign-store.ts), in their own module. */
  private readonly campaigns = new PostgresCampaigns(this);

  putRecipient(r: { tenantId: string; recipient: RecipientInput; now: number }): Promise<{ created: boolean; profile: RecipientProfile }> {
    return this.campaigns.putRecipient(r);
  }

  getRecipients(tenantId: string, ids: readonly string[]): Promise<RecipientProfile[]> {
    return this.campaigns.getRecipients(tenantId, ids);
  }

  createAudience(a: { id: string; tenantId: string; source: AudienceSource; now: number }): Promise<void> {
    return this.campaigns.createAudience(a);
  }

  appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): Promise<number> {
    return this.campaigns.appendAudienceRows(audienceId, rows);
  }

  sealAudience(r: Parameters<CampaignStore['sealAudience']>[0]): Promise<AudienceView> {
    return this.campaigns.sealAudience(r);
  }

  deleteAudience(audienceId: string): Promise<void> {
    return this.campaigns.deleteAudience(audienceId);
  }

  pruneLoadingAudiences(before: number): Promise<number> {
    return this.campaigns.pruneLoadingAudiences(before);
  }

  getAudience(tenantId: string, id: string): Promise<AudienceView | null> {
    return this.campaigns.getAudience(tenantId, id);
  }

  readAudienceRows(audienceId: string, afterPosition: number, limit: number): Promise<AudienceRow[]> {
    return this.campaigns.readAudienceRows(audienceId, afterPosition, limit);
  }

  audienceLinesWithout(audienceId: string, channel: Channel, limit: number): Promise<number[]> {
    return this.campaigns.audienceLinesWithout(audienceId, channel, limit);
  }

  createCampaign(c: NewCampaign): Promise<void> {
    return this.campaigns.createCampaign(c);
  }

  getCampaign(tenantId: string, id: string): Promise<CampaignRecord | null> {
    return this.campaigns.getCampaign(tenantId, id);
  }

  transitionCampaign(r: Parameters<CampaignStore['transitionCampaign']>[0]): Promise<boolean> {
    return this.campaigns.transitionCampaign(r);
  }

  pauseCampaign(r: { tenantId: string; id: string; now: number; holdUntil: number }): Promise<boolean> {
    return this.campaigns.pauseCampaign(r);
  }

  resumeCampaign(r: { tenantId: string; id: string; now: number }): Promise<boolean> {
    return this.campaigns.resumeCampaign(r);
  }

  holdPausedDeliveries(r: { holdUntil: number }): Promise<number> {
    return this.campaigns.holdPausedDeliveries(r);
  }

  listActiveCampaigns(limit: number): Promise<CampaignRecord[]> {
    return this.campaigns.listActiveCampaigns(limit);
  }

  fanOutBatch(b: FanOutBatch): Promise<boolean> {
    return this.campaigns.fanOutBatch(b);
  }

  countCampaignQueued(campaignId: string): Promise<number> {
    return this.campaigns.countCampaignQueued(campaignId);
  }

  campaignDeliveryCounts(campaignId: string): Promise<CampaignDeliveryCount[]> {
    return this.campaigns.campaignDeliveryCounts(campaignId);
  }

  listCampaignPending(campaignId: string, limit: number): Promise<DeliveryFacts[]> {
    return this.campaigns.listCampaignPending(campaignId, limit);
  }

  finishCampaign(r: { id: string; now: number }): Promise<'complete' | 'cancel' | null> {
    return this.campaigns.finishCampaign(r);
  }

  /** Opt-outs, manual suppressions, the send-time check and server secrets (see preference-store.ts), in their own module. */
  private readonly preferences = new PostgresPreferences(this);

  replaceOptOuts(r: { tenantId: string; recipientId: string; optOuts: readonly OptOut[]; source: OptOutSource; now: number }): Promise<StoredOptOut[]> {
    return this.preferences.replaceOptOuts(r);
  }

  addOptOut(r: { tenantId: string; recipientId: string; optOut: OptOut; source: OptOutSource; now: number }): Promise<boolean> {
    return this.preferences.addOptOut(r);
  }

  listOptOuts(tenantId: string, recipientId: string): Promise<StoredOptOut[]> {
    return this.preferences.list(tenantId, recipientId);
  }

  addSuppression(r: { tenantId: string; channel: Channel; destination: string; now: number }): Promise<boolean> {
    return this.preferences.addSuppression(r);
  }

  removeSuppression(r: { tenantId: string; channel: Channel; destination: string }): Promise<boolean> {
    return this.preferences.removeSuppression(r);
  }

  sendabilityOf(deliveryIds: readonly string[]): Promise<SendCheck[]> {
    return this.preferences.sendabilityOf(deliveryIds);
  }

  serverSecret(name: string, generate: () => string, now: number): Promise<string> {
    return this.preferences.serverSecret(name, generate, now);
  }

  private readonly evidence = new PostgresEvidence(this);
  private readonly limiter = new PostgresLimiter(this);

  claimWithPermits(r: PermittedClaimRequest): Promise<{ claimed: ClaimedDelivery[]; retryAt: number | null }> {
    return this.limiter.claimWithPermits(r);
  }

  acquirePermits(r: PermitRequest): Promise<{ granted: number; retryAt: number | null }> {
    return this.limiter.acquirePermits(r);
  }

  throttleAccount(r: { providerAccount: string; now: number; retryAfterMs: number | null; limit: RateLimit }): Promise<number> {
    return this.limiter.throttleAccount(r);
  }

  recordProviderEvents(events: ProviderEventRecord[]): Promise<{ inserted: number; duplicates: number }> {
    return this.evidence.recordProviderEvents(events);
  }

  listPendingEvidence(limit: number): Promise<PendingEvidence[]> {
    return this.evidence.listPendingEvidence(limit);
  }

  applyEvidence(writes: EvidenceWrite[]): Promise<boolean[]> {
    return this.evidence.applyEvidence(writes);
  }

  pruneProviderEvents(r: { before: number; now: number }): Promise<{ orphaned: number; deleted: number }> {
    return this.evidence.pruneProviderEvents(r);
  }

  listUnknownDue(r: { now: number; limit: number; providerAccounts?: readonly string[] }): Promise<UnknownDelivery[]> {
    return this.evidence.listUnknownDue(r);
  }

  deferReconcile(r: { deliveryId: string; leaseVersion: number; at: number; attemptNumber: number; policy: AmbiguityPolicy | null }): Promise<boolean> {
    return this.evidence.deferReconcile(r);
  }

  resolveUnknown(r: { write: TransitionWrite; attemptNumber: number; policy: AmbiguityPolicy | null; resolution: AttemptResolution }): Promise<boolean> {
    return this.evidence.resolveUnknown(r);
  }

  getSuppression(tenantId: string, channel: Channel, destination: string): Promise<Suppression | null> {
    return this.evidence.getSuppression(tenantId, channel, destination);
  }

  listSuppressions(tenantId: string, limit: number): Promise<Suppression[]> {
    return this.evidence.listSuppressions(tenantId, limit);
  }

  /** The guarded transition (applyTransitions' own statement) and the audit row, in one transaction. */
  async replayDelivery(r: { write: TransitionWrite; audit: ReplayAudit }): Promise<boolean> {
    const w = r.write;
    const account = await this.tx(async (c) => {
      if (!(await this.applyRun([w], c)).has(w.deliveryId)) return null;
      const [row] = await this.q(
        'replay_insert',
        [w.deliveryId, r.audit.requestedBy, w.expect.state, r.audit.fromReason, r.audit.acceptDuplicateRisk, r.audit.note, w.now],
        c,
      );
      return String(row?.provider_account);
    });
    if (account === null) return false;
    // Workers in other processes: the delivery is ready now.
    this.wakeListeners([account]);
    return true;
  }

  async listReplays(tenantId: string, deliveryId: string): Promise<ReplayRecord[]> {
    return (await this.q('replays_by_delivery', [tenantId, deliveryId])).map(toReplayRecord);
  }

  async listReplayCandidates(tenantId: string, filter: ReplayFilter, afterId: string | null, limit: number): Promise<DeliveryView[]> {
    const rows = await this.q('replay_candidates', [
      tenantId,
      filter.state ?? null,
      filter.channel ?? null,
      filter.providerAccount ?? null,
      filter.createdFrom ?? null,
      filter.createdTo ?? null,
      afterId,
      Math.max(1, limit),
    ]);
    return rows.map(toDeliveryView);
  }

  async getNotificationSource(tenantId: string, id: string): Promise<NotificationSource | null> {
    const [r] = await this.q('notification_source', [tenantId, id]);
    return r ? toNotificationSource(r) : null;
  }

  async latestGeneration(tenantId: string, groupKey: string): Promise<number | null> {
    const [r] = await this.q('latest_generation', [tenantId, groupKey]);
    return r && r.generation !== null ? Number(r.generation) : null;
  }

  async listenForReady(onReady: (providerAccount: string) => void): Promise<() => Promise<void>> {
    // A dedicated connection (LISTEN is per session); reconnects after errors with a short backoff.
    let stopped = false;
    let client: pg.Client | null = null;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const c = new pg.Client({ connectionString: this.options.connectionString });
      c.on('notification', (msg) => {
        if (msg.channel === this.readyChannel && msg.payload) onReady(msg.payload);
      });
      c.on('error', () => {
        client = null;
        c.end().catch(() => {});
        if (!stopped) setTimeout(() => void connect().catch(() => {}), 1_000).unref();
      });
      await c.connect();
      await c.query(`LISTEN ${this.readyChannel}`);
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

interface CreateItem {
  n: NewNotification;
  idem: (IdempotencyCompletion & { tenantId: string }) | undefined;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** Thrown inside a group transaction to roll it back and write its members one by one. */
class GroupRetry extends Error {}

/** The `notification.created` outbox payload. */
function createdPayload(n: NewNotification): string {
  return JSON.stringify({ notification_id: n.id, purpose: n.purpose, deliveries: n.deliveries.map((d) => ({ id: d.id, channel: d.channel, state: 'ready' })) });
}

/**
 * Coalesces concurrent calls into groups without adding a wait under light load: a call is sent
 * on the next turn of the event loop with whatever else arrived in that turn, and while
 * `maxInFlight` groups are out, new calls queue and leave together as the next group (at most
 * `maxGroup` each) when one returns. `run` answers each member of a group in order.
 */
class Coalescer<T, R> {
  private queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: T[]) => Promise<Array<Settled<R>>>,
    private readonly maxInFlight: number,
    private readonly maxGroup: number,
  ) {}

  push(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0 && this.inFlight < this.maxInFlight) this.send(this.queue.splice(0, this.maxGroup));
    });
  }

  private send(group: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }>): void {
    this.inFlight++;
    this.run(group.map((g) => g.item))
      .then(
        (results) => results.forEach((r, i) => (r.ok ? group[i]!.resolve(r.value) : group[i]!.reject(r.error))),
        (err: unknown) => group.forEach((g) => g.reject(err)),
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
  }
}

/** Parameters of notification_create_many for a group (deliveries in key order). Exported for the driver's own campaign fan-out (campaigns.ts). */
export function createManyParams(items: ReadonlyArray<{ n: NewNotification; idem?: (IdempotencyCompletion & { tenantId: string }) | undefined }>): unknown[] {
  const withKey = items.filter((i) => i.idem);
  const nts = items.map((i) => i.n);
  // Deliveries in key order, so two groups naming the same delivery key wait for each other instead of deadlocking.
  const ds = nts
    .flatMap((n) => n.deliveries.map((d, position) => ({ n, d, position })))
    .sort((a, b) => (a.d.idempotencyKey < b.d.idempotencyKey ? -1 : a.d.idempotencyKey > b.d.idempotencyKey ? 1 : 0));
  return [
    nts.map((n) => n.id),
    nts.map((n) => n.tenantId),
    nts.map((n) => n.recipient.id),
    nts.map((n) => JSON.stringify(n.recipient)),
    nts.map((n) => n.purpose),
    nts.map((n) => JSON.stringify(n.channels)),
    nts.map((n) => JSON.stringify(n.content)),
    nts.map((n) => n.groupKey),
    nts.map((n) => n.generation),
    nts.map((n) => (n.metadata === null ? null : JSON.stringify(n.metadata))),
    nts.map((n) => n.expiresAt),
    nts.map((n) => n.createdAt),
    ds.map((x) => x.d.id),
    ds.map((x) => x.n.id),
    ds.map((x) => x.position),
    ds.map((x) => x.d.channel),
    ds.map((x) => x.d.providerAccount),
    ds.map((x) => x.d.destination),
    ds.map((x) => x.d.idempotencyKey),
    nts.map((n) => createdPayload(n)),
    withKey.map((i) => i.idem!.tenantId),
    withKey.map((i) => i.idem!.key),
    withKey.map((i) => i.idem!.fingerprint),
    withKey.map((i) => i.idem!.statusCode),
    withKey.map((i) => JSON.stringify(i.idem!.body)),
  ];
}

/** Parameters of notification_create for one notification (and its idempotency completion). */
function createParams(n: NewNotification, idem: (IdempotencyCompletion & { tenantId: string }) | undefined): unknown[] {
  const ds = n.deliveries;
  return [
    n.id,
    n.tenantId,
    n.recipient.id,
    JSON.stringify(n.recipient),
    n.purpose,
    JSON.stringify(n.channels),
    JSON.stringify(n.content),
    n.groupKey,
    n.generation,
    n.metadata === null ? null : JSON.stringify(n.metadata),
    n.expiresAt,
    n.createdAt,
    ds.map((d) => d.id),
    ds.map((_, i) => i),
    ds.map((d) => d.channel),
    ds.map((d) => d.providerAccount),
    ds.map((d) => d.destination),
    ds.map((d) => d.idempotencyKey),
    createdPayload(n),
    idem ? idem.key : null,
    idem ? idem.fingerprint : null,
    idem ? idem.statusCode : null,
    idem ? JSON.stringify(idem.body) : null,
    idem ? idem.tenantId : null,
  ];
}

/** Maps a unique violation to the StoreConflictError intake understands; anything else unchanged. */
function asConflict(err: unknown): unknown {
  const e = err as { code?: string; constraint?: string };
  if (e.code !== '23505') return err;
  const constraint =
    e.constraint === 'deliveries_idempotency_key_key'
      ? 'deliveries.idempotency_key'
      : e.constraint === 'notifications_group_generation'
        ? 'notifications.challenge'
        : (e.constraint ?? 'unique');
  return new StoreConflictError('a notification or delivery with this identity already exists', { constraint }, { cause: err });
}
