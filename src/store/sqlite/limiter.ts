/** The SQLite driver's limiter part (see src/store/limiter-store.ts): one IMMEDIATE transaction per request. */
import { acquireJoint, throttle } from '../../domain/index.js';
import {
  ACCOUNT_LANE,
  type AccountThrottle,
  type LimiterStore,
  type PermitGrant,
  type PermitRequest,
  type PermittedClaim,
  type PermittedClaimRequest,
} from '../limiter-store.js';
import type { Row } from '../rows.js';
import { claimDue, nextDue } from './claims.js';
import type { SqliteContext } from './sql-context.js';

/** `store.limiter` of the SQLite store. */
export class SqliteLimiter implements LimiterStore {
  constructor(private readonly sql: SqliteContext) {}

  /** The lane's theoretical arrival time; inside the IMMEDIATE transaction, which holds SQLite's one write lock. */
  private tat(account: string, lane: string): number {
    this.sql.stmt('limiter_ensure').run({ provider_account: account, lane });
    return Number((this.sql.stmt('limiter_lock').get({ provider_account: account, lane }) as Row).tat_us);
  }

  async acquirePermits(r: PermitRequest): Promise<PermitGrant> {
    return this.sql.write(() => {
      const states = [{ tatUs: this.tat(r.providerAccount, r.lane) }, { tatUs: this.tat(r.providerAccount, ACCOUNT_LANE) }];
      const out = acquireJoint(states, { now: r.now, requested: r.requested, limits: [r.laneLimit, r.accountLimit] });
      if (out.granted > 0) {
        this.sql.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: r.lane, tat_us: out.states[0]!.tatUs });
        this.sql.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: ACCOUNT_LANE, tat_us: out.states[1]!.tatUs });
      }
      return { granted: out.granted, retryAt: out.retryAt };
    });
  }

  async claimWithPermits(r: PermittedClaimRequest): Promise<PermittedClaim> {
    // Nothing due: answer without writing (a write transaction is the one lock SQLite has).
    const due = nextDue(this.sql, r.providerAccount, r.now, r.purposes);
    if (due === null || due > r.now) return { claimed: [], retryAt: null };
    return this.sql.write(() => {
      const states = [{ tatUs: this.tat(r.providerAccount, r.lane) }, { tatUs: this.tat(r.providerAccount, ACCOUNT_LANE) }];
      const limits = [r.laneLimit, r.accountLimit];
      const offer = acquireJoint(states, { now: r.now, requested: Math.max(0, r.limit), limits });
      if (offer.granted === 0) return { claimed: [], retryAt: offer.retryAt };
      const claimed = claimDue(this.sql, { ...r, limit: offer.granted });
      // Spend exactly what was claimed (the same arithmetic on the same states grants it).
      const spent = acquireJoint(states, { now: r.now, requested: claimed.length, limits });
      if (spent.granted > 0) {
        this.sql.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: r.lane, tat_us: spent.states[0]!.tatUs });
        this.sql.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: ACCOUNT_LANE, tat_us: spent.states[1]!.tatUs });
      }
      // Only when the limiter, not the queue, cut the claim short is there a reason to come back at retryAt.
      return { claimed, retryAt: claimed.length === offer.granted && offer.granted < r.limit ? offer.retryAt : null };
    });
  }

  async throttleAccount(r: AccountThrottle): Promise<number> {
    return this.sql.write(() => {
      const next = throttle({ tatUs: this.tat(r.providerAccount, ACCOUNT_LANE) }, { ...r.limit, now: r.now, retryAfterMs: r.retryAfterMs });
      this.sql.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: ACCOUNT_LANE, tat_us: next.state.tatUs });
      this.sql.stmt('limiter_pause').run({ provider_account: r.providerAccount, paused_until: next.resumeAt });
      return next.resumeAt;
    });
  }
}
