/**
 * The SQLite driver's limiter part (see src/store/limiter-store.ts; what both drivers share is
 * parts/limiter.ts): one IMMEDIATE transaction per request. SQLite has one lock, the database's write lock, so there is no row lock to hold
 * short: a claim reserves, claims and refunds inside one transaction (one commit, one fsync),
 * with the same steps and the same refund rule as PostgreSQL's three transactions. Reservations
 * and refunds on their own (reservePermits, refundPermits) are a transaction each.
 */
import { PAUSE_CONTINUES_WITHIN_MS, acquireJoint, refundedState, throttle, type LimiterRow } from '../../domain/index.js';
import {
  ACCOUNT_LANE,
  type AccountThrottle,
  type PermitReservation,
  type PermitReservationRequest,
  type PermittedClaim,
  type PermittedClaimRequest,
} from '../limiter-store.js';
import { LimiterPart, permitSources } from '../parts/limiter.js';
import type { Row } from '../rows.js';
import { claimDue, dueCount } from './claims.js';
import type { SqliteContext } from './sql-context.js';

/** `store.limiter` of the SQLite store. */
export class SqliteLimiter extends LimiterPart {
  constructor(private readonly sql: SqliteContext) {
    super();
  }

  /** The row's theoretical arrival time; inside the IMMEDIATE transaction, which holds SQLite's one write lock. */
  private tat(account: string, lane: string, wait = true): number {
    this.sql.stmt('limiter_ensure').run({ provider_account: account, lane });
    // Not waiting is the same read here: inside BEGIN IMMEDIATE no other transaction holds a row.
    return Number((this.sql.stmt(wait ? 'limiter_lock' : 'limiter_lock_free').get({ provider_account: account, lane }) as Row).tat_us);
  }

  /** reservePermits' body, inside the caller's transaction. */
  private reserve(r: PermitReservationRequest): PermitReservation {
    const states = r.rows.map((x) => ({ tatUs: this.tat(r.providerAccount, x.row, r.wait ?? true) }));
    const out = acquireJoint(states, { now: r.now, requested: Math.max(0, r.requested), limits: r.rows.map((x) => x.limit) });
    if (out.granted === 0) return { providerAccount: r.providerAccount, granted: 0, retryAt: out.retryAt, rows: [] };
    r.rows.forEach((x, i) => this.sql.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: x.row, tat_us: out.states[i]!.tatUs }));
    return {
      providerAccount: r.providerAccount,
      granted: out.granted,
      retryAt: out.retryAt,
      rows: r.rows.map((x, i) => ({ row: x.row, limit: x.limit, tatUs: out.states[i]!.tatUs })),
    };
  }

  /** refundPermits' body, inside the caller's transaction. */
  private refund(reservation: PermitReservation, unused: number): string[] {
    if (unused <= 0) return [];
    const refunded: string[] = [];
    for (const x of reservation.rows) {
      const to = refundedState({ tatUs: x.tatUs }, x.limit, { granted: reservation.granted, unused });
      const changed = this.sql
        .stmt('limiter_refund')
        .run({ provider_account: reservation.providerAccount, lane: x.row, reserved: x.tatUs, refunded: to!.tatUs }).changes;
      if (changed > 0) refunded.push(x.row);
    }
    return refunded;
  }

  async reservePermits(r: PermitReservationRequest): Promise<PermitReservation> {
    return this.sql.write(() => this.reserve(r));
  }

  async refundPermits(reservation: PermitReservation, unused: number): Promise<string[]> {
    if (unused <= 0 || reservation.rows.length === 0) return [];
    return this.sql.write(() => this.refund(reservation, unused));
  }

  async claimWithPermits(r: PermittedClaimRequest): Promise<PermittedClaim> {
    const sources = permitSources(r);
    // Nothing due: answer without writing (a write transaction is the one lock SQLite has).
    // And no more permits than there is work, as PostgreSQL's claim reserves.
    const want = dueCount(this.sql, { ...r, limit: Math.max(0, r.limit) });
    if (want === 0) return { claimed: [], retryAt: null };
    return this.sql.write(() => {
      const reservations: PermitReservation[] = [];
      let reserved = 0;
      let retryAt: number | null = null;
      for (const [i, rows] of sources.entries()) {
        if (reserved >= want) break;
        const res = this.reserve({ providerAccount: r.providerAccount, now: r.now, requested: want - reserved, rows, wait: i === 0 });
        if (res.granted > 0) reservations.push(res);
        reserved += res.granted;
        if (res.retryAt !== null) retryAt = retryAt === null ? res.retryAt : Math.min(retryAt, res.retryAt);
      }
      if (reserved === 0) return { claimed: [], retryAt };
      const claimed = claimDue(this.sql, { ...r, limit: reserved });
      // Unused permits go back, from the last (borrowed) source to the first; inside this
      // transaction every row is still as its reservation wrote it, so each refund applies.
      let left = reserved - claimed.length;
      for (const res of [...reservations].reverse()) {
        if (left <= 0) break;
        const n = Math.min(left, res.granted);
        this.refund(res, n);
        left -= n;
      }
      // Only when the limiter, not the queue, cut the claim short is there a reason to come back at retryAt.
      return { claimed, retryAt: claimed.length === reserved && reserved < want ? retryAt : null };
    });
  }

  async throttleAccount(r: AccountThrottle): Promise<number> {
    const rows: readonly LimiterRow[] = r.rows ?? [{ row: ACCOUNT_LANE, limit: r.limit }];
    return this.sql.write(() => {
      // The account's row holds the pause the metrics show, even when no lane draws on it.
      this.tat(r.providerAccount, ACCOUNT_LANE);
      let resumeAt = -Infinity;
      for (const x of rows) {
        const next = throttle({ tatUs: this.tat(r.providerAccount, x.row) }, { ...x.limit, now: r.now, retryAfterMs: r.retryAfterMs });
        this.sql.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: x.row, tat_us: next.state.tatUs });
        resumeAt = Math.max(resumeAt, next.resumeAt);
      }
      this.sql
        .stmt('limiter_pause')
        .run({ provider_account: r.providerAccount, paused_until: resumeAt, now: r.now, continues_within_ms: PAUSE_CONTINUES_WITHIN_MS });
      return resumeAt;
    });
  }
}
