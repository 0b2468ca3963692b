/**
 * The review part of the Store contract (`store.review`): the tenant's queue of deliveries a
 * person should look at, operator replays with their audit rows, and what a resend needs (the
 * stored request). Both drivers implement it and pass the review tests of test/store/conformance.ts.
 */
import type { Channel, DeliveryState } from '../domain/index.js';
import type { DeliveryView, NewNotification, Page, TransitionWrite } from './core-store.js';

/**
 * Why a delivery is in the review queue: it ended without getting through, has been `unknown`
 * too long, or a rollout stage held it for a person (`held`: `terminal/held`, or an `unknown`
 * whose attempt's decision is `review`).
 */
export const REVIEW_REASONS = ['exhausted', 'rejected', 'unresolved', 'unknown_overdue', 'held'] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

export type ReviewItem = DeliveryView & { reviewReason: ReviewReason };

/** When an `unknown` delivery counts as overdue: not updated since `now - unknownAfterMs`. */
export interface ReviewQuery {
  now: number;
  unknownAfterMs: number;
  /** Only the items with this review reason; absent: every reason. */
  reason?: ReviewReason;
}

/** Which deliveries a bulk replay walks. Times are epoch ms: `createdFrom` inclusive, `createdTo` exclusive. */
export interface ReplayFilter {
  state?: DeliveryState;
  channel?: Channel;
  providerAccount?: string;
  createdFrom?: number;
  createdTo?: number;
}

/** The audit row written with a replay. */
export interface ReplayAudit {
  /** The API key id (or operator) that asked. */
  requestedBy: string;
  acceptDuplicateRisk: boolean;
  note: string | null;
  /** The terminal reason the delivery had, or null when it was not terminal. */
  fromReason: string | null;
}

/** A replay: the guarded transition and the audit row it is written with. */
export interface ReplayRequest {
  write: TransitionWrite;
  audit: ReplayAudit;
}

export interface ReplayRecord extends ReplayAudit {
  deliveryId: string;
  tenantId: string;
  fromState: DeliveryState;
  createdAt: number;
}

/** What a notification was asked to send, as stored: enough to send it again as a new generation. */
export type NotificationSource = Omit<NewNotification, 'deliveries' | 'fallback' | 'retryLadder'>;

/** `store.review`; implemented by sqlite/review.ts and postgres/review.ts. */
export interface ReviewStore {
  /**
   * The tenant's review queue, newest first (cursor as in listDeliveries): `terminal`
   * deliveries that ended exhausted, rejected, unresolved or held, `unknown` deliveries a rollout
   * stage held (at once), and other `unknown` deliveries not updated since `now - unknownAfterMs`
   * (reconciliation has not settled them).
   */
  listReview(tenantId: string, query: ReviewQuery, cursor: string | null, limit: number): Promise<Page<ReviewItem>>;
  /**
   * An operator's replay: the guarded transition (as in applyTransitions, outbox event
   * included) and its `replays` audit row in one transaction. False when the guard refused
   * (the delivery changed since it was read); then nothing is written.
   */
  replayDelivery(r: ReplayRequest): Promise<boolean>;
  /** The replays of one of the tenant's deliveries, oldest first. */
  listReplays(tenantId: string, deliveryId: string): Promise<ReplayRecord[]>;
  /**
   * Deliveries a bulk replay considers: the tenant's deliveries matching the filter in a state
   * a replay can start from (`unknown`, `retryable`, `terminal`), oldest first by id, after `afterId`.
   */
  listReplayCandidates(tenantId: string, filter: ReplayFilter, afterId: string | null, limit: number): Promise<DeliveryView[]>;
  /** The stored request of a notification (for a resend), or null (unknown id or another tenant's). */
  getNotificationSource(tenantId: string, id: string): Promise<NotificationSource | null>;
}
