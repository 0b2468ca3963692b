/**
 * The embedded SQLite driver: WAL, synchronous=FULL by default (an acknowledged notification
 * survives power loss), one writer at a time. better-sqlite3 is synchronous, so each method
 * runs its transaction to completion before yielding: a transaction never spans an await.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DELIVERY_STATES, PURPOSES, type AmbiguityPolicy, type Channel, type DeliveryState, type Purpose, type RateLimit, type SubmitOutcome } from '../../domain/index.js';
import { attemptFields, transitionPayload } from '../transition-fields.js';
import { checkGeneration, pendingOlder, supersedeWrites } from '../challenge.js';
import { loadMigrations, loadNamedSql } from '../named-sql.js';
import { SqliteEvidence } from './evidence.js';
import { SqlitePreferences } from './preferences.js';
import type { OptOut } from '../../domain/index.js';
import type { OptOutSource, SendCheck, StoredOptOut } from '../preference-store.js';
import { SqliteCampaigns } from './campaigns.js';
import type { AudienceRow, AudienceSource, AudienceView, CampaignDeliveryCount, CampaignRecord, CampaignStore, FanOutBatch, NewCampaign, RecipientProfile } from '../campaign-store.js';
import type { RecipientInput } from '../store.js';
import { SqliteLimiter } from './limiter.js';
import type { PermitRequest, PermittedClaimRequest } from '../limiter-store.js';
import { SqliteWebhooks } from './webhooks.js';
import type { NewWebhookEndpoint, WebhookEndpointView, WebhookMessage, WebhookStore, WebhookTarget } from '../webhook-store.js';
import type { AttemptResolution, EvidenceWrite, PendingEvidence, ProviderEventRecord, Suppression, UnknownDelivery } from '../evidence-store.js';
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
  type Page,
  type Reservation,
  type Store,
  type TransitionResult,
  type TransitionWrite,
} from '../store.js';
import { toAttemptView, toDeliveryFacts, toDeliveryView, toDueFallback, type Row } from '../rows.js';
import { toNotificationSource, toReplayRecord } from '../rows.js';
import type { CreatedNotification, DueFallback, NotificationSource, ReplayAudit, ReplayFilter, ReplayRecord, ReviewItem } from '../store.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface SqliteStoreOptions {
  /** Database file; `:memory:` for a throwaway store. */
  path: string;
  /** FULL (default) fsyncs every commit; NORMAL may lose the last commits on power loss. */
  synchronous?: 'FULL' | 'NORMAL';
  /** How long a writer waits for the lock held by another process before failing. */
  busyTimeoutMs?: number;
}

/** The @otp … @alert flags of the per-lane statements: 1 for the given purposes (all when absent). */
function purposeFlags(purposes: readonly Purpose[] | undefined): Record<Purpose, number> {
  const on = new Set<Purpose>(purposes ?? PURPOSES);
  return Object.fromEntries(PURPOSES.map((p) => [p, on.has(p) ? 1 : 0])) as Record<Purpose, number>;
}

/** Opens (creating if needed) a SQLite store; call `migrate()` before use. */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  db.pragma('foreign_keys = ON');
  return new SqliteStore(db);
}

export class SqliteStore implements Store {
  readonly driver = 'sqlite' as const;
  private readonly sql = loadNamedSql(join(here, 'queries'));
  private readonly statements = new Map<string, Database.Statement>();

  /** `db`, `stmt` and `applyOne` are the driver's own: its table modules (evidence.ts, ...) use them; nothing outside src/store/sqlite does. */
  constructor(readonly db: Database.Database) {}

  stmt(name: string): Database.Statement {
    let s = this.statements.get(name);
    if (!s) {
      const text = this.sql.get(name);
      if (!text) throw new Error(`no SQL statement named ${name}`);
      s = this.db.prepare(text);
      this.statements.set(name, s);
    }
    return s;
  }

  async migrate(): Promise<string[]> {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const applied: string[] = [];
    const run = this.db.transaction(() => {
      const done = new Set(
        (this.db.prepare('SELECT version FROM schema_migrations').all() as Row[]).map((r) => Number(r.version)),
      );
      for (const m of loadMigrations(join(here, 'migrations'))) {
        if (done.has(m.version)) continue;
        this.db.exec(m.sql);
        this.db
          .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
          .run(m.version, m.name, Date.now());
        applied.push(m.name);
      }
    });
    // IMMEDIATE: two processes starting at once serialize here instead of both applying 0001.
    run.immediate();
    return applied;
  }

  async close(): Promise<void> {
    // Intake writes waiting for their group commit are written (or refused) before closing.
    if (this.db.open) this.flushWrites();
    if (this.db.open) this.db.close();
  }

