/** The PostgreSQL driver's push-subscription part (see src/store/push-store.ts). */
import type { ActivePushTarget, PushStore, PushSubscriptionInput, PushSubscriptionView, PushTargetRefusal } from '../push-store.js';
import { pushTargetHash, toPushSubscriptionView } from '../push-rows.js';
import type { PostgresContext } from './sql-context.js';

/** `store.push` of the PostgreSQL store. */
export class PostgresPush implements PushStore {
  constructor(private readonly sql: PostgresContext) {}

  async putPushSubscription(s: PushSubscriptionInput): Promise<PushSubscriptionView> {
    const [r] = await this.sql.q('push_subscriptions_upsert', [s.tenantId, s.recipientId, s.id, s.type, s.target, pushTargetHash(s.target), s.now]);
    return toPushSubscriptionView(r!);
  }

  async removePushSubscription(r: { tenantId: string; recipientId: string; id: string; now: number }): Promise<boolean> {
    const [existing] = await this.sql.q('push_subscriptions_get', [r.tenantId, r.recipientId, r.id]);
    if (!existing) return false;
    await this.sql.q('push_subscriptions_remove', [r.tenantId, r.recipientId, r.id, r.now]);
    return true;
  }

  async listPushSubscriptions(tenantId: string, recipientId: string): Promise<PushSubscriptionView[]> {
    return (await this.sql.q('push_subscriptions_list', [tenantId, recipientId])).map(toPushSubscriptionView);
  }

  async activePushTargets(tenantId: string, recipientId: string): Promise<ActivePushTarget[]> {
    return (await this.sql.q('push_subscriptions_active', [tenantId, recipientId])).map((r) => ({
      id: String(r.id),
      type: r.type as ActivePushTarget['type'],
      target: String(r.target),
    }));
  }

  async deactivatePushTarget(r: PushTargetRefusal): Promise<number> {
    return this.sql.count('push_subscriptions_deactivate', [r.tenantId, pushTargetHash(r.target), r.reason, r.code, r.now]);
  }

  async inactivePushTargets(tenantId: string, targets: readonly string[]): Promise<Set<string>> {
    if (targets.length === 0) return new Set();
    const byHash = new Map(targets.map((t) => [pushTargetHash(t), t] as const));
    const rows = await this.sql.q('push_subscriptions_inactive', [tenantId, [...byHash.keys()]]);
    return new Set(rows.map((r) => byHash.get(String(r.target_hash))!));
  }
}
