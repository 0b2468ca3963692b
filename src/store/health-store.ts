/**
 * The provider-health part of the Store contract (`store.health`): per provider account, call
 * and failure counts in time buckets shared by every worker, which the retry budget reads
 * (src/domain/retry-budget.ts). Both drivers implement it; test/delivery/retry-budget.test.ts runs on each.
 */

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

/** `store.health`; implemented by sqlite/health.ts and postgres/health.ts. */
export interface HealthStore {
  /** Adds a batch's call counts to the account's health bucket (shared by every worker). */
  recordProviderCalls(r: ProviderCalls): Promise<void>;
  /** Calls and retryable/throttled failures of an account since `since` (bucket starts at or after it). */
  providerHealth(providerAccount: string, since: number): Promise<ProviderHealth>;
  /** Drops health buckets that started before `before`. */
  pruneProviderHealth(before: number): Promise<number>;
}
