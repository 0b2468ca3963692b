/** The PostgreSQL driver's retention part (see src/store/retention-store.ts). */
import type { Purpose } from '../../domain/index.js';
import type { DestinationToMask, ErasedContent, ErasureRecord, ErasureTemplate, RecipientErasure, RetentionStore } from '../retention-store.js';
import { splitAfter, toDestinationToMask, toErasureRecord } from '../retention-rows.js';
import type { DeliveryFacts } from '../core-store.js';
import { toDeliveryFacts } from '../rows.js';
import type { Client, PostgresContext } from './sql-context.js';
import { bindTo } from '../content-cipher.js';
import { audienceDataBinding } from '../campaign-rows.js';

type Masks = ReadonlyArray<{ deliveryId: string; hash: string }>;

/** The rotation's statements per table (named in full, so the dialect parity test sees them used). */
const RESEAL = {
  notifications: { page: 'content_page_notifications', replace: 'content_replace_notifications' },
  campaigns: { page: 'content_page_campaigns', replace: 'content_replace_campaigns' },
} as const;

/** `store.retention` of the PostgreSQL store. */
export class PostgresRetention implements RetentionStore {
  constructor(private readonly sql: PostgresContext) {}

  async otpContentDue(now: number, limit: number): Promise<string[]> {
    return (await this.sql.q('retention_otp_due', [now, Math.max(0, limit)])).map((r) => String(r.id));
  }

  async contentDue(purpose: Purpose, before: number, limit: number): Promise<string[]> {
    return (await this.sql.q('retention_content_due', [purpose, before, Math.max(0, limit)])).map((r) => String(r.id));
  }

  async eraseContent(ids: readonly string[], marker: ErasedContent, record: ErasureTemplate): Promise<number> {
    return this.sql.tx(async (c) => this.recordPerTenant(await this.eraseIds(ids, marker, c), record, c));
  }

  async destinationsDue(before: number, limit: number): Promise<DestinationToMask[]> {
    return (await this.sql.q('retention_destinations_due', [before, Math.max(0, limit)])).map(toDestinationToMask);
  }

  async maskDestinations(masks: Masks, record: ErasureTemplate): Promise<number> {
    return this.sql.tx(async (c) => this.recordPerTenant(await this.mask(masks, c), record, c));
  }

  /** One erasure record per tenant of `perTenant`; returns the total. */
  private async recordPerTenant(perTenant: Map<string, number>, record: ErasureTemplate, c: Client): Promise<number> {
    let total = 0;
    for (const [tenantId, count] of perTenant) {
      await this.record({ ...record, id: 0, tenantId, count }, c);
      total += count;
    }
    return total;
  }

  async recipientPending(tenantId: string, recipientId: string): Promise<DeliveryFacts[]> {
    return (await this.sql.q('recipient_pending', [tenantId, recipientId])).map(toDeliveryFacts);
  }

  async recipientDestinations(tenantId: string, recipientId: string): Promise<DestinationToMask[]> {
    return (await this.sql.q('recipient_destinations', [tenantId, recipientId])).map(toDestinationToMask);
  }

  async eraseRecipient(tenantId: string, recipientId: string, masks: Masks, marker: ErasedContent, now: number): Promise<RecipientErasure> {
    const who = [tenantId, recipientId];
    return this.sql.tx(async (c) => {
      const rows = await this.sql.q('recipient_notifications', who, c);
      const settled = rows.filter((r) => r.in_flight !== true).map((r) => String(r.id));
      const out: RecipientErasure = {
        notificationsErased: sum(await this.eraseIds(settled, marker, c)),
        destinationsMasked: sum(await this.mask(masks, c)),
        profileDeleted: (await this.sql.count('recipient_profile_delete', who, c)) > 0,
        preferencesDeleted: await this.sql.count('recipient_preferences_delete', who, c),
        pushSubscriptionsDeleted: await this.sql.count('recipient_push_subscriptions_delete', who, c),
        audienceRowsCleared: await this.sql.count('recipient_audience_clear', who, c),
        notificationsInFlight: rows.length - settled.length,
      };
      await this.record(
        { id: 0, cause: 'recipient_request', kind: 'recipient', tenantId, recipientId, count: out.notificationsErased, details: { ...out }, createdAt: now },
        c,
      );
      return out;
    });
  }

