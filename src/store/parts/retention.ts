/**
 * `store.retention`, written once for both drivers (see ../retention-store.ts), but for the
 * per-row writes that PostgreSQL does over arrays and SQLite one row per statement: erasing,
 * masking and replacing re-sealed content (body steps declared here, written in
 * sqlite/retention.ts and postgres/retention.ts).
 */
import type { Purpose } from '../../domain/index.js';
import { audienceDataBinding } from '../campaign-rows.js';
import { bindTo } from '../content-cipher.js';
import type { DeliveryFacts } from '../core-store.js';
import type { DestinationToMask, ErasedContent, ErasureRecord, ErasureTemplate, RecipientErasure, RetentionStore } from '../retention-store.js';
import { splitAfter, toDestinationToMask, toErasureRecord } from '../retention-rows.js';
import { toDeliveryFacts } from '../rows.js';
import { type Body, type Executor, all, count } from '../sql-executor.js';

export type Masks = ReadonlyArray<{ deliveryId: string; hash: string }>;

/** A sealed column's new text, replacing `expected` (compare-and-set: a row changed meanwhile is left alone). */
export interface Resealed {
  readonly expected: string;
  readonly stored: string;
}

/** Content re-sealed for a notification or campaign row. */
export type ResealedContent = ReadonlyArray<Resealed & { readonly id: string }>;

/** Audience data re-sealed for an audience row. */
export type ResealedAudienceData = ReadonlyArray<Resealed & { readonly audienceId: string; readonly position: number }>;

/** The rotation's statements per table (named in full, so the dialect parity test sees them used). */
export const RESEAL = {
  notifications: { page: 'content_page_notifications', replace: 'content_replace_notifications' },
  campaigns: { page: 'content_page_campaigns', replace: 'content_replace_campaigns' },
} as const;

/** What one page of a re-sealing pass did. */
interface ResealPage {
  scanned: number;
  resealed: number;
  lastId: string | null;
}

/** Erasing content, masking destinations, erasing a recipient, and re-sealing content under a new key. */
export abstract class RetentionPart implements RetentionStore {
  constructor(protected readonly x: Executor) {}

  /** Replaces re-sealed content of `table`'s rows, inside the caller's transaction; how many rows changed. */
  protected abstract replaceContent(table: 'notifications' | 'campaigns', rows: ResealedContent): Body<number>;

  /** Replaces re-sealed audience data, inside the caller's transaction; how many rows changed. */
  protected abstract replaceAudienceData(rows: ResealedAudienceData): Body<number>;

  /** Erases these notifications' content, inside the caller's transaction; how many changed, per tenant. */
  protected abstract eraseIds(ids: readonly string[], marker: ErasedContent): Body<Map<string, number>>;

  /** Masks these deliveries' destinations (and their notifications' addresses), inside the caller's transaction; how many changed, per tenant. */
  protected abstract mask(masks: Masks): Body<Map<string, number>>;

  async resealContent(table: 'notifications' | 'campaigns', afterId: string, limit: number): Promise<ResealPage> {
    const cipher = this.x.cipher;
    const rows = await this.x.all(RESEAL[table].page, { after: afterId, limit: Math.max(0, limit) });
    let resealed = 0;
    if (cipher) {
      const todo = rows
        .map((r) => ({ id: String(r.id), expected: String(r.content_json) }))
        .filter((r) => cipher.needsReseal(r.expected))
        .map((r) => {
          const at = bindTo(table, 'content_json', r.id);
          return { ...r, stored: cipher.seal(cipher.open(r.expected, at), at) };
        });
      if (todo.length > 0) resealed = await this.x.transaction(() => this.replaceContent(table, todo));
    }
    return { scanned: rows.length, resealed, lastId: rows.length < limit ? null : String(rows[rows.length - 1]!.id) };
  }

  async resealAudienceData(after: string, limit: number): Promise<ResealPage> {
    const cipher = this.x.cipher;
    const [a, p] = splitAfter(after);
    const rows = await this.x.all('data_page_audience_recipients', { after_audience: a, after_position: p, limit: Math.max(0, limit) });
    let resealed = 0;
    if (cipher) {
      const todo = rows
        .map((r) => ({ audienceId: String(r.audience_id), position: Number(r.position), expected: String(r.data_json) }))
        .filter((r) => cipher.needsReseal(r.expected))
        .map((r) => {
          const at = audienceDataBinding(r.audienceId, r.position);
          return { ...r, stored: cipher.seal(cipher.open(r.expected, at), at) };
        });
      if (todo.length > 0) resealed = await this.x.transaction(() => this.replaceAudienceData(todo));
    }
    const last = rows[rows.length - 1];
    return { scanned: rows.length, resealed, lastId: rows.length < limit || !last ? null : `${String(last.audience_id)}/${Number(last.position)}` };
  }

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
