/** The SQLite driver's push-subscription part (see src/store/push-store.ts). */
import type { ActivePushTarget, PushStore, PushSubscriptionInput, PushSubscriptionView, PushTargetRefusal } from '../push-store.js';
import { pushTargetHash, toPushSubscriptionView } from '../push-rows.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.push` of the SQLite store. */
export class SqlitePush implements PushStore {
  constructor(private readonly sql: SqliteContext) {}

  async putPushSubscription(s: PushSubscriptionInput): Promise<PushSubscriptionView> {
    const key = { tenant_id: s.tenantId, recipient_id: s.recipientId, id: s.id };
    return this.sql.write(() => {
      this.sql.stmt('push_subscriptions_upsert').run({ ...key, type: s.type, target: s.target, target_hash: pushTargetHash(s.target), now: s.now });
      return toPushSubscriptionView(this.sql.stmt('push_subscriptions_get').get(key) as Row);
    });
  }

  async removePushSubscription(r: { tenantId: string; recipientId: string; id: string; now: number }): Promise<boolean> {
    const key = { tenant_id: r.tenantId, recipient_id: r.recipientId, id: r.id };
    return this.sql.write(() => {
      if (this.sql.stmt('push_subscriptions_get').get(key) === undefined) return false;
      this.sql.stmt('push_subscriptions_remove').run({ ...key, now: r.now });
      return true;
    });
  }

  async listPushSubscriptions(tenantId: string, recipientId: string): Promise<PushSubscriptionView[]> {
    return (this.sql.stmt('push_subscriptions_list').all({ tenant_id: tenantId, recipient_id: recipientId }) as Row[]).map(toPushSubscriptionView);
  }

  async activePushTargets(tenantId: string, recipientId: string): Promise<ActivePushTarget[]> {
    return (this.sql.stmt('push_subscriptions_active').all({ tenant_id: tenantId, recipient_id: recipientId }) as Row[]).map((r) => ({
      id: String(r.id),
      type: r.type as ActivePushTarget['type'],
      target: String(r.target),
    }));
  }

  async deactivatePushTarget(r: PushTargetRefusal): Promise<number> {
    return this.sql
      .stmt('push_subscriptions_deactivate')
      .run({ tenant_id: r.tenantId, target_hash: pushTargetHash(r.target), reason: r.reason, code: r.code, now: r.now }).changes;
  }

  async inactivePushTargets(tenantId: string, targets: readonly string[]): Promise<Set<string>> {
    if (targets.length === 0) return new Set();
    const byHash = new Map(targets.map((t) => [pushTargetHash(t), t] as const));
    const rows = this.sql.stmt('push_subscriptions_inactive').all({ tenant_id: tenantId, target_hashes_json: JSON.stringify([...byHash.keys()]) }) as Row[];
    return new Set(rows.map((r) => byHash.get(String(r.target_hash))!));
  }
}
