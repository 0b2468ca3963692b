/**
 * The PostgreSQL driver's limiter part (see src/store/limiter-store.ts; what both drivers share
 * is parts/limiter.ts). A claim reserves its
 * permits in a short transaction (lock the rows in lane order, so two requests cannot deadlock;
 * the domain's GCRA; write; commit), claims with its own statement, and refunds what it did not
 * use. Before, the rows stayed locked across the claim statement and its commit (a WAL flush),
 * so every claim of an account queued on one row: 10 of 12 active sessions waited on it in
 * bench:campaign (docs/benchmarks.md).
 *
 * The reservation commits without waiting for its WAL flush (synchronous_commit off for that
 * transaction alone): the lock is held for two round trips, not an fsync. This is safe because a
 * permit is only ever spent by a claim that commits after the reservation, synchronously, and a
 * synchronous commit flushes the WAL up to its own record, the reservation's included. So a
 * reservation a crash loses is one whose permits no durable claim used, and no provider was
 * called for them (the worker calls only after its claim committed).
 */
import { PAUSE_CONTINUES_WITHIN_MS, acquireJoint, refundedState, throttle, type LimiterRow, type LimiterState } from '../../domain/index.js';
import {
  ACCOUNT_LANE,
  type AccountThrottle,
  type PermitReservation,
  type PermitReservationRequest,
  type PermittedClaim,
  type PermittedClaimRequest,
} from '../limiter-store.js';
import { LimiterPart, permitSources } from '../parts/limiter.js';
import type { ClaimedDelivery } from '../core-store.js';
import { errorFields } from '../store-log.js';
import { claimOn, dueCount } from './claims.js';
import type { Client, PostgresContext } from './sql-context.js';

/** `store.limiter` of the PostgreSQL store. */
export class PostgresLimiter extends LimiterPart {
  constructor(private readonly sql: PostgresContext) {
    super();
  }

  /** Locks the rows (creating missing ones); with `wait` false, a row another transaction holds is missing from the answer. */
  private async lock(c: Client, account: string, lanes: string[], wait = true): Promise<Map<string, number>> {
    const statement = wait ? 'limiter_lock' : 'limiter_lock_free';
    let rows = await this.sql.q(statement, [account, lanes], c);
    if (rows.length < lanes.length) {
      // Rows are created on an account's first use; after that this costs nothing.
      await this.sql.q('limiter_ensure', [account, lanes], c);
      rows = await this.sql.q(statement, [account, lanes], c);
    }
    return new Map(rows.map((r) => [String(r.lane), Number(r.tat_us)]));
  }

  async reservePermits(r: PermitReservationRequest): Promise<PermitReservation> {
    const lanes = r.rows.map((x) => x.row);
    const limits = r.rows.map((x) => x.limit);
    return this.sql.tx(
      async (c) => {
        const tats = await this.lock(c, r.providerAccount, lanes, r.wait ?? true);
        // A row held by another claim (wait false): nothing now, and no time to promise.
        if (tats.size < lanes.length) return { providerAccount: r.providerAccount, granted: 0, retryAt: null, rows: [] };
        const states: LimiterState[] = lanes.map((l) => ({ tatUs: tats.get(l) ?? 0 }));
        const out = acquireJoint(states, { now: r.now, requested: Math.max(0, r.requested), limits });
        if (out.granted === 0) return { providerAccount: r.providerAccount, granted: 0, retryAt: out.retryAt, rows: [] };
        await this.sql.q('limiter_set', [r.providerAccount, lanes, out.states.map((s) => s.tatUs)], c);
        return {
          providerAccount: r.providerAccount,
          granted: out.granted,
          retryAt: out.retryAt,
          rows: r.rows.map((x, i) => ({ row: x.row, limit: x.limit, tatUs: out.states[i]!.tatUs })),
        };
      },
      { asyncCommit: true },
    );
  }

