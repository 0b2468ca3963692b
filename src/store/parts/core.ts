/**
 * The core of the Store contract (../core-store.ts), written once for both drivers: tenants'
 * keys, idempotency bookkeeping, reads of notifications and deliveries, the sweeper's reads.
 * What is on the hot path and differs by dialect is the drivers' own (sqlite/sqlite-store.ts,
 * postgres/postgres-store.ts): intake's writes and idempotency reservations (SQLite's group
 * commit; PostgreSQL's coalesced multi-row statements), the API key look-up (coalesced in
 * PostgreSQL), claims, lease renewals and transitions (one statement per batch in PostgreSQL),
 * and the wake-up between processes (LISTEN/NOTIFY).
 */
import { DELIVERY_STATES, type DeliveryState, PURPOSES, type Purpose } from '../../domain/index.js';
import { bindTo, openContent } from '../content-cipher.js';
import type {
  ApiKeyRecord,
  BatchItemOutcome,
  BatchKeyTerms,
  BatchNotification,
  ClaimedDelivery,
  ClaimRequest,
  CoreStore,
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
import { LIST_STATEMENTS, planDeliveryList, toDeliveryPage } from '../delivery-list.js';
import { json, jsonOrNull, type Row, toAttemptView, toDeliveryFacts, toDeliveryView } from '../rows.js';
import { type Executor, all, list, one } from '../sql-executor.js';
import { apiKeyParams } from './tenants.js';

/**
 * reserveIdempotencyKey's rule for a key that already has a row: the answer, or 'take' when the
 * row's retention or lock ran out and the caller replaces it (idempotency_replace). Both drivers
 * decide with it, after their own way of trying the insert first.
 */
export function decideExistingKey(row: Row, r: IdempotencyRequest): Reservation | 'take' {
  if (row.status === 'completed') {
    if (Number(row.expires_at) <= r.now) return 'take';
    if (row.fingerprint !== r.fingerprint) return { kind: 'mismatch', fingerprint: String(row.fingerprint) };
    return { kind: 'replay', statusCode: Number(row.response_status), body: json(row.response_body) };
  }
  if (Number(row.locked_until) > r.now)
    return row.fingerprint === r.fingerprint ? { kind: 'in_progress' } : { kind: 'mismatch', fingerprint: String(row.fingerprint) };
  return 'take';
}

/** The core's methods both dialects write the same way; a driver's store extends it with the rest. */
export abstract class CorePart<X extends Executor = Executor> implements CoreStore {
  constructor(protected readonly x: X) {}

  abstract findApiKey(keyHash: string): Promise<ApiKeyRecord | null>;
  abstract reserveIdempotencyKey(r: IdempotencyRequest): Promise<Reservation>;
  abstract createNotification(n: NewNotification, idempotency?: TenantIdempotencyCompletion): Promise<CreatedNotification>;
  abstract createNotifications(items: BatchNotification[], keys?: BatchKeyTerms): Promise<BatchItemOutcome[]>;
  abstract claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]>;
  abstract renewLeases(r: LeaseRenewal): Promise<string[]>;
  abstract applyTransitions(writes: TransitionWrite[]): Promise<TransitionResult[]>;
  abstract listenForReady(onReady: ReadyListener): Promise<Unsubscribe>;

  async ensureTenant(tenant: NewTenant, now: number): Promise<void> {
    await this.x.count('tenant_ensure', { id: tenant.id, name: tenant.name, now });
  }

  async createApiKey(k: NewApiKey): Promise<void> {
    await this.x.count('api_key_insert', apiKeyParams(k));
  }

  async hasApiKeys(): Promise<boolean> {
    return Number((await this.x.one('api_keys_exist'))?.e) === 1;
  }

  async releaseIdempotencyKey(r: IdempotencyKeyRef): Promise<void> {
    await this.x.count('idempotency_release', { tenant_id: r.tenantId, key: r.key });
  }

  async completeIdempotencyKey(r: TenantIdempotencyCompletion): Promise<void> {
    await this.x.count('idempotency_complete', {
      tenant_id: r.tenantId,
      key: r.key,
      fingerprint: r.fingerprint,
      response_status: r.statusCode,
      response_body: JSON.stringify(r.body),
    });
  }

  pruneIdempotencyKeys(now: number): Promise<number> {
    return this.x.count('idempotency_prune', { now });
  }

  /** The notification, its deliveries and their attempts from one snapshot. */
  getNotification(tenantId: string, id: string): Promise<NotificationView | null> {
    const cipher = this.x.cipher;
    return this.x.snapshot(function* () {
      const n = yield* one('notification_get', { tenant_id: tenantId, id });
      if (!n) return null;
      const deliveries = (yield* all('deliveries_by_notification', { notification_id: id })).map(toDeliveryView);
      const attempts = yield* all('attempts_by_notification', { notification_id: id });
      return {
        id: String(n.id),
        tenantId: String(n.tenant_id),
        recipientId: String(n.recipient_id),
        purpose: n.purpose as NotificationView['purpose'],
        channels: json(n.channels_json),
        groupKey: String(n.group_key),
        generation: Number(n.generation),
        metadata: jsonOrNull(n.metadata_json),
        content: openContent(cipher, n.content_json, bindTo('notifications', 'content_json', String(n.id))),
        expiresAt: Number(n.expires_at),
        createdAt: Number(n.created_at),
        deliveries: deliveries.map((d) => ({ ...d, attempts: attempts.filter((a) => a.delivery_id === d.id).map(toAttemptView) })),
      };
    });
  }

  /** Planned per call (Executor.allPlanned): the best plan depends on which filters are set. */
  async listDeliveries(tenantId: string, filter: DeliveryFilter, cursor: string | null, limit: number): Promise<Page<DeliveryListItem>> {
    const plan = planDeliveryList(tenantId, filter, cursor, limit);
    return toDeliveryPage(await this.x.allPlanned(LIST_STATEMENTS[plan.driving], plan.params), limit);
  }

  async getDelivery(id: string): Promise<DeliveryView | null> {
    const r = await this.x.one('delivery_get', { id });
    return r ? toDeliveryView(r) : null;
  }

  async latestGeneration(tenantId: string, groupKey: string): Promise<number | null> {
    const r = await this.x.one('latest_generation', { tenant_id: tenantId, group_key: groupKey });
    return r && r.generation !== null ? Number(r.generation) : null;
  }

  async recordLateOutcome(r: LateOutcome): Promise<void> {
    await this.x.count('attempt_late_outcome', {
      delivery_id: r.deliveryId,
      number: r.attemptNumber,
      late_outcome: r.outcome.kind,
      provider_message_id: r.outcome.kind === 'accepted' ? r.outcome.providerMessageId : null,
    });
  }

  /** One index probe per purpose (the lane's purposes; all when absent). */
  async nextDueAt(providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null> {
    const r = await this.x.one('next_due_at', { provider_account: providerAccount, now, purposes: list(purposes ?? PURPOSES) });
    return r && r.at !== null ? Number(r.at) : null;
  }

  async listExpiredLeases(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (await this.x.all('leases_expired', { now, limit: Math.max(0, limit) })).map(toDeliveryFacts);
  }

  async listExpiredPending(now: number, limit: number): Promise<DeliveryFacts[]> {
    return (await this.x.all('pending_expired', { now, limit: Math.max(0, limit) })).map(toDeliveryFacts);
  }

  async countByState(): Promise<DeliveryStateCounts> {
    const out = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
    for (const r of await this.x.all('count_by_state')) out[r.state as DeliveryState] = Number(r.n);
    return out;
  }
}
