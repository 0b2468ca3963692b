/**
 * `store.scheduling`, written once for both drivers (see ../scheduling-store.ts): a tenant's
 * scheduling policy, and the frequency caps' count of sends. The only dialect difference is the
 * key's lock (`cap_lock`: an advisory lock on PostgreSQL, a no-op under SQLite's one writer).
 */
import { capAllows, capAllowsAt, longestPeriodMs, type SchedulingPolicyJson } from '../../domain/index.js';
import type { TransitionResult } from '../core-store.js';
import type { CapTake, CapTakeResult, HoldWrite, SchedulingStore, StoredSchedulingPolicy } from '../scheduling-store.js';
import { type Body, type Executor, all, count, list, one } from '../sql-executor.js';
import type { GuardedTransition } from '../transition-fields.js';

/** A tenant's scheduling policy and the sends its caps count. */
export class SchedulingPart implements SchedulingStore {
  constructor(
    private readonly x: Executor,
    private readonly transition: GuardedTransition,
  ) {}

  async getPolicy(tenantId: string): Promise<StoredSchedulingPolicy | null> {
    const row = await this.x.one('scheduling_policy_get', { tenant_id: tenantId });
    return row ? { policy: JSON.parse(String(row.policy_json)) as SchedulingPolicyJson, updatedAt: Number(row.updated_at) } : null;
  }

  async putPolicy(tenantId: string, policy: SchedulingPolicyJson, now: number): Promise<void> {
    await this.x.count('scheduling_policy_put', { tenant_id: tenantId, policy_json: JSON.stringify(policy), now });
  }

  async takeCapSlot(t: CapTake): Promise<CapTakeResult> {
    return (await this.takeCapSlots([t]))[0]!;
  }

  takeCapSlots(takes: readonly CapTake[]): Promise<CapTakeResult[]> {
    if (takes.length === 0) return Promise.resolve([]);
    return this.x.transaction(() => takeSlots(takes));
  }

  async holdClaimed(holds: readonly HoldWrite[]): Promise<TransitionResult[]> {
    if (holds.length === 0) return [];
    const transition = this.transition;
    const accounts = await this.x.transaction(function* () {
      const out: (string | null)[] = [];
      for (const h of holds) {
        const account = yield* transition(h.write);
        out.push(account);
        if (account === null) continue;
        if (h.withdrawAttempt !== undefined) yield* count('attempt_withdraw', { delivery_id: h.write.deliveryId, number: h.withdrawAttempt });
        yield* count('delivery_hold', { id: h.write.deliveryId, hold_reason: h.reason, withdrawn: h.withdrawAttempt === undefined ? 0 : 1 });
      }
      return out;
    });
    // No wake: a deferral is due later, and every worker finds it by its next_attempt_at.
    return holds.map((h, i) => ({ deliveryId: h.write.deliveryId, applied: accounts[i] !== null }));
  }
}

const keyOf = (t: CapTake): string => `cap:${t.tenantId}:${t.recipientId}:${t.channel}:${t.purpose}`;

/**
 * A batch's takes in four statements whatever its size (a key with rows to prune adds one): the
 * keys' locks, taken in one sorted order so two workers' batches never wait for each other in a
 * cycle; every key's counted sends; then, in memory, each take in the order given (a retry finds
 * its own slot: still one message to the person; a batch's second message to one person sees the
 * first's slot); the prunes; the inserts. The rows of a key past its longest period are pruned as
 * it is written, so a key holds a few rows at most.
 */
function* takeSlots(takes: readonly CapTake[]): Body<CapTakeResult[]> {
  const byKey = new Map<string, CapTake>();
  for (const t of takes) if (!byKey.has(keyOf(t))) byKey.set(keyOf(t), t);
  const keys = [...byKey.keys()].sort();
  const first = keys.map((k) => byKey.get(k)!);
  yield* one('cap_locks', { lock_keys: list(keys) });
  const rows = yield* all('cap_sends_of_keys', {
    tenant_ids: list(first.map((t) => t.tenantId)),
    recipient_ids: list(first.map((t) => t.recipientId)),
    channels: list(first.map((t) => t.channel)),
    purposes: list(first.map((t) => t.purpose)),
  });
  const sent = new Map<string, { deliveryId: string; at: number }[]>(keys.map((k) => [k, []]));
  for (const r of rows) {
    const k = `cap:${String(r.tenant_id)}:${String(r.recipient_id)}:${String(r.channel)}:${String(r.purpose)}`;
    sent.get(k)?.push({ deliveryId: String(r.delivery_id), at: Number(r.sent_at) });
  }
  const taken: CapTake[] = [];
  const prune = new Map<string, { t: CapTake; before: number }>();
  const out = takes.map((t): CapTakeResult => {
    const key = sent.get(keyOf(t))!;
    if (key.some((s) => s.deliveryId === t.deliveryId)) return { ok: true };
    const sentAt = key.map((s) => s.at);
    if (!capAllows(sentAt, t.caps, t.now)) return { ok: false, allowsAt: capAllowsAt(sentAt, t.caps, t.now) };
    const before = t.now - longestPeriodMs(t.caps);
    if (sentAt.some((at) => at <= before)) prune.set(keyOf(t), { t, before });
    key.push({ deliveryId: t.deliveryId, at: t.now });
    taken.push(t);
    return { ok: true };
  });
  for (const { t, before } of prune.values()) {
    yield* count('cap_sends_prune', { tenant_id: t.tenantId, recipient_id: t.recipientId, channel: t.channel, purpose: t.purpose, before });
  }
  if (taken.length > 0) {
    yield* count('cap_sends_insert', {
      delivery_ids: list(taken.map((t) => t.deliveryId)),
      tenant_ids: list(taken.map((t) => t.tenantId)),
      recipient_ids: list(taken.map((t) => t.recipientId)),
      channels: list(taken.map((t) => t.channel)),
      purposes: list(taken.map((t) => t.purpose)),
      sent_ats: list(taken.map((t) => t.now)),
    });
  }
  return out;
}
