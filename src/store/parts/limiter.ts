/**
 * `store.limiter`, what both drivers write the same way (see ../limiter-store.ts): a plain grant
 * as a reservation of the lane's row and the account's, and which permit sources a claim draws on.
 * Reserving, refunding, claiming with permits and throttling are the drivers' own
 * (sqlite/limiter.ts: one IMMEDIATE transaction, SQLite's one lock; postgres/limiter.ts: row
 * locks held for two round trips, refunds by compare-and-set, asynchronous commits).
 */
import type { LimiterRow } from '../../domain/index.js';
import {
  ACCOUNT_LANE,
  type AccountThrottle,
  type LimiterStore,
  type PermitGrant,
  type PermitRequest,
  type PermitReservation,
  type PermitReservationRequest,
  type PermittedClaim,
  type PermittedClaimRequest,
} from '../limiter-store.js';

/** The permit sources of a claim: the ones it names, or the lane's own row with the account's. */
export function permitSources(r: PermittedClaimRequest): readonly (readonly LimiterRow[])[] {
  return (
    r.sources ?? [
      [
        { row: r.lane, limit: r.laneLimit },
        { row: ACCOUNT_LANE, limit: r.accountLimit },
      ],
    ]
  );
}

/** The limiter's methods both dialects write the same way; a driver's limiter extends it with the rest. */
export abstract class LimiterPart implements LimiterStore {
  abstract reservePermits(r: PermitReservationRequest): Promise<PermitReservation>;
  abstract refundPermits(reservation: PermitReservation, unused: number): Promise<string[]>;
  abstract claimWithPermits(r: PermittedClaimRequest): Promise<PermittedClaim>;
  abstract throttleAccount(r: AccountThrottle): Promise<number>;

  async acquirePermits(r: PermitRequest): Promise<PermitGrant> {
    const res = await this.reservePermits({
      providerAccount: r.providerAccount,
      now: r.now,
      requested: r.requested,
      rows: [
        { row: r.lane, limit: r.laneLimit },
        { row: ACCOUNT_LANE, limit: r.accountLimit },
      ],
    });
    return { granted: res.granted, retryAt: res.retryAt };
  }
}