  async ensureTenant(tenant: { id: string; name: string }, now: number): Promise<void> {
    this.stmt('tenant_ensure').run({ id: tenant.id, name: tenant.name, now });
  }

  async createApiKey(k: { id: string; tenantId: string; keyHash: string; label: string; now: number }): Promise<void> {
    this.stmt('api_key_insert').run({ id: k.id, tenant_id: k.tenantId, key_hash: k.keyHash, label: k.label, now: k.now });
  }

  async findApiKey(keyHash: string): Promise<ApiKeyRecord | null> {
    const r = this.stmt('api_key_find').get({ key_hash: keyHash }) as Row | undefined;
    return r ? { id: String(r.id), tenantId: String(r.tenant_id) } : null;
  }

  async hasApiKeys(): Promise<boolean> {
    return Number((this.stmt('api_keys_exist').get() as Row).e) === 1;
  }

  async reserveIdempotencyKey(r: {
    tenantId: string;
    key: string;
    fingerprint: string;
    now: number;
    lockMs: number;
    retentionMs: number;
  }): Promise<Reservation> {
    const params = {
      tenant_id: r.tenantId,
      key: r.key,
      fingerprint: r.fingerprint,
      locked_until: r.now + r.lockMs,
      now: r.now,
      expires_at: r.now + r.retentionMs,
    };
    // Group-committed with other intake writes (see `grouped`): decided in arrival order inside
    // the shared transaction, answered once it is committed.
    return this.grouped((): Reservation => {
      const row = this.stmt('idempotency_get').get({ tenant_id: r.tenantId, key: r.key }) as Row | undefined;
      if (!row) {
        this.stmt('idempotency_insert').run(params);
        return { kind: 'reserved' };
      }
      if (row.status === 'completed') {
        if (Number(row.expires_at) <= r.now) {
          this.stmt('idempotency_replace').run(params);
          return { kind: 'reserved' };
        }
        if (row.fingerprint !== r.fingerprint) return { kind: 'mismatch' };
        return { kind: 'replay', statusCode: Number(row.response_status), body: JSON.parse(String(row.response_body)) };
      }
      if (Number(row.locked_until) > r.now) {
        return row.fingerprint === r.fingerprint ? { kind: 'in_progress' } : { kind: 'mismatch' };
      }
      this.stmt('idempotency_replace').run(params);
      return { kind: 'reserved' };
    });
  }

  async releaseIdempotencyKey(r: { tenantId: string; key: string }): Promise<void> {
    this.stmt('idempotency_release').run({ tenant_id: r.tenantId, key: r.key });
  }

  async completeIdempotencyKey(r: { tenantId: string; key: string; fingerprint: string; statusCode: number; body: unknown }): Promise<void> {
    this.stmt('idempotency_complete').run({
      tenant_id: r.tenantId,
      key: r.key,
      fingerprint: r.fingerprint,
      response_status: r.statusCode,
      response_body: JSON.stringify(r.body),
    });
  }

  async pruneIdempotencyKeys(now: number): Promise<number> {
    return this.stmt('idempotency_prune').run({ now }).changes;
  }

  /** Written by group commit (see `grouped`); a duplicate delivery identity is a StoreConflictError. */
  async createNotification(n: NewNotification, idem?: IdempotencyCompletion & { tenantId: string }): Promise<CreatedNotification> {
    try {
      return await this.grouped(() => this.insertNotification(n, idem));
    } catch (err) {
      throw mapCreateError(err);
    }
  }

  private pendingWrites: Array<{ run: () => unknown; resolve: (value: unknown) => void; reject: (err: unknown) => void }> = [];

