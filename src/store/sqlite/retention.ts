/** The SQLite driver's retention part (see src/store/retention-store.ts). */
import type { Purpose } from '../../domain/index.js';
import type { DestinationToMask, ErasedContent, ErasureRecord, ErasureTemplate, RecipientErasure, RetentionStore } from '../retention-store.js';
import { splitAfter, toDestinationToMask, toErasureRecord } from '../retention-rows.js';
import type { DeliveryFacts } from '../core-store.js';
import { toDeliveryFacts, type Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';
import { bindTo } from '../content-cipher.js';
import { audienceDataBinding } from '../campaign-rows.js';

type Masks = ReadonlyArray<{ deliveryId: string; hash: string }>;

/** The rotation's statements per table (named in full, so the dialect parity test sees them used). */
const RESEAL = {
  notifications: { page: 'content_page_notifications', replace: 'content_replace_notifications' },
  campaigns: { page: 'content_page_campaigns', replace: 'content_replace_campaigns' },
} as const;

/** `store.retention` of the SQLite store. */
export class SqliteRetention implements RetentionStore {
  constructor(private readonly sql: SqliteContext) {}

  async otpContentDue(now: number, limit: number): Promise<string[]> {
    return (this.sql.stmt('retention_otp_due').all({ now, limit: Math.max(0, limit) }) as Row[]).map((r) => String(r.id));
  }

  async contentDue(purpose: Purpose, before: number, limit: number): Promise<string[]> {
    return (this.sql.stmt('retention_content_due').all({ purpose, before, limit: Math.max(0, limit) }) as Row[]).map((r) => String(r.id));
  }

  async eraseContent(ids: readonly string[], marker: ErasedContent, record: ErasureTemplate): Promise<number> {
    return this.sql.write(() => this.recordPerTenant(this.eraseIds(ids, marker), record));
  }

  async destinationsDue(before: number, limit: number): Promise<DestinationToMask[]> {
    return (this.sql.stmt('retention_destinations_due').all({ before, limit: Math.max(0, limit) }) as Row[]).map(toDestinationToMask);
  }

  async maskDestinations(masks: Masks, record: ErasureTemplate): Promise<number> {
    return this.sql.write(() => this.recordPerTenant(this.mask(masks), record));
  }

  /** One erasure record per tenant of `perTenant`; returns the total. */
  private recordPerTenant(perTenant: Map<string, number>, record: ErasureTemplate): number {
    let total = 0;
    for (const [tenantId, count] of perTenant) {
      this.record({ ...record, id: 0, tenantId, count });
      total += count;
    }
    return total;
  }

  async recipientPending(tenantId: string, recipientId: string): Promise<DeliveryFacts[]> {
    return (this.sql.stmt('recipient_pending').all({ tenant_id: tenantId, recipient_id: recipientId }) as Row[]).map(toDeliveryFacts);
  }

  async recipientDestinations(tenantId: string, recipientId: string): Promise<DestinationToMask[]> {
    return (this.sql.stmt('recipient_destinations').all({ tenant_id: tenantId, recipient_id: recipientId }) as Row[]).map(toDestinationToMask);
  }

  async eraseRecipient(tenantId: string, recipientId: string, masks: Masks, marker: ErasedContent, now: number): Promise<RecipientErasure> {
    const who = { tenant_id: tenantId, recipient_id: recipientId };
    return this.sql.write(() => {
      const rows = this.sql.stmt('recipient_notifications').all(who) as Row[];
      const settled = rows.filter((r) => !Number(r.in_flight)).map((r) => String(r.id));
      const out: RecipientErasure = {
        notificationsErased: sum(this.eraseIds(settled, marker)),
        destinationsMasked: sum(this.mask(masks)),
        profileDeleted: this.sql.stmt('recipient_profile_delete').run(who).changes > 0,
        preferencesDeleted: this.sql.stmt('recipient_preferences_delete').run(who).changes,
        pushSubscriptionsDeleted: this.sql.stmt('recipient_push_subscriptions_delete').run(who).changes,
        audienceRowsCleared: this.sql.stmt('recipient_audience_clear').run(who).changes,
        notificationsInFlight: rows.length - settled.length,
      };
      this.record({
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
    });
  }

  async listErasures(tenantId: string, beforeId: number | null, limit: number): Promise<ErasureRecord[]> {
    return (this.sql.stmt('erasures_list').all({ tenant_id: tenantId, before: beforeId, limit: Math.max(0, limit) }) as Row[]).map(toErasureRecord);
  }

  async resealContent(
    table: 'notifications' | 'campaigns',
    afterId: string,
    limit: number,
  ): Promise<{ scanned: number; resealed: number; lastId: string | null }> {
    const cipher = this.sql.cipher;
    const rows = this.sql.stmt(RESEAL[table].page).all({ after: afterId, limit: Math.max(0, limit) }) as Row[];
    let resealed = 0;
    if (cipher) {
      this.sql.write(() => {
        for (const r of rows) {
          const stored = String(r.content_json);
          if (!cipher.needsReseal(stored)) continue;
          const at = bindTo(table, 'content_json', String(r.id));
          const fresh = cipher.seal(cipher.open(stored, at), at);
          resealed += this.sql.stmt(RESEAL[table].replace).run({ id: r.id, expected: stored, stored: fresh }).changes;
        }
      });
    }
    return { scanned: rows.length, resealed, lastId: rows.length < limit ? null : String(rows[rows.length - 1]!.id) };
  }

  /** Erases these notifications' content; how many changed, per tenant. */
  async resealAudienceData(after: string, limit: number): Promise<{ scanned: number; resealed: number; lastId: string | null }> {
    const cipher = this.sql.cipher;
    const [a, p] = splitAfter(after);
    const rows = this.sql.stmt('data_page_audience_recipients').all({ after_audience: a, after_position: p, limit: Math.max(0, limit) }) as Row[];
    let resealed = 0;
    if (cipher) {
      this.sql.write(() => {
        for (const r of rows) {
          const stored = String(r.data_json);
          if (!cipher.needsReseal(stored)) continue;
          const at = audienceDataBinding(String(r.audience_id), Number(r.position));
          const fresh = cipher.seal(cipher.open(stored, at), at);
          resealed += this.sql
            .stmt('data_replace_audience_recipients')
            .run({ audience_id: r.audience_id, position: r.position, expected: stored, stored: fresh }).changes;
        }
      });
    }
    const last = rows[rows.length - 1];
    return { scanned: rows.length, resealed, lastId: rows.length < limit || !last ? null : `${String(last.audience_id)}/${Number(last.position)}` };
  }

  private eraseIds(ids: readonly string[], marker: ErasedContent): Map<string, number> {
    const text = JSON.stringify(marker);
    const perTenant = new Map<string, number>();
    for (const id of ids) {
      const r = this.sql.stmt('notification_content_erase').get({ id, marker: text, now: marker.erased.at }) as Row | undefined;
      if (r) perTenant.set(String(r.tenant_id), (perTenant.get(String(r.tenant_id)) ?? 0) + 1);
    }
    return perTenant;
  }

  /** Masks these deliveries' destinations (and their notifications' addresses); how many changed, per tenant. */
  private mask(masks: Masks): Map<string, number> {
    const notifications = new Set<string>();
    const perTenant = new Map<string, number>();
    for (const m of masks) {
      const r = this.sql.stmt('delivery_destination_mask').get({ id: m.deliveryId, hash: m.hash }) as Row | undefined;
      if (!r) continue;
      perTenant.set(String(r.tenant_id), (perTenant.get(String(r.tenant_id)) ?? 0) + 1);
      notifications.add(String(r.notification_id));
    }
    for (const id of notifications) this.sql.stmt('notification_recipient_mask').run({ id });
    return perTenant;
  }

  private record(r: ErasureRecord): void {
    this.sql.stmt('erasures_insert').run({
      cause: r.cause,
      what: r.kind,
      tenant_id: r.tenantId,
      recipient_id: r.recipientId,
      count: r.count,
      details_json: r.details === null ? null : JSON.stringify(r.details),
      now: r.createdAt,
    });
  }
}

function sum(perTenant: Map<string, number>): number {
  let n = 0;
  for (const v of perTenant.values()) n += v;
  return n;
}
