/**
 * `store.scheduling`, written once for both drivers (see ../scheduling-store.ts): a tenant's
 * scheduling policy, and the frequency caps' count of sends. The only dialect difference is the
 * key's lock (`cap_lock`: an advisory lock on PostgreSQL, a no-op under SQLite's one writer).
 */
import { capAllows, capAllowsAt, longestPeriodMs, type SchedulingPolicyJson } from '../../domain/index.js';
import type { CapTake, CapTakeResult, SchedulingStore, StoredSchedulingPolicy } from '../scheduling-store.js';
import { type Executor, all, count, one } from '../sql-executor.js';

/** A tenant's scheduling policy and the sends its caps count. */
export class SchedulingPart implements SchedulingStore {
  constructor(private readonly x: Executor) {}

  async getPolicy(tenantId: string): Promise<StoredSchedulingPolicy | null> {
    const row = await this.x.one('scheduling_policy_get', { tenant_id: tenantId });
    return row ? { policy: JSON.parse(String(row.policy_json)) as SchedulingPolicyJson, updatedAt: Number(row.updated_at) } : null;
  }

  async putPolicy(tenantId: string, policy: SchedulingPolicyJson, now: number): Promise<void> {
    await this.x.count('scheduling_policy_put', { tenant_id: tenantId, policy_json: JSON.stringify(policy), now });
  }

  takeCapSlot(t: CapTake): Promise<CapTakeResult> {
    const key = { tenant_id: t.tenantId, recipient_id: t.recipientId, channel: t.channel, purpose: t.purpose };
    const longest = longestPeriodMs(t.caps);
    return this.x.transaction(function* () {
      yield* one('cap_lock', { lock_key: `cap:${t.tenantId}:${t.recipientId}:${t.channel}:${t.purpose}` });
      // A retry of a delivery that was counted keeps its slot: still one message to the person.
      if (yield* one('cap_send_of_delivery', { delivery_id: t.deliveryId })) return { ok: true };
      const sentAt = (yield* all('cap_sends_recent', { ...key, since: t.now - longest })).map((r) => Number(r.sent_at));
      if (!capAllows(sentAt, t.caps, t.now)) return { ok: false, allowsAt: capAllowsAt(sentAt, t.caps, t.now) };
      yield* count('cap_sends_prune', { ...key, before: t.now - longest });
      yield* count('cap_send_insert', { ...key, delivery_id: t.deliveryId, now: t.now });
      return { ok: true };
    });
  }
}
