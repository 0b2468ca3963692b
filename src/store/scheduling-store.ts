/**
 * The scheduling part of the Store contract (`store.scheduling`, docs/scheduling.md): a tenant's
 * own time-aware sending policy (what PUT /v1/scheduling stored; the install's defaults fill in
 * the rest), and the sends its frequency caps count, kept in the database so every worker of a
 * deployment counts one budget per recipient, channel and purpose.
 *
 * Both drivers run the one implementation in parts/scheduling.ts; test/store/scheduling.test.ts
 * runs it on each.
 */
import type { Channel, FrequencyCap, HoldReason, Purpose, SchedulingPolicyJson } from '../domain/index.js';
import type { TransitionResult, TransitionWrite } from './core-store.js';

/** A tenant's stored policy: the choices as the API took them, and when. */
export interface StoredSchedulingPolicy {
  policy: SchedulingPolicyJson;
  updatedAt: number;
}

/** One delivery asking for a slot of its recipient's caps just before its provider call. */
export interface CapTake {
  tenantId: string;
  recipientId: string;
  channel: Channel;
  purpose: Purpose;
  deliveryId: string;
  caps: readonly FrequencyCap[];
  now: number;
}

/**
 * Taken (or the delivery already held its slot: a retry is still one message to the person), or
 * refused with the earliest instant every cap allows one more (`capAllowsAt`).
 */
export type CapTakeResult = { ok: true } | { ok: false; allowsAt: number };

/**
 * A claimed delivery the send-time check holds or ends instead of calling it (decide's `defer`,
 * or `suppress` over a cap), with the reason shown on the delivery.
 */
export interface HoldWrite {
  /** The guarded transition from `submitting` (expected state and the claim's lease version). */
  write: TransitionWrite;
  reason: HoldReason;
  /**
   * The claim's attempt number, when the hold withdraws it: a deferral (or an expiry by a hold) is
   * not an attempt, so its row is deleted and the delivery's count taken back. Absent, the
   * write's own `attempt` closes it as not sent (a suppression over a cap, like an unsubscribe).
   */
  withdrawAttempt?: number;
}

export interface SchedulingStore {
  /** The tenant's own policy, or null when it never set one (the install's defaults apply). */
  getPolicy(tenantId: string): Promise<StoredSchedulingPolicy | null>;
  /** Replaces the tenant's policy (a checked body: domain/scheduling-policy.ts policyProblems). */
  putPolicy(tenantId: string, policy: SchedulingPolicyJson, now: number): Promise<void>;
  /**
   * Counts and takes in one step, atomically per (tenant, recipient, channel, purpose): reads the
   * key's sends inside the longest period and records this delivery's only if every cap allows
   * it. Two workers taking the last slot of one recipient serialize (PostgreSQL: an advisory lock
   * on the key; SQLite: its one writer); the second sees the first's row. Rows older than the
   * longest period are pruned as the key is written.
   */
  takeCapSlot(t: CapTake): Promise<CapTakeResult>;
  /**
   * The takes of one claimed batch in one transaction, each as `takeCapSlot` would (the keys
   * locked in one order, so two workers' batches never deadlock); one result per take, in order.
   */
  takeCapSlots(takes: readonly CapTake[]): Promise<CapTakeResult[]>;
  /**
   * Writes the holds of one claimed batch in one transaction: each guarded transition, its
   * attempt withdrawn (or closed), and `hold_reason` on the delivery, together or not at all. A
   * hold whose guard no longer holds (the lease was rescued meanwhile) changes nothing. One result
   * per hold, in order.
   */
  holdClaimed(holds: readonly HoldWrite[]): Promise<TransitionResult[]>;
}
