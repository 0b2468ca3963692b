/**
 * The observability part of the Store contract (`store.observability`): the state of the whole
 * system as one small set of aggregate reads, for the metrics endpoint (src/observability/).
 * Every process reads the same rows, so every process reports the same truth. No row carries a
 * destination or a recipient: only states, reasons, provider account ids, counts and times.
 */
import type { DeliveryState, TerminalReason } from '../domain/index.js';

/** Deliveries of one state (and terminal reason, for `terminal`). */
export interface DeliveryStateGroup {
  state: DeliveryState;
  /** Null unless `state` is `terminal`. */
  terminalReason: TerminalReason | null;
  count: number;
  /** The oldest `updated_at` in the group (for `unknown`: when the oldest became unknown). */
  oldestUpdatedAt: number;
  /** How many of the group the review queue lists (review-store.ts `listReview`, every tenant). */
  inReview: number;
}

/** Due work of one provider account: ready/retryable, `next_attempt_at` ≤ now, not expired at now. */
export interface DueGroup {
  providerAccount: string;
  count: number;
  /** The earliest `next_attempt_at` among them: how long the oldest due message has waited. */
  oldestDueAt: number;
}

export interface SystemStateQuery {
  now: number;
  /** As in ReviewQuery: an `unknown` delivery not updated since `now - unknownAfterMs` is in review. */
  unknownAfterMs: number;
}

export interface SystemState {
  /** Only groups that have deliveries. */
  deliveries: DeliveryStateGroup[];
  /** Only accounts that have due work. */
  due: DueGroup[];
}

/** `store.observability`; implemented by sqlite/observability.ts and postgres/observability.ts. */
export interface ObservabilityStore {
  /** Deliveries per state and reason, and due work per provider account, at `now` (two aggregate statements). */
  systemState(q: SystemStateQuery): Promise<SystemState>;
}
