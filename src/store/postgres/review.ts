/** The PostgreSQL driver's review part (see src/store/review-store.ts): the review queue, replays and resend sources. */
import type { DeliveryView, Page } from '../core-store.js';
import type { NotificationSource, ReplayFilter, ReplayRecord, ReplayRequest, ReviewItem, ReviewQuery, ReviewStore } from '../review-store.js';
import { toDeliveryView, toNotificationSource, toReplayRecord } from '../rows.js';
import type { PostgresContext } from './sql-context.js';
import { applyRun } from './transitions.js';

/** `store.review` of the PostgreSQL store. */
export class PostgresReview implements ReviewStore {
  constructor(private readonly sql: PostgresContext) {}

  async listReview(tenantId: string, query: ReviewQuery, cursor: string | null, limit: number): Promise<Page<ReviewItem>> {
    const size = Math.max(1, limit);
    const rows = await this.sql.q('review_list', [tenantId, query.now - query.unknownAfterMs, query.reason ?? null, cursor, size + 1]);
    const items = rows.slice(0, size).map((r) => ({ ...toDeliveryView(r), reviewReason: r.review_reason as ReviewItem['reviewReason'] }));
    return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
  }

  /** The guarded transition (applyTransitions' own statement) and the audit row, in one transaction. */
  async replayDelivery(r: ReplayRequest): Promise<boolean> {
    const w = r.write;
    const account = await this.sql.tx(async (c) => {
      if (!(await applyRun(this.sql, [w], c)).has(w.deliveryId)) return null;
      const [row] = await this.sql.q(
        'replay_insert',
        [w.deliveryId, r.audit.requestedBy, w.expect.state, r.audit.fromReason, r.audit.acceptDuplicateRisk, r.audit.note, w.now],
        c,
      );
      return String(row?.provider_account);
    });
    if (account === null) return false;
    // Workers in other processes: the delivery is ready now.
    this.sql.wakeListeners([account]);
    return true;
  }

  async listReplays(tenantId: string, deliveryId: string): Promise<ReplayRecord[]> {
    return (await this.sql.q('replays_by_delivery', [tenantId, deliveryId])).map(toReplayRecord);
  }

  async listReplayCandidates(tenantId: string, filter: ReplayFilter, afterId: string | null, limit: number): Promise<DeliveryView[]> {
    const rows = await this.sql.q('replay_candidates', [
      tenantId,
      filter.state ?? null,
      filter.channel ?? null,
      filter.providerAccount ?? null,
      filter.createdFrom ?? null,
      filter.createdTo ?? null,
      afterId,
      Math.max(1, limit),
    ]);
    return rows.map(toDeliveryView);
  }

  async getNotificationSource(tenantId: string, id: string): Promise<NotificationSource | null> {
    const [r] = await this.sql.q('notification_source', [tenantId, id]);
    return r ? toNotificationSource(this.sql.openRow(r, 'notifications')) : null;
  }
}
