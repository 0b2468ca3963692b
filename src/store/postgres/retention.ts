/**
 * The PostgreSQL driver's own part of `store.retention` (the rest: parts/retention.ts): erasing,
 * masking and re-sealing in one statement over arrays. Dialect-specific: SQLite does each one row
 * per statement inside one synchronous transaction.
 */
import { audienceDataBinding } from '../campaign-rows.js';
import { bindTo } from '../content-cipher.js';
import { type Masks, perTenant, RetentionPart } from '../parts/retention.js';
import type { ErasedContent } from '../retention-store.js';
import { splitAfter } from '../retention-rows.js';
import { all, type Body, count } from '../sql-executor.js';
import type { PostgresContext } from './sql-context.js';

/** The rotation's statements per table (named in full, so the dialect parity test sees them used). */
const RESEAL = {
  notifications: { page: 'content_page_notifications', replace: 'content_replace_notifications' },
  campaigns: { page: 'content_page_campaigns', replace: 'content_replace_campaigns' },
} as const;

/** `store.retention` of the PostgreSQL store. */
export class PostgresRetention extends RetentionPart {
  constructor(private readonly sql: PostgresContext) {
    super(sql);
  }

  async resealContent(
    table: 'notifications' | 'campaigns',
    afterId: string,
    limit: number,
  ): Promise<{ scanned: number; resealed: number; lastId: string | null }> {
    const cipher = this.sql.cipher;
    const rows = await this.sql.all(RESEAL[table].page, { after: afterId, limit: Math.max(0, limit) });
    let resealed = 0;
    if (cipher) {
      const todo = rows.map((r) => ({ id: String(r.id), stored: String(r.content_json) })).filter((r) => cipher.needsReseal(r.stored));
      if (todo.length > 0)
        resealed = await this.sql.count(RESEAL[table].replace, {
          ids: todo.map((r) => r.id),
          expected: todo.map((r) => r.stored),
          stored: todo.map((r) => {
            const at = bindTo(table, 'content_json', r.id);
            return cipher.seal(cipher.open(r.stored, at), at);
          }),
        });
    }
    return { scanned: rows.length, resealed, lastId: rows.length < limit ? null : String(rows[rows.length - 1]!.id) };
  }

  async resealAudienceData(after: string, limit: number): Promise<{ scanned: number; resealed: number; lastId: string | null }> {
    const cipher = this.sql.cipher;
    const [a, p] = splitAfter(after);
    const rows = await this.sql.all('data_page_audience_recipients', { after_audience: a, after_position: p, limit: Math.max(0, limit) });
    let resealed = 0;
    if (cipher) {
      const todo = rows
        .map((r) => ({ audienceId: String(r.audience_id), position: Number(r.position), stored: String(r.data_json) }))
        .filter((r) => cipher.needsReseal(r.stored));
      if (todo.length > 0)
        resealed = await this.sql.count('data_replace_audience_recipients', {
          audience_ids: todo.map((r) => r.audienceId),
          positions: todo.map((r) => r.position),
          expected: todo.map((r) => r.stored),
          stored: todo.map((r) => {
            const at = audienceDataBinding(r.audienceId, r.position);
            return cipher.seal(cipher.open(r.stored, at), at);
          }),
        });
    }
    const last = rows[rows.length - 1];
    return { scanned: rows.length, resealed, lastId: rows.length < limit || !last ? null : `${String(last.audience_id)}/${Number(last.position)}` };
  }

  protected *eraseIds(ids: readonly string[], marker: ErasedContent): Body<Map<string, number>> {
    if (ids.length === 0) return new Map();
    return perTenant(yield* all('notification_content_erase', { ids: [...ids], marker: JSON.stringify(marker), now: marker.erased.at }));
  }

  protected *mask(masks: Masks): Body<Map<string, number>> {
    if (masks.length === 0) return new Map();
    const rows = yield* all('delivery_destination_mask', { ids: masks.map((m) => m.deliveryId), hashes: masks.map((m) => m.hash) });
    const notifications = [...new Set(rows.map((r) => String(r.notification_id)))];
    if (notifications.length > 0) yield* count('notification_recipient_mask', { ids: notifications });
    return perTenant(rows);
  }
}
