/** `store.review`, written once for both drivers (see ../review-store.ts): the review queue, replays and resend sources. */
import type { DeliveryView, Page } from '../core-store.js';
import type { NotificationSource, ReplayFilter, ReplayRecord, ReplayRequest, ReviewItem, ReviewQuery, ReviewStore } from '../review-store.js';
import { toDeliveryView, toNotificationSource, toReplayRecord } from '../rows.js';
import { type Body, type Executor, count } from '../sql-executor.js';
import type { GuardedTransition } from '../transition-fields.js';

/** The review queue, replays and the sources a resend is built from. */
export class ReviewPart implements ReviewStore {
  constructor(
    private readonly x: Executor,
    private readonly transition: GuardedTransition,
  ) {}

  async listReview(tenantId: string, query: ReviewQuery, cursor: string | null, limit: number): Promise<Page<ReviewItem>> {
    const size = Math.max(1, limit);
    const rows = await this.x.all('review_list', {
      tenant_id: tenantId,
      unknown_before: query.now - query.unknownAfterMs,
      reason: query.reason ?? null,
      before: cursor,
      limit: size + 1,
    });
    const items = rows.slice(0, size).map((r) => ({ ...toDeliveryView(r), reviewReason: r.review_reason as ReviewItem['reviewReason'] }));
    return { items, nextCursor: rows.length > items.length ? items[items.length - 1]!.id : null };
  }

  /** The guarded transition (applyTransitions' own statements) and the audit row, in one transaction. */
  async replayDelivery(r: ReplayRequest): Promise<boolean> {
    const account = await this.x.transaction(() => this.replayBody(r));
    if (account === null) return false;
    // Workers in other processes: the delivery is ready now.
    this.x.wake([account]);
    return true;
  }

  private *replayBody(r: ReplayRequest): Body<string | null> {
    const w = r.write;
    const account = yield* this.transition(w);
    if (account === null) return null;
    yield* count('replay_insert', {
      delivery_id: w.deliveryId,
      requested_by: r.audit.requestedBy,
      from_state: w.expect.state,
      from_reason: r.audit.fromReason,
      accept_duplicate_risk: r.audit.acceptDuplicateRisk,
      note: r.audit.note,
      now: w.now,
    });
    return account;
  }

  async listReplays(tenantId: string, deliveryId: string): Promise<ReplayRecord[]> {
    return (await this.x.all('replays_by_delivery', { tenant_id: tenantId, delivery_id: deliveryId })).map(toReplayRecord);
  }

  async listReplayCandidates(tenantId: string, filter: ReplayFilter, afterId: string | null, limit: number): Promise<DeliveryView[]> {
    const rows = await this.x.all('replay_candidates', {
      tenant_id: tenantId,
      state: filter.state ?? null,
      channel: filter.channel ?? null,
      provider_account: filter.providerAccount ?? null,
      created_from: filter.createdFrom ?? null,
      created_to: filter.createdTo ?? null,
      after: afterId,
      limit: Math.max(1, limit),
    });
    return rows.map(toDeliveryView);
  }

  async getNotificationSource(tenantId: string, id: string): Promise<NotificationSource | null> {
    const r = await this.x.one('notification_source', { tenant_id: tenantId, id });
    return r ? toNotificationSource(this.x.openRow(r, 'notifications')) : null;
  }
}
