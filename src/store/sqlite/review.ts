/** The SQLite driver's review part (see src/store/review-store.ts): the review queue, replays and resend sources. */
import type { DeliveryView, Page } from '../core-store.js';
import type { NotificationSource, ReplayFilter, ReplayRecord, ReplayRequest, ReviewItem, ReviewQuery, ReviewStore } from '../review-store.js';
import { toDeliveryView, toNotificationSource, toReplayRecord, type Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';
import { applyTransition } from './transitions.js';

/** `store.review` of the SQLite store. */
export class SqliteReview implements ReviewStore {
  constructor(private readonly sql: SqliteContext) {}

  async listReview(tenantId: string, query: ReviewQuery, cursor: string | null, limit: number): Promise<Page<ReviewItem>> {
    const size = Math.max(1, limit);
    const rows = this.sql.stmt('review_list').all({
      tenant_id: tenantId,
      unknown_before: query.now - query.unknownAfterMs,
      reason: query.reason ?? null,
      before: cursor,
      limit: size + 1,
    }) as Row[];
    const items = rows.slice(0, size).map((r) => ({ ...toDeliveryView(r), reviewReason: r.review_reason as ReviewItem['reviewReason'] }));
    return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
  }

  /** The guarded transition (the same statements as applyTransitions) and the audit row, in one transaction. */
  async replayDelivery(r: ReplayRequest): Promise<boolean> {
    const w = r.write;
    return this.sql.write((): boolean => {
      if (!applyTransition(this.sql, w)) return false;
      this.sql.stmt('replay_insert').run({
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
  }

  async listReplays(tenantId: string, deliveryId: string): Promise<ReplayRecord[]> {
    return (this.sql.stmt('replays_by_delivery').all({ tenant_id: tenantId, delivery_id: deliveryId }) as Row[]).map(toReplayRecord);
  }

  async listReplayCandidates(tenantId: string, filter: ReplayFilter, afterId: string | null, limit: number): Promise<DeliveryView[]> {
    return (
      this.sql.stmt('replay_candidates').all({
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
    const r = this.sql.stmt('notification_source').get({ tenant_id: tenantId, id }) as Row | undefined;
    return r ? toNotificationSource(this.sql.openRow(r, 'notifications')) : null;
  }
}