  /**
   * Group commit for intake writes (createNotification, reserveIdempotencyKey): every such write
   * issued in the same turn of the event loop (e.g. by the requests one poll phase delivered) runs
   * in one `BEGIN IMMEDIATE … COMMIT`, so N writes cost one fsync instead of N. Each runs in its
   * own savepoint, in arrival order: a conflict rolls back that write alone and rejects only its
   * caller. Every caller's promise settles after the shared COMMIT, so nothing is acknowledged
   * before it is durable.
   */
  private grouped<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pendingWrites.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (this.pendingWrites.length === 1) setImmediate(() => this.flushWrites());
    });
  }

  private flushWrites(): void {
    const group = this.pendingWrites;
    this.pendingWrites = [];
    if (group.length === 0) return;
    if (group.length === 1) return this.settleAlone(group[0]!);
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const item of group) {
            try {
              // A nested better-sqlite3 transaction is a SAVEPOINT: rolled back alone on error.
              outcomes.push({ ok: true, value: this.db.transaction(item.run)() });
            } catch (error) {
              // A constraint (or our own conflict) stays inside its savepoint; anything else
              // (I/O, full disk) may have ended the transaction: give up on grouping.
              if (!(error instanceof StoreConflictError || isConstraintError(error))) throw error;
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch {
      // The group did not commit: run each alone, so every caller gets the answer it would have
      // had without grouping.
      for (const item of group) this.settleAlone(item);
      return;
    }
    group.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.error);
    });
  }

  private settleAlone(item: SqliteStore['pendingWrites'][number]): void {
    try {
      item.resolve(this.db.transaction(item.run).immediate());
    } catch (err) {
      item.reject(err);
    }
  }

  /** The statements of one notification; runs inside a transaction or savepoint. The driver's own (campaign fan-out, campaigns.ts, batches it); nothing outside src/store/sqlite calls it. */
  insertNotification(n: NewNotification, idem: (IdempotencyCompletion & { tenantId: string }) | undefined): CreatedNotification {
    // One writer at a time in SQLite: the generation check and the supersede below cannot race.
    const latest = this.stmt('latest_generation').get({ tenant_id: n.tenantId, group_key: n.groupKey }) as Row | undefined;
    checkGeneration(latest?.generation, n.generation);
    this.stmt('notification_insert').run({
      id: n.id,
      tenant_id: n.tenantId,
      recipient_id: n.recipient.id,
      recipient_json: JSON.stringify(n.recipient),
      purpose: n.purpose,
      channels_json: JSON.stringify(n.channels),
      content_json: JSON.stringify(n.content),
      group_key: n.groupKey,
      generation: n.generation,
      metadata_json: n.metadata === null ? null : JSON.stringify(n.metadata),
      expires_at: n.expiresAt,
      created_at: n.createdAt,
    });
    // With fallback, only the first channel is a delivery now; the others wait their turn.
    const createdNow = n.fallback ? n.deliveries.slice(0, 1) : n.deliveries;
    createdNow.forEach((d, position) => {
      this.stmt('delivery_insert').run({
        id: d.id,
        notification_id: n.id,
        tenant_id: n.tenantId,
        position,
        channel: d.channel,
        purpose: n.purpose,
        provider_account: d.providerAccount,
        destination: d.destination,
        idempotency_key: d.idempotencyKey,
        expires_at: n.expiresAt,
        now: n.createdAt,
      });
    });
    this.stmt('outbox_insert').run({
      tenant_id: n.tenantId,
      notification_id: n.id,
      delivery_id: null,
      event_type: 'notification.created',
      payload_json: JSON.stringify({
        notification_id: n.id,
        purpose: n.purpose,
        deliveries: n.deliveries.map((d) => ({ id: d.id, channel: d.channel, state: 'ready' })),
      }),
      now: n.createdAt,
    });
    if (idem) {
      const done = this.stmt('idempotency_complete').run({
        tenant_id: idem.tenantId,
        key: idem.key,
        fingerprint: idem.fingerprint,
        response_status: idem.statusCode,
        response_body: JSON.stringify(idem.body),
      });
      // The reservation was taken over (its lock ran out) by another request: do not commit twice.
      if (done.changes !== 1) throw new StoreConflictError('idempotency key is no longer reserved', { constraint: 'idempotency_keys' });
    }
    if (n.retryLadder) this.stmt('notification_set_ladder').run({ id: n.id, retry_ladder: n.retryLadder });
    if (n.fallback) {
      this.stmt('notification_set_fallback').run({ id: n.id, fallback_after_ms: n.fallback.afterMs, fallback_evidence: n.fallback.evidence });
      n.deliveries.slice(1).forEach((d, i) => {
        this.stmt('fallback_insert').run({
          notification_id: n.id,
          position: i + 1,
          delivery_id: d.id,
          tenant_id: n.tenantId,
          channel: d.channel,
          provider_account: d.providerAccount,
          destination: d.destination,
          idempotency_key: d.idempotencyKey,
          // Only the next channel has a deadline; the ones after it start theirs in turn.
          due_at: i === 0 ? n.createdAt + n.fallback!.afterMs : null,
        });
      });
    }
    if (n.generation > 1) {
      this.stmt('fallbacks_drop_older').run({ tenant_id: n.tenantId, group_key: n.groupKey, generation: n.generation });
      const older = pendingOlder(this.stmt('challenge_pending_older').all({ tenant_id: n.tenantId, group_key: n.groupKey, generation: n.generation }) as Row[]);
      const superseded: CreatedNotification['superseded'] = [];
      for (const w of supersedeWrites(older.map((o) => o.facts), n.createdAt)) {
        const o = older.find((x) => x.facts.deliveryId === w.deliveryId)!;
        if (this.applyOne(w)) superseded.push({ deliveryId: w.deliveryId, channel: o.channel, purpose: o.purpose });
      }
      return { superseded };
    }
    return { superseded: [] };
  }

  async getNotification(tenantId: string, id: string): Promise<NotificationView | null> {
    const read = this.db.transaction((): NotificationView | null => {
      const n = this.stmt('notification_get').get({ tenant_id: tenantId, id }) as Row | undefined;
      if (!n) return null;
      const deliveries = (this.stmt('deliveries_by_notification').all({ notification_id: id }) as Row[]).map(toDeliveryView);
      const attempts = this.stmt('attempts_by_notification').all({ notification_id: id }) as Row[];
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
        deliveries: deliveries.map((d) => ({
          ...d,
          attempts: attempts.filter((a) => a.delivery_id === d.id).map(toAttemptView),
        })),
      };
    });
    return read.deferred();
  }

  async listDeliveries(tenantId: string, filter: DeliveryFilter, cursor: string | null, limit: number): Promise<Page<DeliveryView>> {
    const rows = this.stmt('deliveries_list').all({
      tenant_id: tenantId,
      state: filter.state ?? null,
      channel: filter.channel ?? null,
      purpose: filter.purpose ?? null,
      before: cursor,
      limit: Math.max(1, limit) + 1,
    }) as Row[];
    const items = rows.slice(0, Math.max(1, limit)).map(toDeliveryView);
    return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
  }

  async getDelivery(id: string): Promise<DeliveryView | null> {
    const r = this.stmt('delivery_get').get({ id }) as Row | undefined;
    return r ? toDeliveryView(r) : null;
  }

  async claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]> {
    return this.claimTx(req).immediate();
  }

  private claimTx(req: ClaimRequest) {
    const leaseUntil = req.now + req.leaseMs;
    const tx = this.db.transaction((): ClaimedDelivery[] => {
      const due = this.stmt('claim_select_due').all({
        provider_account: req.providerAccount,
        now: req.now,
        // SQLite reads a negative LIMIT as "no limit": never let a bad caller claim everything.
        limit: Math.max(0, req.limit),
        ...purposeFlags(req.purposes),
      }) as Row[];
      const claimed: ClaimedDelivery[] = [];
      for (const row of due) {
        const r = this.stmt('claim_update').get({
          id: row.id,
          worker_id: req.workerId,
          lease_until: leaseUntil,
          now: req.now,
        }) as Row | undefined;
        if (!r) continue;
        const attemptNumber = Number(r.attempt_count);
        const leaseVersion = Number(r.lease_version);
        this.stmt('attempt_insert').run({
          delivery_id: r.id,
          number: attemptNumber,
          lease_version: leaseVersion,
          worker_id: req.workerId,
          now: req.now,
        });
        claimed.push({
          deliveryId: String(r.id),
          notificationId: String(r.notification_id),
          tenantId: String(r.tenant_id),
          channel: r.channel as ClaimedDelivery['channel'],
          purpose: r.purpose as ClaimedDelivery['purpose'],
          providerAccount: String(r.provider_account),
          destination: String(r.destination),
          content: JSON.parse(String(row.content_json)),
          retryLadder: (row.retry_ladder ?? null) as ClaimedDelivery['retryLadder'],
          idempotencyKey: String(r.idempotency_key),
          expiresAt: Number(r.expires_at),
          attemptNumber,
          leaseVersion,
          leaseUntil,
        });
      }
      return claimed;
    });
    return tx;
  }

  /** claimBatch's transaction, for a caller already inside one (the limiter's claimWithPermits). */
  claimSync(req: ClaimRequest): ClaimedDelivery[] {
    return this.claimTx(req)();
  }

  async renewLeases(r: { leases: Array<{ deliveryId: string; leaseVersion: number }>; workerId: string; leaseUntil: number; now: number }): Promise<string[]> {
    const tx = this.db.transaction(() =>
      r.leases.filter(
        (l) =>
          this.stmt('lease_renew').run({ id: l.deliveryId, lease_version: l.leaseVersion, worker_id: r.workerId, lease_until: r.leaseUntil, now: r.now })
            .changes === 1,
      ),
    );
    return tx.immediate().map((l) => l.deliveryId);
  }

  /** Customer webhooks (see webhook-store.ts), in their own module. */
  private readonly webhooks = new SqliteWebhooks(this);

  async createWebhookEndpoint(e: NewWebhookEndpoint): Promise<void> {
    this.webhooks.createEndpoint(e);
  }

  async listWebhookEndpoints(tenantId: string): Promise<WebhookEndpointView[]> {
    return this.webhooks.listEndpoints(tenantId);
  }

  async getWebhookEndpoint(tenantId: string, id: string): Promise<WebhookEndpointView | null> {
    return this.webhooks.listEndpoints(tenantId, id)[0] ?? null;
  }

  async deleteWebhookEndpoint(tenantId: string, id: string): Promise<boolean> {
    return this.webhooks.deleteEndpoint(tenantId, id);
  }

  async rotateWebhookSecret(r: { tenantId: string; id: string; secret: string; previousUntil: number; now: number }): Promise<boolean> {
    return this.webhooks.rotateSecret(r);
  }

  async enableWebhookEndpoint(r: { tenantId: string; id: string; now: number }): Promise<boolean> {
    return this.webhooks.enableEndpoint(r);
  }

  async relayOutbox(r: { now: number; limit: number }): Promise<{ published: number; messages: number }> {
    return this.webhooks.relayOutbox(r);
  }

  async pruneWebhookHistory(r: { outboxBefore: number; messagesBefore: number; limit: number }): Promise<{ outbox: number; messages: number }> {
    return this.webhooks.pruneHistory(r);
  }

  async claimWebhookEndpoints(r: { now: number; owner: string; leaseMs: number; limit: number }): Promise<WebhookTarget[]> {
    return this.webhooks.claimEndpoints(r);
  }

  async listWebhookHeads(r: { endpointId: string; now: number; limit: number }): Promise<WebhookMessage[]> {
    return this.webhooks.listHeads(r);
  }

  async recordWebhookAttempts(r: Parameters<WebhookStore['recordWebhookAttempts']>[0]): Promise<void> {
    this.webhooks.recordAttempts(r);
  }

  async releaseWebhookEndpoint(r: { endpointId: string; owner: string }): Promise<void> {
    this.webhooks.releaseEndpoint(r);
  }

  /** Recipients, audiences and campaigns (see campaign-store.ts), in their own module. */
  private readonly campaigns = new SqliteCampaigns(this);

  async putRecipient(r: { tenantId: string; recipient: RecipientInput; now: number }): Promise<{ created: boolean; profile: RecipientProfile }> {
    return this.campaigns.putRecipient(r);
  }

  async getRecipients(tenantId: string, ids: readonly string[]): Promise<RecipientProfile[]> {
    return this.campaigns.getRecipients(tenantId, ids);
  }

  async createAudience(a: { id: string; tenantId: string; source: AudienceSource; now: number }): Promise<void> {
    this.campaigns.createAudience(a);
  }

  async appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): Promise<number> {
    return this.campaigns.appendAudienceRows(audienceId, rows);
  }

  async sealAudience(r: Parameters<CampaignStore['sealAudience']>[0]): Promise<AudienceView> {
    return this.campaigns.sealAudience(r);
  }

  async deleteAudience(audienceId: string): Promise<void> {
    this.campaigns.deleteAudience(audienceId);
  }

  async pruneLoadingAudiences(before: number): Promise<number> {
    return this.campaigns.pruneLoadingAudiences(before);
  }

  async getAudience(tenantId: string, id: string): Promise<AudienceView | null> {
    return this.campaigns.getAudience(tenantId, id);
  }

  async readAudienceRows(audienceId: string, afterPosition: number, limit: number): Promise<AudienceRow[]> {
    return this.campaigns.readAudienceRows(audienceId, afterPosition, limit);
  }

  async audienceLinesWithout(audienceId: string, channel: Channel, limit: number): Promise<number[]> {
    return this.campaigns.audienceLinesWithout(audienceId, channel, limit);
  }

  async createCampaign(c: NewCampaign): Promise<void> {
    this.campaigns.createCampaign(c);
  }

  async getCampaign(tenantId: string, id: string): Promise<CampaignRecord | null> {
    return this.campaigns.getCampaign(tenantId, id);
  }

  async transitionCampaign(r: Parameters<CampaignStore['transitionCampaign']>[0]): Promise<boolean> {
    return this.campaigns.transitionCampaign(r);
  }

  async pauseCampaign(r: { tenantId: string; id: string; now: number; holdUntil: number }): Promise<boolean> {
    return this.campaigns.pauseCampaign(r);
  }

  async resumeCampaign(r: { tenantId: string; id: string; now: number }): Promise<boolean> {
    return this.campaigns.resumeCampaign(r);
  }

  async holdPausedDeliveries(r: { holdUntil: number }): Promise<number> {
    return this.campaigns.holdPausedDeliveries(r);
  }

  async listActiveCampaigns(limit: number): Promise<CampaignRecord[]> {
    return this.campaigns.listActiveCampaigns(limit);
  }

  async fanOutBatch(b: FanOutBatch): Promise<boolean> {
    return this.campaigns.fanOutBatch(b);
  }

  async countCampaignQueued(campaignId: string): Promise<number> {
    return this.campaigns.countCampaignQueued(campaignId);
  }

  async campaignDeliveryCounts(campaignId: string): Promise<CampaignDeliveryCount[]> {
    return this.campaigns.campaignDeliveryCounts(campaignId);
  }

  async listCampaignPending(campaignId: string, limit: number): Promise<DeliveryFacts[]> {
    return this.campaigns.listCampaignPending(campaignId, limit);
  }

  async finishCampaign(r: { id: string; now: number }): Promise<'complete' | 'cancel' | null> {
    return this.campaigns.finishCampaign(r);
  }

  /** Opt-outs, manual suppressions, the send-time check and server secrets (see preference-store.ts), in their own module. */
  private readonly preferences = new SqlitePreferences(this);

  async replaceOptOuts(r: { tenantId: string; recipientId: string; optOuts: readonly OptOut[]; source: OptOutSource; now: number }): Promise<StoredOptOut[]> {
    return this.preferences.replaceOptOuts(r);
  }

  async addOptOut(r: { tenantId: string; recipientId: string; optOut: OptOut; source: OptOutSource; now: number }): Promise<boolean> {
    return this.preferences.addOptOut(r);
  }

  async listOptOuts(tenantId: string, recipientId: string): Promise<StoredOptOut[]> {
    return this.preferences.list(tenantId, recipientId);
  }

  async addSuppression(r: { tenantId: string; channel: Channel; destination: string; now: number }): Promise<boolean> {
    return this.preferences.addSuppression(r);
  }

  async removeSuppression(r: { tenantId: string; channel: Channel; destination: string }): Promise<boolean> {
    return this.preferences.removeSuppression(r);
  }

  async sendabilityOf(deliveryIds: readonly string[]): Promise<SendCheck[]> {
    return this.preferences.sendabilityOf(deliveryIds);
  }

  async serverSecret(name: string, generate: () => string, now: number): Promise<string> {
    return this.preferences.serverSecret(name, generate, now);
  }

  private readonly evidence = new SqliteEvidence(this);
  private readonly limiter = new SqliteLimiter(this);

  async claimWithPermits(r: PermittedClaimRequest): Promise<{ claimed: ClaimedDelivery[]; retryAt: number | null }> {
    return this.limiter.claimWithPermits(r);
  }

  async acquirePermits(r: PermitRequest): Promise<{ granted: number; retryAt: number | null }> {
    return this.limiter.acquirePermits(r);
  }

  async throttleAccount(r: { providerAccount: string; now: number; retryAfterMs: number | null; limit: RateLimit }): Promise<number> {
    return this.limiter.throttleAccount(r);
  }

  async recordProviderEvents(events: ProviderEventRecord[]): Promise<{ inserted: number; duplicates: number }> {
    return this.evidence.recordProviderEvents(events);
  }

  async listPendingEvidence(limit: number): Promise<PendingEvidence[]> {
    return this.evidence.listPendingEvidence(limit);
  }

  async applyEvidence(writes: EvidenceWrite[]): Promise<boolean[]> {
    return this.evidence.applyEvidence(writes);
  }

  async pruneProviderEvents(r: { before: number; now: number }): Promise<{ orphaned: number; deleted: number }> {
    return this.evidence.pruneProviderEvents(r.before, r.now);
  }

  async listUnknownDue(r: { now: number; limit: number; providerAccounts?: readonly string[] }): Promise<UnknownDelivery[]> {
    return this.evidence.listUnknownDue(r);
  }

  async deferReconcile(r: { deliveryId: string; leaseVersion: number; at: number; attemptNumber: number; policy: AmbiguityPolicy | null }): Promise<boolean> {
    return this.evidence.deferReconcile(r);
  }

  async resolveUnknown(r: { write: TransitionWrite; attemptNumber: number; policy: AmbiguityPolicy | null; resolution: AttemptResolution }): Promise<boolean> {
    return this.evidence.resolveUnknown(r);
  }

  async getSuppression(tenantId: string, channel: Channel, destination: string): Promise<Suppression | null> {
    return this.evidence.getSuppression(tenantId, channel, destination);
  }

  async listSuppressions(tenantId: string, limit: number): Promise<Suppression[]> {
    return this.evidence.listSuppressions(tenantId, limit);
  }

  async listenForReady(): Promise<() => Promise<void>> {
    // One process per SQLite file is the norm; intake wakes its own workers in memory.
    return async () => {};
  }

  async applyTransitions(writes: TransitionWrite[]): Promise<TransitionResult[]> {
    if (writes.length === 0) return [];
    const tx = this.db.transaction((): TransitionResult[] =>
      writes.map((w) => ({ deliveryId: w.deliveryId, applied: this.applyOne(w) })),
    );
    return tx.immediate();
  }

  /**
   * One guarded transition with its attempt close and outbox event; runs inside the caller's
   * transaction. False when the delivery is no longer in the expected state and lease version.
   */
  applyOne(w: TransitionWrite): boolean {
    const t = w.transition;
    const attempt = w.attempt ? attemptFields(w.attempt.outcome) : null;
    const row = this.stmt('delivery_transition').get({
      id: w.deliveryId,
      expect_state: w.expect.state,
      expect_lease_version: w.expect.leaseVersion,
      to_state: t.to,
      terminal_reason: t.terminalReason,
      next_attempt_at: t.nextAttemptAt,
      provider_message_id: t.providerMessageId ?? null,
      downstream_status: t.to === 'accepted' ? 'accepted' : null,
      last_error_code: attempt?.error_code ?? null,
      now: w.now,
    }) as Row | undefined;
    if (!row) return false;
    if (w.attempt && attempt) {
      this.stmt('attempt_finish').run({ delivery_id: w.deliveryId, number: w.attempt.number, now: w.now, ...attempt });
    }
    this.stmt('outbox_insert').run({
      tenant_id: row.tenant_id,
      notification_id: row.notification_id,
      delivery_id: w.deliveryId,
      event_type: `delivery.${t.to}`,
      payload_json: transitionPayload(w),
      now: w.now,
    });
    return true;
  }

  async recordLateOutcome(r: { deliveryId: string; attemptNumber: number; outcome: SubmitOutcome }): Promise<void> {
    this.stmt('attempt_late_outcome').run({
      delivery_id: r.deliveryId,
      number: r.attemptNumber,
      late_outcome: r.outcome.kind,
      provider_message_id: r.outcome.kind === 'accepted' ? r.outcome.providerMessageId : null,
    });
  }

  async listExpiredLeases(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (this.stmt('leases_expired').all({ now, limit }) as Row[]).map(toDeliveryFacts);
  }

  async listExpiredPending(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (this.stmt('pending_expired').all({ now, limit }) as Row[]).map(toDeliveryFacts);
  }

  async nextDueAt(providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null> {
    return this.nextDueSync(providerAccount, now, purposes);
  }

  /** nextDueAt without the promise, for the driver's own transactions. */
  nextDueSync(providerAccount: string, now: number, purposes?: readonly Purpose[]): number | null {
    const r = this.stmt('next_due_at').get({ provider_account: providerAccount, now, ...purposeFlags(purposes) }) as Row | undefined;
    return r && r.at !== null ? Number(r.at) : null;
  }

  async recordProviderCalls(r: { providerAccount: string; bucketStart: number; calls: number; failures: number }): Promise<void> {
    this.stmt('provider_calls_add').run({ provider_account: r.providerAccount, bucket_start: r.bucketStart, calls: r.calls, failures: r.failures });
  }

  async providerHealth(providerAccount: string, since: number): Promise<{ calls: number; failures: number }> {
    const r = this.stmt('provider_health_since').get({ provider_account: providerAccount, since }) as Row;
    return { calls: Number(r.calls), failures: Number(r.failures) };
  }

  async pruneProviderHealth(before: number): Promise<number> {
    return this.stmt('provider_health_prune').run({ before }).changes;
  }

  async listDueFallbacks(now: number, limit: number): Promise<DueFallback[]> {
    return (this.stmt('fallbacks_due').all({ now, limit: Math.max(0, limit) }) as Row[]).map(toDueFallback);
  }

  async resolveFallback(r: { notificationId: string; position: number; action: 'create' | 'drop'; now: number; nextDueAt: number }): Promise<boolean> {
    const tx = this.db.transaction((): boolean => {
      const taken = this.stmt('fallback_take').get({ notification_id: r.notificationId, position: r.position }) as Row | undefined;
      if (!taken) return false;
      if (r.action === 'drop') {
        this.stmt('fallbacks_drop').run({ notification_id: r.notificationId });
        return true;
      }
      this.stmt('fallback_delivery_insert').run({
        id: taken.delivery_id,
        notification_id: r.notificationId,
        tenant_id: taken.tenant_id,
        position: r.position,
        channel: taken.channel,
        provider_account: taken.provider_account,
        destination: taken.destination,
        idempotency_key: taken.idempotency_key,
        now: r.now,
      });
      this.stmt('fallback_schedule_next').run({ notification_id: r.notificationId, position: r.position + 1, due_at: r.nextDueAt });
      this.stmt('outbox_insert').run({
        tenant_id: taken.tenant_id,
        notification_id: r.notificationId,
        delivery_id: taken.delivery_id,
        event_type: 'delivery.ready',
        payload_json: JSON.stringify({ delivery_id: taken.delivery_id, from: null, state: 'ready', channel: taken.channel, fallback: true }),
        now: r.now,
      });
      return true;
    });
    return tx.immediate();
  }

  async countByState(): Promise<Record<DeliveryState, number>> {
    const out = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
    for (const r of this.stmt('count_by_state').all() as Row[]) out[r.state as DeliveryState] = Number(r.n);
    return out;
  }

  async listReview(tenantId: string, opts: { now: number; unknownAfterMs: number }, cursor: string | null, limit: number): Promise<Page<ReviewItem>> {
    const size = Math.max(1, limit);
    const rows = this.stmt('review_list').all({
      tenant_id: tenantId,
      unknown_before: opts.now - opts.unknownAfterMs,
      before: cursor,
      limit: size + 1,
    }) as Row[];
    const items = rows.slice(0, size).map((r) => ({ ...toDeliveryView(r), reviewReason: r.review_reason as ReviewItem['reviewReason'] }));
    return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
  }

  /** The guarded transition (the same statements as applyTransitions) and the audit row, in one transaction. */
  async replayDelivery(r: { write: TransitionWrite; audit: ReplayAudit }): Promise<boolean> {
    const w = r.write;
    const tx = this.db.transaction((): boolean => {
      if (!this.applyOne(w)) return false;
      this.stmt('replay_insert').run({
        delivery_id: w.deliveryId,
        requested_by: r.audit.requestedBy,
        from_state: w.expect.state,
        from_reason: r.audit.fromReason,
        accept_duplicate_risk: r.audit.acceptDuplicateRisk ? 1 : 0,
        note: r.audit.note,
        now: w.now,
      });
      return true;
    });
    return tx.immediate();
  }

  async listReplays(tenantId: string, deliveryId: string): Promise<ReplayRecord[]> {
    return (this.stmt('replays_by_delivery').all({ tenant_id: tenantId, delivery_id: deliveryId }) as Row[]).map(toReplayRecord);
  }

  async listReplayCandidates(tenantId: string, filter: ReplayFilter, afterId: string | null, limit: number): Promise<DeliveryView[]> {
    return (
      this.stmt('replay_candidates').all({
        tenant_id: tenantId,
        state: filter.state ?? null,
        channel: filter.channel ?? null,
        provider_account: filter.providerAccount ?? null,
        created_from: filter.createdFrom ?? null,
        created_to: filter.createdTo ?? null,
        after: afterId,
        limit: Math.max(1, limit),
      }) as Row[]
    ).map(toDeliveryView);
  }

  async getNotificationSource(tenantId: string, id: string): Promise<NotificationSource | null> {
    const r = this.stmt('notification_source').get({ tenant_id: tenantId, id }) as Row | undefined;
    return r ? toNotificationSource(r) : null;
  }

  async latestGeneration(tenantId: string, groupKey: string): Promise<number | null> {
    const r = this.stmt('latest_generation').get({ tenant_id: tenantId, group_key: groupKey }) as Row | undefined;
    return r && r.generation !== null ? Number(r.generation) : null;
  }

  /** The schema as SQLite reports it; used by the schema/domain agreement test. */
  schemaSql(): string {
    return (this.db.prepare("SELECT group_concat(sql, ';\n') AS s FROM sqlite_master WHERE sql IS NOT NULL").get() as Row).s as string;
  }
}

function isConstraintError(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith('SQLITE_CONSTRAINT');
}

/** A duplicate delivery identity is the caller's conflict; other errors pass through unchanged. */
function mapCreateError(err: unknown): unknown {
  if (err instanceof Database.SqliteError && err.code === 'SQLITE_CONSTRAINT_UNIQUE') {
    const constraint = /deliveries\.idempotency_key/.test(err.message)
      ? 'deliveries.idempotency_key'
      : /notifications\.group_key/.test(err.message)
        ? 'notifications.challenge'
        : 'unique';
    return new StoreConflictError('a delivery with this identity already exists', { constraint }, { cause: err });
  }
  return err;
}
