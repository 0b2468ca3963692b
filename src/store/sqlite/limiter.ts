/** The SQLite driver's rate limiter rows (see src/store/limiter-store.ts): one IMMEDIATE transaction per request. */
import { acquireJoint, throttle } from '../../domain/index.js';
import { ACCOUNT_LANE, type PermitRequest, type PermittedClaimRequest } from '../limiter-store.js';
import type { ClaimedDelivery } from '../store.js';
import type { Row } from '../rows.js';
import type { SqliteStore } from './sqlite-store.js';
import type { RateLimit } from '../../domain/index.js';

/** Limiter methods of the SQLite store. */
export class SqliteLimiter {
  constructor(private readonly s: SqliteStore) {}

  private tat(account: string, lane: string): number {
    this.s.stmt('limiter_ensure').run({ provider_account: account, lane });
    return Number((this.s.stmt('limiter_get').get({ provider_account: account, lane }) as Row).tat_us);
  }

  acquirePermits(r: PermitRequest): { granted: number; retryAt: number | null } {
    const tx = this.s.db.transaction(() => {
      const states = [{ tatUs: this.tat(r.providerAccount, r.lane) }, { tatUs: this.tat(r.providerAccount, ACCOUNT_LANE) }];
      const out = acquireJoint(states, { now: r.now, requested: r.requested, limits: [r.laneLimit, r.accountLimit] });
      if (out.granted > 0) {
        this.s.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: r.lane, tat_us: out.states[0]!.tatUs });
        this.s.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: ACCOUNT_LANE, tat_us: out.states[1]!.tatUs });
      }
      return { granted: out.granted, retryAt: out.retryAt };
    });
    return tx.immediate();
  }

  claimWithPermits(r: PermittedClaimRequest): { claimed: ClaimedDelivery[]; retryAt: number | null } {
    // Nothing due: answer without writing (a write transaction is the one lock SQLite has).
    const due = this.s.nextDueSync(r.providerAccount, r.now, r.purposes);
    if (due === null || due > r.now) return { claimed: [], retryAt: null };
    const tx = this.s.db.transaction(() => {
      const states = [{ tatUs: this.tat(r.providerAccount, r.lane) }, { tatUs: this.tat(r.providerAccount, ACCOUNT_LANE) }];
      const limits = [r.laneLimit, r.accountLimit];
      const offer = acquireJoint(states, { now: r.now, requested: Math.max(0, r.limit), limits });
      if (offer.granted === 0) return { claimed: [], retryAt: offer.retryAt };
      const claimed = this.s.claimSync({ ...r, limit: offer.granted });
      // Spend exactly what was claimed (the same arithmetic on the same states grants it).
      const spent = acquireJoint(states, { now: r.now, requested: claimed.length, limits });
      if (spent.granted > 0) {
        this.s.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: r.lane, tat_us: spent.states[0]!.tatUs });
        this.s.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: ACCOUNT_LANE, tat_us: spent.states[1]!.tatUs });
      }
      // Only when the limiter, not the queue, cut the claim short is there a reason to come back at retryAt.
      return { claimed, retryAt: claimed.length === offer.granted && offer.granted < r.limit ? offer.retryAt : null };
    });
    return tx.immediate();
  }

  throttleAccount(r: { providerAccount: string; now: number; retryAfterMs: number | null; limit: RateLimit }): number {
    const tx = this.s.db.transaction(() => {
      const next = throttle({ tatUs: this.tat(r.providerAccount, ACCOUNT_LANE) }, { ...r.limit, now: r.now, retryAfterMs: r.retryAfterMs });
      this.s.stmt('limiter_set').run({ provider_account: r.providerAccount, lane: ACCOUNT_LANE, tat_us: next.state.tatUs });
      return next.resumeAt;
    });
    return tx.immediate();
  }
}