  async listErasures(tenantId: string, beforeId: number | null, limit: number): Promise<ErasureRecord[]> {
    return (await this.sql.q('erasures_list', [tenantId, beforeId, Math.max(0, limit)])).map(toErasureRecord);
  }

  async resealContent(
    table: 'notifications' | 'campaigns',
    afterId: string,
    limit: number,
  ): Promise<{ scanned: number; resealed: number; lastId: string | null }> {
    const cipher = this.sql.cipher;
    const rows = await this.sql.q(RESEAL[table].page, [afterId, Math.max(0, limit)]);
    let resealed = 0;
    if (cipher) {
      const todo = rows.map((r) => ({ id: String(r.id), stored: String(r.content_json) })).filter((r) => cipher.needsReseal(r.stored));
      if (todo.length > 0)
        resealed = await this.sql.count(RESEAL[table].replace, [
          todo.map((r) => r.id),
          todo.map((r) => r.stored),
          todo.map((r) => {
            const at = bindTo(table, 'content_json', r.id);
            return cipher.seal(cipher.open(r.stored, at), at);
          }),
        ]);
    }
    return { scanned: rows.length, resealed, lastId: rows.length < limit ? null : String(rows[rows.length - 1]!.id) };
  }

  async resealAudienceData(after: string, limit: number): Promise<{ scanned: number; resealed: number; lastId: string | null }> {
    const cipher = this.sql.cipher;
    const [a, p] = splitAfter(after);
    const rows = await this.sql.q('data_page_audience_recipients', [a, p, Math.max(0, limit)]);
    let resealed = 0;
    if (cipher) {
      const todo = rows
        .map((r) => ({ audienceId: String(r.audience_id), position: Number(r.position), stored: String(r.data_json) }))
        .filter((r) => cipher.needsReseal(r.stored));
      if (todo.length > 0)
        resealed = await this.sql.count('data_replace_audience_recipients', [
          todo.map((r) => r.audienceId),
          todo.map((r) => r.position),
          todo.map((r) => r.stored),
          todo.map((r) => {
            const at = audienceDataBinding(r.audienceId, r.position);
            return cipher.seal(cipher.open(r.stored, at), at);
          }),
        ]);
    }
    const last = rows[rows.length - 1];
    return { scanned: rows.length, resealed, lastId: rows.length < limit || !last ? null : `${String(last.audience_id)}/${Number(last.position)}` };
  }

  /** Erases these notifications' content; how many changed, per tenant. */
  private async eraseIds(ids: readonly string[], marker: ErasedContent, c: Client): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    return perTenant(await this.sql.q('notification_content_erase', [[...ids], JSON.stringify(marker), marker.erased.at], c));
  }

  /** Masks these deliveries' destinations (and their notifications' addresses); how many changed, per tenant. */
  private async mask(masks: Masks, c: Client): Promise<Map<string, number>> {
    if (masks.length === 0) return new Map();
    const rows = await this.sql.q('delivery_destination_mask', [masks.map((m) => m.deliveryId), masks.map((m) => m.hash)], c);
    const notifications = [...new Set(rows.map((r) => String(r.notification_id)))];
    if (notifications.length > 0) await this.sql.q('notification_recipient_mask', [notifications], c);
    return perTenant(rows);
  }

  private async record(r: ErasureRecord, c: Client): Promise<void> {
    await this.sql.q(
      'erasures_insert',
      [r.cause, r.kind, r.tenantId, r.recipientId, r.count, r.details === null ? null : JSON.stringify(r.details), r.createdAt],
      c,
    );
  }
}

function perTenant(rows: ReadonlyArray<{ tenant_id?: unknown }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(String(r.tenant_id), (out.get(String(r.tenant_id)) ?? 0) + 1);
  return out;
}

function sum(counts: Map<string, number>): number {
  let n = 0;
  for (const v of counts.values()) n += v;
  return n;
}
