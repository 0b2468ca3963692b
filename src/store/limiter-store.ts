/**
 * The limiter part of the Store contract (`store.limiter`): the shared rate limiter, GCRA states
 * per (provider account, row), where a row is a lane's own, the account's shared one (`*`), or
 * a tenant's with a rate share (`tenant:<id>`, drawn jointly with the lane's rows: docs/tenants.md,
 * "Rate shares"); which rows a lane draws on is the domain's `lanePermitPlans`. Every worker of every process
 * spends the same rows. The arithmetic is the domain's (`acquireJoint`, `refundedState`,
 * `throttle` in src/domain/rate-limit.ts); the store only makes it atomic.
 *
 * A claim reserves its permits in a short transaction of its own (the rows locked only for the
 * GCRA step and a commit that does not wait for its WAL flush), then claims, then refunds what it
 * did not use (compare-and-set on the state the reservation wrote: see `refundedState`).
 */
import { SHARED_LIMITER_ROW, type LimiterRow, type RateLimit } from '../domain/index.js';
import type { ClaimedDelivery, ClaimRequest } from './core-store.js';

/** The account-wide (shared) limiter's row name; lane names are lower-case words, so it cannot collide. */
export const ACCOUNT_LANE = SHARED_LIMITER_ROW;

/** Permits reserved on a set of rows granted jointly. */
export interface PermitReservationRequest {
  providerAccount: string;
  now: number;
  requested: number;
  rows: readonly LimiterRow[];
  /**
   * Whether to wait for another request holding one of the rows. False: a row another request
   * has locked grants nothing now (PostgreSQL's SKIP LOCKED; SQLite has one lock, always free
   * inside its write transaction). A lane borrowing from the shared row does not queue behind
   * the campaign's claims for it.
   */
  wait?: boolean;
}

/** What a reservation took: the count, when to ask again when short, and per row the state it wrote (what a refund compares). */
export interface PermitReservation {
  providerAccount: string;
  granted: number;
  retryAt: number | null;
  /** Empty when nothing was granted (nothing was written). */
  rows: Array<{ row: string; limit: RateLimit; tatUs: number }>;
}

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
  /**
   * The lane's permit sources in order (the domain's `lanePermitPlans(...).sources`). Without
   * it: one source, the lane's row at `laneLimit` and the account's row at `accountLimit`, jointly.
   */
  sources?: readonly (readonly LimiterRow[])[];
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
  /** Every row of the account to pause (the plan's `throttleRows`); default the account's row `*` at `limit`. */
  rows?: readonly LimiterRow[];
}

/** `store.limiter`; implemented by sqlite/limiter.ts and postgres/limiter.ts. */
export interface LimiterStore {
  /**
   * Claims up to `limit` due deliveries, but no more than the limiter grants now: permits are
   * reserved first (each source in turn, the first waiting for its rows, later ones only when
   * free), the deliveries claimed, and permits not used refunded when nobody has drawn on their
   * row since; none is granted twice, and one not refunded is lost, never reused. `retryAt`
   * (when the limiter, not the queue, cut the claim short) says when permits are available again.
   */
  claimWithPermits(r: PermittedClaimRequest): Promise<PermittedClaim>;
  /** Reserves up to `requested` permits from `rows` jointly, in a short transaction of its own. */
  reservePermits(r: PermitReservationRequest): Promise<PermitReservation>;
  /**
   * Gives back `unused` permits of a reservation, row by row, on each row whose state is still
   * the one the reservation wrote (`refundedState`). Returns the rows refunded; a row anybody
   * else has moved since keeps its state and the permits are lost.
   */
  refundPermits(reservation: PermitReservation, unused: number): Promise<string[]>;
  /** Grants up to `requested` permits from the lane's and the account's limiter together; `retryAt` says when to ask again when short. */
  acquirePermits(r: PermitRequest): Promise<PermitGrant>;
  /** After a provider's 429: no permit of the account is granted before now + Retry-After (or the domain's default pause). Returns when permits resume, and records it as the account's pause (store.observability reads it). */
  throttleAccount(r: AccountThrottle): Promise<number>;
}
