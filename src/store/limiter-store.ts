/**
 * The limiter part of the Store contract (`store.limiter`): the shared rate limiter, one GCRA state per
 * (provider account, lane) and one per account (lane `*`), read and written in one
 * transaction per request, so every worker of every process spends the same budget. The
 * arithmetic is the domain's (`acquireJoint`, `throttle` in src/domain/rate-limit.ts); the
 * store only makes it atomic.
 */
import type { RateLimit } from '../domain/index.js';
import type { ClaimedDelivery, ClaimRequest } from './core-store.js';

/** The account-wide limiter's lane name; lane names are lower-case words, so it cannot collide. */
export const ACCOUNT_LANE = '*';

export interface PermitRequest {
  providerAccount: string;
  lane: string;
  now: number;
  requested: number;
  /** The lane's limit (its maximum rate) and the account's: a permit passes both. */
  laneLimit: RateLimit;
  accountLimit: RateLimit;
}

/** A claim that spends one permit per delivery it takes. */
export interface PermittedClaimRequest extends ClaimRequest {
  lane: string;
  laneLimit: RateLimit;
  accountLimit: RateLimit;
}

/** What a permitted claim took, and (when the limiter cut it short) when permits are available again. */
export interface PermittedClaim {
  claimed: ClaimedDelivery[];
  retryAt: number | null;
}

/** How many permits were granted, and when to ask again when short. */
export interface PermitGrant {
  granted: number;
  retryAt: number | null;
}

/** A provider's 429 for an account: `retryAfterMs` is its Retry-After, null when it sent none. */
export interface AccountThrottle {
  providerAccount: string;
  now: number;
  retryAfterMs: number | null;
  limit: RateLimit;
}

/** `store.limiter`; implemented by sqlite/limiter.ts and postgres/limiter.ts. */
export interface LimiterStore {
  /**
   * Claims up to `limit` due deliveries, but no more than the limiter grants now, and spends
   * exactly one permit per delivery claimed, in one transaction: no permit is wasted on work
   * that was not there, and none is granted twice. `retryAt` (when the limiter, not the queue,
   * cut the claim short) says when permits are available again.
   */
  claimWithPermits(r: PermittedClaimRequest): Promise<PermittedClaim>;
  /** Grants up to `requested` permits from the lane's and the account's limiter together; `retryAt` says when to ask again when short. */
  acquirePermits(r: PermitRequest): Promise<PermitGrant>;
  /** After a provider's 429: no permit of the account is granted before now + Retry-After (or the domain's default pause). Returns when permits resume, and records it as the account's pause (store.observability reads it). */
  throttleAccount(r: AccountThrottle): Promise<number>;
}
