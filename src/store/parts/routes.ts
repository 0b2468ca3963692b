/** `store.routes`, written once for both drivers (see ../route-store.ts). */
import type { DemotionReason } from '../../domain/index.js';
import type { AcceptedFigures, AccountPause, RouteChangeRecord, RouteStore } from '../route-store.js';
import type { Row } from '../rows.js';
import type { Executor } from '../sql-executor.js';

/** The demotion evaluator's figures and its recorded changes. */
export class RoutesPart implements RouteStore {
  constructor(private readonly x: Executor) {}

  async acceptedFigures(q: { since: number; now: number; slowAfterMs: number }): Promise<AcceptedFigures[]> {
    const rows = await this.x.all('route_account_figures', { since: q.since, now: q.now, slow_after_ms: q.slowAfterMs });
    return rows.map((r) => ({
      providerAccount: String(r.provider_account),
      accepted: Number(r.accepted),
      slow: Number(r.slow),
      meanDeliveredMs: r.mean_delivered_ms === null || r.mean_delivered_ms === undefined ? null : Number(r.mean_delivered_ms),
    }));
  }

  async accountPauses(now: number): Promise<AccountPause[]> {
    return (await this.x.all('route_account_pauses', { now })).map((r) => ({
      providerAccount: String(r.provider_account),
      pausedSince: r.paused_since === null || r.paused_since === undefined ? null : Number(r.paused_since),
      pausedUntil: Number(r.paused_until),
    }));
  }

  async recordChange(c: RouteChangeRecord): Promise<boolean> {
    const n = await this.x.count('route_change_record', {
      route_key: c.routeKey,
      seq: c.seq,
      provider_account: c.providerAccount,
      action: c.action,
      reasons: c.reasons.join(','),
      accepted: c.figures.accepted,
      slow: c.figures.slow,
      calls: c.figures.calls,
      failures: c.figures.failures,
      paused_since: c.figures.pausedSince,
      decided_at: c.decidedAt,
    });
    return n === 1;
  }

  async latestChanges(): Promise<RouteChangeRecord[]> {
    return (await this.x.all('route_changes_latest', {})).map(toRouteChange);
  }

  async recentChanges(since: number, limit: number): Promise<RouteChangeRecord[]> {
    return (await this.x.all('route_changes_recent', { since, limit })).map(toRouteChange);
  }
}

function toRouteChange(r: Row): RouteChangeRecord {
  const account = String(r.provider_account);
  return {
    routeKey: String(r.route_key),
    seq: Number(r.seq),
    providerAccount: account,
    action: r.action === 'restore' ? 'restore' : 'demote',
    reasons: String(r.reasons)
      .split(',')
      .filter((s) => s !== '') as DemotionReason[],
    figures: {
      account,
      accepted: Number(r.accepted),
      slow: Number(r.slow),
      calls: Number(r.calls),
      failures: Number(r.failures),
      pausedSince: r.paused_since === null || r.paused_since === undefined ? null : Number(r.paused_since),
    },
    decidedAt: Number(r.decided_at),
  };
}
