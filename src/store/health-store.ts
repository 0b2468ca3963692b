/**
 * The provider-health part of the Store contract (`store.health`): per provider account, call
 * and failure counts in time buckets shared by every worker, which the retry budget reads
 * (src/domain/retry-budget.ts), what the account's rollout decided on its recent attempts, and
 * its recent errors by class for the Providers page. Both drivers implement it;
 * test/delivery/retry-budget.test.ts and test/store/dashboard-reads-conformance.ts run on each.
 */
import type { RolloutDecisionKind } from '../domain/index.js';

/** One batch's calls to an account, added to the bucket starting at `bucketStart`. */
export interface ProviderCalls {
  providerAccount: string;
  bucketStart: number;
  calls: number;
  failures: number;
}

/** Calls and retryable/throttled failures over a window. */
export interface ProviderHealth {
  calls: number;
  failures: number;
}

/** How many of an account's decided attempts took `decision` while the next rollout stage would have taken `nextStageDecision`. */
export interface RolloutDecisionCount {
  decision: RolloutDecisionKind;
  nextStageDecision: RolloutDecisionKind;
  attempts: number;
}

/**
 * The windows the Providers page counts errors over, as their start times: the last 15 minutes,
 * hour and day before now (each contains the one before).
 */
export interface RecentErrorWindows {
  since15m: number;
  since1h: number;
  since24h: number;
}

/**
 * How often one error class happened on an account in each window: `attempt` classes are the
 * outcomes of provider calls that did not get accepted (retryable, throttled, permanent,
 * unknown, lease_expired); `terminal` classes are the failure reasons deliveries ended with
 * (exhausted, rejected, expired, unresolved).
 */
export interface ProviderErrorCount {
  providerAccount: string;
  kind: 'attempt' | 'terminal';
  errorClass: string;
  last15m: number;
  last1h: number;
  last24h: number;
}

/** `store.health`; implemented by sqlite/health.ts and postgres/health.ts. */
export interface HealthStore {
  /** Adds a batch's call counts to the account's health bucket (shared by every worker). */
  recordProviderCalls(r: ProviderCalls): Promise<void>;
  /** Calls and retryable/throttled failures of an account since `since` (bucket starts at or after it). */
  providerHealth(providerAccount: string, since: number): Promise<ProviderHealth>;
  /**
   * The account's attempts finished at or after `since` that carry rollout decisions, counted
   * by (decision, next stage's decision), ordered by both.
   */
  rolloutDecisions(providerAccount: string, since: number): Promise<RolloutDecisionCount[]>;
  /** Every account's error classes over the three windows, in one aggregate query, ordered by account, kind and class. */
  recentProviderErrors(w: RecentErrorWindows): Promise<ProviderErrorCount[]>;
  /** Drops health buckets that started before `before`. */
  pruneProviderHealth(before: number): Promise<number>;
}
