/**
 * The PostgreSQL driver's own part of `store.retention` (the rest: parts/retention.ts): erasing,
 * masking and replacing re-sealed content in one statement over arrays. Dialect-specific: SQLite does each one row
 * per statement inside one synchronous transaction.
 */
import { type Masks, perTenant, RESEAL, type ResealedAudienceData, type ResealedContent, RetentionPart } from '../parts/retention.js';
import type { ErasedContent } from '../retention-store.js';
import { all, type Body, count } from '../sql-executor.js';
import type { PostgresContext } from './sql-context.js';

/** `store.retention` of the PostgreSQL store. */
export class PostgresRetention extends RetentionPart {
  constructor(sql: PostgresContext) {
    super(sql);
  }

  protected *replaceContent(table: 'notifications' | 'campaigns', rows: ResealedContent): Body<number> {
    return yield* count(RESEAL[table].replace, { ids: rows.map((r) => r.id), expected: rows.map((r) => r.expected), stored: rows.map((r) => r.stored) });
  }

  protected *replaceAudienceData(rows: ResealedAudienceData): Body<number> {
    return yield* count('data_replace_audience_recipients', {
      audience_ids: rows.map((r) => r.audienceId),
      positions: rows.map((r) => r.position),
      expected: rows.map((r) => r.expected),
      stored: rows.map((r) => r.stored),
    });
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