  async refundPermits(reservation: PermitReservation, unused: number): Promise<string[]> {
    if (unused <= 0 || reservation.rows.length === 0) return [];
    const rows = reservation.rows.map((x) => ({ ...x, to: refundedState({ tatUs: x.tatUs }, x.limit, { granted: reservation.granted, unused }) }));
    // A refund a crash loses only forfeits permits: the same asynchronous commit.
    const refunded = await this.sql.tx(
      async (c) => {
        // Several rows: lock them in lane order first, as a reservation does (an UPDATE … FROM
        // locks in whatever order its join yields, and could deadlock with one).
        if (rows.length > 1) await this.sql.q('limiter_lock', [reservation.providerAccount, rows.map((x) => x.row)], c);
        return this.sql.q('limiter_refund', [reservation.providerAccount, rows.map((x) => x.row), rows.map((x) => x.tatUs), rows.map((x) => x.to!.tatUs)], c);
      },
      { asyncCommit: true },
    );
    return refunded.map((x) => String(x.lane));
  }

  async claimWithPermits(r: PermittedClaimRequest): Promise<PermittedClaim> {
    const sources = permitSources(r);
    // Nothing due: answer without taking the limiter's lock. Every idle loop woken by a
    // notification (a code another worker already took) would otherwise queue on that lock
    // behind the claims that do have work (measured: ~120 empty claims/s in bench:campaign).
    // And no more permits than there is work: a code's claim reserves 1, not a batch, so the
    // loops racing for one code leave little to refund.
    const want = await dueCount(this.sql, { ...r, limit: Math.max(0, r.limit) });
    if (want === 0) return { claimed: [], retryAt: null };
    const reservations: PermitReservation[] = [];
    let reserved = 0;
    let retryAt: number | null = null;
    for (const [i, rows] of sources.entries()) {
      if (reserved >= want) break;
      // The first source is the lane's own (or its only one): wait for it. Later ones are
      // borrowed: taken only when free, so a code never queues behind a campaign's claim.
      const res = await this.reservePermits({ providerAccount: r.providerAccount, now: r.now, requested: want - reserved, rows, wait: i === 0 });
      if (res.granted > 0) reservations.push(res);
      reserved += res.granted;
      if (res.retryAt !== null) retryAt = retryAt === null ? res.retryAt : Math.min(retryAt, res.retryAt);
    }
    if (reserved === 0) return { claimed: [], retryAt };
    let claimed: ClaimedDelivery[];
    try {
      claimed = await claimOn(this.sql, { ...r, limit: reserved }, this.sql.pool);
    } catch (err) {
      // Nothing was claimed (the statement is atomic): every permit goes back if it can.
      await this.refundAll(reservations, reserved).catch((e: unknown) =>
        this.sql.log.warn(
          { providerAccount: r.providerAccount, permits: reserved, ...errorFields(e) },
          'store: refunding the permits of a failed claim failed; they are forfeited',
        ),
      );
      throw err;
    }
    await this.refundAll(reservations, reserved - claimed.length);
    // Only when the limiter, not the queue, cut the claim short is there a reason to come back at retryAt.
    return { claimed, retryAt: claimed.length === reserved && reserved < want ? retryAt : null };
  }

  /** Refunds `unused` permits, from the last reservation (a borrowed source) back to the first. */
  private async refundAll(reservations: PermitReservation[], unused: number): Promise<void> {
    let left = unused;
    for (const res of [...reservations].reverse()) {
      if (left <= 0) return;
      const n = Math.min(left, res.granted);
      await this.refundPermits(res, n);
      left -= n;
    }
  }

  async throttleAccount(r: AccountThrottle): Promise<number> {
    const rows: readonly LimiterRow[] = r.rows ?? [{ row: ACCOUNT_LANE, limit: r.limit }];
    const lanes = rows.map((x) => x.row);
    return this.sql.tx(async (c) => {
      // The account's row holds the pause the metrics show, even when no lane draws on it.
      const tats = await this.lock(c, r.providerAccount, [...new Set([...lanes, ACCOUNT_LANE])]);
      const next = rows.map((x) => throttle({ tatUs: tats.get(x.row) ?? 0 }, { ...x.limit, now: r.now, retryAfterMs: r.retryAfterMs }));
      await this.sql.q('limiter_set', [r.providerAccount, lanes, next.map((n) => n.state.tatUs)], c);
      const resumeAt = Math.max(...next.map((n) => n.resumeAt));
      await this.sql.q('limiter_pause', [r.providerAccount, resumeAt, r.now, PAUSE_CONTINUES_WITHIN_MS], c);
      return resumeAt;
    });
  }
}
