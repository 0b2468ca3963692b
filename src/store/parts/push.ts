/** `store.push`, written once for both drivers (see ../push-store.ts). */
import type { ActivePushTarget, PushStore, PushSubscriptionInput, PushSubscriptionView, PushTargetRefusal } from '../push-store.js';
import { pushTargetHash, toPushSubscriptionView } from '../push-rows.js';
import { type Executor, count, list, one } from '../sql-executor.js';

/** A recipient's push subscriptions. */
export class PushPart implements PushStore {
  constructor(private readonly x: Executor) {}

  async putPushSubscription(s: PushSubscriptionInput): Promise<PushSubscriptionView> {
    const params = {
      tenant_id: s.tenantId,
      recipient_id: s.recipientId,
      id: s.id,
      type: s.type,
      target: s.target,
      target_hash: pushTargetHash(s.target),
      now: s.now,
    };
    return toPushSubscriptionView((await this.x.one('push_subscriptions_upsert', params))!);
  }

  removePushSubscription(r: { tenantId: string; recipientId: string; id: string; now: number }): Promise<boolean> {
    const key = { tenant_id: r.tenantId, recipient_id: r.recipientId, id: r.id };
    return this.x.transaction(function* () {
      if (!(yield* one('push_subscriptions_get', key))) return false;
      yield* count('push_subscriptions_remove', { ...key, now: r.now });
      return true;
    });
  }

  async listPushSubscriptions(tenantId: string, recipientId: string): Promise<PushSubscriptionView[]> {
    return (await this.x.all('push_subscriptions_list', { tenant_id: tenantId, recipient_id: recipientId })).map(toPushSubscriptionView);
  }

  async activePushTargets(tenantId: string, recipientId: string): Promise<ActivePushTarget[]> {
    return (await this.x.all('push_subscriptions_active', { tenant_id: tenantId, recipient_id: recipientId })).map((r) => ({
      id: String(r.id),
      type: r.type as ActivePushTarget['type'],
      target: String(r.target),
    }));
  }

  deactivatePushTarget(r: PushTargetRefusal): Promise<number> {
    return this.x.count('push_subscriptions_deactivate', {
      tenant_id: r.tenantId,
      target_hash: pushTargetHash(r.target),
      reason: r.reason,
      code: r.code,
      now: r.now,
    });
  }

  async inactivePushTargets(tenantId: string, targets: readonly string[]): Promise<Set<string>> {
    if (targets.length === 0) return new Set();
    const byHash = new Map(targets.map((t) => [pushTargetHash(t), t] as const));
    const rows = await this.x.all('push_subscriptions_inactive', { tenant_id: tenantId, target_hashes: list([...byHash.keys()]) });
    return new Set(rows.map((r) => byHash.get(String(r.target_hash))!));
  }
}
