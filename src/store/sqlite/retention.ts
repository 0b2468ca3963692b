/**
 * The SQLite driver's own part of `store.retention` (the rest: parts/retention.ts): erasing,
 * masking and re-sealing one row per statement, inside one synchronous transaction.
 * Dialect-specific: PostgreSQL does each in one statement over arrays.
 */
import { audienceDataBinding } from '../campaign-rows.js';
import { bindTo } from '../content-cipher.js';
import { type Masks, perTenant, RetentionPart } from '../parts/retention.js';
import type { ErasedContent } from '../retention-store.js';
import { splitAfter } from '../retention-rows.js';
import type { Row } from '../rows.js';
import { type Body, count, one } from '../sql-executor.js';
import type { SqliteContext } from './sql-context.js';

/** The rotation's statements per table (named in full, so the dialect parity test sees them used). */
const RESEAL = {
  notifications: { page: 'content_page_notifications', replace: 'content_replace_notifications' },
  campaigns: { page: 'content_page_campaigns', replace: 'content_replace_campaigns' },
} as const;

/** `store.retention` of the SQLite store. */
export class SqliteRetention extends RetentionPart {
  constructor(private readonly sql: SqliteContext) {
    super(sql);
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

  protected *eraseIds(ids: readonly string[], marker: ErasedContent): Body<Map<string, number>> {
    const text = JSON.stringify(marker);
    const erased: Row[] = [];
    for (const id of ids) {
      const r = yield* one('notification_content_erase', { id, marker: text, now: marker.erased.at });
      if (r) erased.push(r);
    }
    return perTenant(erased);
  }

  protected *mask(masks: Masks): Body<Map<string, number>> {
    const masked: Row[] = [];
    for (const m of masks) {
      const r = yield* one('delivery_destination_mask', { id: m.deliveryId, hash: m.hash });
      if (r) masked.push(r);
    }
    for (const id of new Set(masked.map((r) => String(r.notification_id)))) yield* count('notification_recipient_mask', { id });
    return perTenant(masked);
  }
}
