/**
 * The SQLite driver's own part of `store.retention` (the rest: parts/retention.ts): erasing,
 * masking and replacing re-sealed content one row per statement, inside the part's transaction.
 * Dialect-specific: PostgreSQL does each in one statement over arrays.
 */
import { type Masks, perTenant, RESEAL, type ResealedAudienceData, type ResealedContent, RetentionPart } from '../parts/retention.js';
import type { ErasedContent } from '../retention-store.js';
import type { Row } from '../rows.js';
import { type Body, count, one } from '../sql-executor.js';
import type { SqliteContext } from './sql-context.js';

/** `store.retention` of the SQLite store. */
export class SqliteRetention extends RetentionPart {
  constructor(sql: SqliteContext) {
    super(sql);
  }

  protected *replaceContent(table: 'notifications' | 'campaigns', rows: ResealedContent): Body<number> {
    let n = 0;
    for (const r of rows) n += yield* count(RESEAL[table].replace, { id: r.id, expected: r.expected, stored: r.stored });
    return n;
  }

  protected *replaceAudienceData(rows: ResealedAudienceData): Body<number> {
    let n = 0;
    for (const r of rows)
      n += yield* count('data_replace_audience_recipients', { audience_id: r.audienceId, position: r.position, expected: r.expected, stored: r.stored });
    return n;
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
