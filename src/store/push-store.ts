/**
 * The push-subscription part of the Store contract (`store.push`): a recipient's devices,
 * each registered with one push service (`PushTarget`, stored as its encoded string, which is
 * also the destination of the deliveries sent to it). Deactivation is for good: a subscription
 * a push service refused as unregistered or malformed is never sent to again, until the app
 * registers it anew (a PUT with the same id reactivates it). Both drivers implement it;
 * test/store/push-conformance.ts runs on each.
 */
import type { PushTarget } from '../domain/index.js';

/** Why a subscription is no longer sent to. */
export const PUSH_DEACTIVATION_REASONS = ['removed', 'unregistered', 'bad_token'] as const;
export type PushDeactivationReason = (typeof PUSH_DEACTIVATION_REASONS)[number];

/** A subscription as registered (PUT /v1/recipients/:id/push-subscriptions/:subscriptionId). */
export interface PushSubscriptionInput {
  tenantId: string;
  recipientId: string;
  id: string;
  type: PushTarget['type'];
  /** `encodePushTarget(target)`. */
  target: string;
  now: number;
}

export interface PushSubscriptionView {
  id: string;
  recipientId: string;
  type: PushTarget['type'];
  target: string;
  createdAt: number;
  updatedAt: number;
  deactivatedAt: number | null;
  deactivatedReason: PushDeactivationReason | null;
  deactivatedCode: string | null;
}

/** One subscription a push notification goes to now. */
export interface ActivePushTarget {
  id: string;
  type: PushTarget['type'];
  target: string;
}

/** A push service's definite "this target is gone", from a delivery to it. */
export interface PushTargetRefusal {
  tenantId: string;
  target: string;
  reason: Exclude<PushDeactivationReason, 'removed'>;
  code: string;
  now: number;
}

/** `store.push`; implemented by sqlite/push.ts and postgres/push.ts. */
export interface PushStore {
  /** Registers or updates a subscription (a changed target replaces the old one); reactivates a deactivated one. */
  putPushSubscription(s: PushSubscriptionInput): Promise<PushSubscriptionView>;
  /** Deactivates one subscription as removed; false when the recipient has no such subscription. */
  removePushSubscription(r: { tenantId: string; recipientId: string; id: string; now: number }): Promise<boolean>;
  /** A recipient's subscriptions, active and deactivated, oldest first. */
  listPushSubscriptions(tenantId: string, recipientId: string): Promise<PushSubscriptionView[]>;
  /** A recipient's active subscriptions, most recently updated first. */
  activePushTargets(tenantId: string, recipientId: string): Promise<ActivePushTarget[]>;
  /** Deactivates every active subscription of the tenant with this target; returns how many. */
  deactivatePushTarget(r: PushTargetRefusal): Promise<number>;
  /** Of these targets, the ones the tenant has only deactivated subscriptions for (never send to them). */
  inactivePushTargets(tenantId: string, targets: readonly string[]): Promise<Set<string>>;
}
