/**
 * `store.retention`, written once for both drivers (see ../retention-store.ts), but for the
 * per-row writes that PostgreSQL does over arrays and SQLite one row per statement: erasing and
 * masking (body steps here) and re-sealing under a new key (sqlite/retention.ts, postgres/retention.ts).
 */
import type { Purpose } from '../../domain/index.js';
import type { DeliveryFacts } from '../core-store.js';
import type { DestinationToMask, ErasedContent, ErasureRecord, ErasureTemplate, RecipientErasure, RetentionStore } from '../retention-store.js';
import { toDestinationToMask, toErasureRecord } from '../retention-rows.js';
import { toDeliveryFacts } from '../rows.js';
import { type Body, type Executor, all, count } from '../sql-executor.js';

export type Masks = ReadonlyArray<{ deliveryId: string; hash: string }>;

/** Erasing content, masking destinations, erasing a recipient, and re-sealing content under a new key. */
export abstract class RetentionPart implements RetentionStore {
  constructor(protected readonly x: Executor) {}

  abstract resealContent(
    table: 'notifications' | 'campaigns',
    afterId: string,
    limit: number,
  ): Promise<{ scanned: number; resealed: number; lastId: string | null }>;

  abstract resealAudienceData(after: string, limit: number): Promise<{ scanned: number; resealed: number; lastId: string | null }>;

  /** Erases these notifications' content, inside the caller's transaction; how many changed, per tenant. */
  protected abstract eraseIds(ids: readonly string[], marker: ErasedContent): Body<Map<string, number>>;

  /** Masks these deliveries' destinations (and their notifications' addresses), inside the caller's transaction; how many changed, per tenant. */
  protected abstract mask(masks: Masks): Body<Map<string, number>>;

  async otpContentDue(now: number, limit: number): Promise<string[]> {
    return (await this.x.all('retention_otp_due', { now, limit: Math.max(0, limit) })).map((r) => String(r.id));
  }

  async contentDue(purpose: Purpose, before: number, limit: number): Promise<string[]> {
    return (await this.x.all('retention_content_due', { purpose, before, limit: Math.max(0, limit) })).map((r) => String(r.id));
  }

  eraseContent(ids: readonly string[], marker: ErasedContent, record: ErasureTemplate): Promise<number> {
    return this.x.transaction(() => this.recorded(this.eraseIds(ids, marker), record));
  }

  async destinationsDue(before: number, limit: number): Promise<DestinationToMask[]> {
    return (await this.x.all('retention_destinations_due', { before, limit: Math.max(0, limit) })).map(toDestinationToMask);
  }

  maskDestinations(masks: Masks, record: ErasureTemplate): Promise<number> {
    return this.x.transaction(() => this.recorded(this.mask(masks), record));
  }

  /** Runs `erase`, then writes one erasure record per tenant it changed; returns the total. */
  private *recorded(erase: Body<Map<string, number>>, record: ErasureTemplate): Body<number> {
    let total = 0;
    for (const [tenantId, n] of yield* erase) {
      yield* insertErasure({ ...record, id: 0, tenantId, count: n });
      total += n;
    }
    return total;
  }

  async recipientPending(tenantId: string, recipientId: string): Promise<DeliveryFacts[]> {
    return (await this.x.all('recipient_pending', { tenant_id: tenantId, recipient_id: recipientId })).map(toDeliveryFacts);
  }

  async recipientDestinations(tenantId: string, recipientId: string): Promise<DestinationToMask[]> {
    return (await this.x.all('recipient_destinations', { tenant_id: tenantId, recipient_id: recipientId })).map(toDestinationToMask);
  }

  eraseRecipient(tenantId: string, recipientId: string, masks: Masks, marker: ErasedContent, now: number): Promise<RecipientErasure> {
    return this.x.transaction(() => this.eraseRecipientBody(tenantId, recipientId, masks, marker, now));
  }

  private *eraseRecipientBody(tenantId: string, recipientId: string, masks: Masks, marker: ErasedContent, now: number): Body<RecipientErasure> {
    const who = { tenant_id: tenantId, recipient_id: recipientId };
    const rows = yield* all('recipient_notifications', who);
    const settled = rows.filter((r) => !Number(r.in_flight)).map((r) => String(r.id));
    const out: RecipientErasure = {
      notificationsErased: sum(yield* this.eraseIds(settled, marker)),
      destinationsMasked: sum(yield* this.mask(masks)),
      profileDeleted: (yield* count('recipient_profile_delete', who)) > 0,
      preferencesDeleted: yield* count('recipient_preferences_delete', who),
      pushSubscriptionsDeleted: yield* count('recipient_push_subscriptions_delete', who),
      audienceRowsCleared: yield* count('recipient_audience_clear', who),
      notificationsInFlight: rows.length - settled.length,
    };
    yield* insertErasure({
      id: 0,
      cause: 'recipient_request',
      kind: 'recipient',
      tenantId,
      recipientId,
      count: out.notificationsErased,
      details: { ...out },
      createdAt: now,
    });
    return out;
  }

  async listErasures(tenantId: string, beforeId: number | null, limit: number): Promise<ErasureRecord[]> {
    return (await this.x.all('erasures_list', { tenant_id: tenantId, before: beforeId, limit: Math.max(0, limit) })).map(toErasureRecord);
  }
}

function* insertErasure(r: ErasureRecord): Body<void> {
  yield* count('erasures_insert', {
    cause: r.cause,
    what: r.kind,
    tenant_id: r.tenantId,
    recipient_id: r.recipientId,
    count: r.count,
    details_json: r.details === null ? null : JSON.stringify(r.details),
    now: r.createdAt,
  });
}

/** How many rows a per-tenant count holds in all. */
function sum(perTenant: Map<string, number>): number {
  let n = 0;
  for (const v of perTenant.values()) n += v;
  return n;
}

/** Counts rows per tenant (their `tenant_id`). */
export function perTenant(rows: ReadonlyArray<{ tenant_id?: unknown }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(String(r.tenant_id), (out.get(String(r.tenant_id)) ?? 0) + 1);
  return out;
}
