/**
 * The route evaluator (docs/routing.md, "Demotion"): a small periodic service, run on every
 * process, that reads each account's figures from the store (accepted and slow deliveries under
 * each route's own policy, the retry budget's calls, the throttling pause), asks the domain's
 * `evaluateRoute` whether a route should demote or restore an account, and records the change as the route's
 * next change number, so that of several processes evaluating the same state exactly one records
 * it. It keeps what it last read (the demoted accounts per route, each account's recent delivery
 * latency) for its own process: intake and the worker ask `demotedIn(route)` and `latencyMs()`
 * without a query of their own.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { LoopService } from '../periodic/loop-service.js';
import {
  HEALTH_WINDOW_MS,
  demotionPolicyFor,
  evaluateRoute,
  type AccountFigures,
  type DemotionOverride,
  type DemotionPolicy,
  type Route,
  type RouteChange,
  type RouteHealthView,
} from '../domain/index.js';
import type { AcceptedFigures, RouteChangeRecord, Store } from '../store/store.js';

export interface RouteEvaluatorOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The configured routes; only those with two accounts or more can change anything. */
  routes: readonly Route[];
  /** The section's figures (`routes.demotion`); a route's channel and purpose may override them (`overrides`, `demotionPolicyFor`). */
  policy: DemotionPolicy;
  overrides?: readonly DemotionOverride[];
  intervalMs: number;
  /** Told of each change this process recorded (counters, operator alerts). */
  onChange?: (change: RouteChangeRecord) => void;
}

/** The key a route's changes are kept under: "<tenant>/<channel>/<purpose>". */
export function routeKeyOf(r: Pick<Route, 'tenantId' | 'channel' | 'purpose'>): string {
  return `${r.tenantId}/${r.channel}/${r.purpose}`;
}

export class RouteEvaluator extends LoopService implements RouteHealthView {
  /** Per route key, its demoted accounts as last read. */
  private demoted = new Map<string, Set<string>>();
  /** Per account, its mean acceptance → delivered time of the window as last read. */
  private latency: ReadonlyMap<string, number> = new Map();

  constructor(private readonly opts: RouteEvaluatorOptions) {
    super({ intervalMs: opts.intervalMs, logger: opts.logger, what: 'route evaluation' });
  }

  /** The accounts of this route demoted as of the last pass (empty before the first). */
  demotedIn(route: Pick<Route, 'tenantId' | 'channel' | 'purpose'>): ReadonlySet<string> {
    return this.demoted.get(routeKeyOf(route)) ?? EMPTY;
  }

  /** Per account, the mean acceptance → delivered time of the last pass's window (absent: no delivered callback in it). */
  latencyMs(): ReadonlyMap<string, number> {
    return this.latency;
  }

  /** One pass: every route evaluated once; returns the changes this process recorded. */
  override async runOnce(): Promise<RouteChangeRecord[]> {
    const routes = this.opts.routes.filter((r) => r.accounts.length > 1);
    const latest = await this.opts.store.routes.latestChanges();
    this.demoted = demotedOf(latest);
    if (routes.length === 0) return [];
    const now = this.opts.clock.now();
    // Accepted and slow deliveries per account, one query per window and threshold the routes'
    // policies use (the section's always: it gives the latency `order: latency` reads).
    const acceptedBy = new Map<string, ReadonlyMap<string, AcceptedFigures>>();
    const acceptedUnder = async (p: DemotionPolicy): Promise<ReadonlyMap<string, AcceptedFigures>> => {
      const k = `${p.windowMs}/${p.slowAfterMs}`;
      const known = acceptedBy.get(k);
      if (known) return known;
      const rows = await this.opts.store.routes.acceptedFigures({ since: now - p.windowMs, now, slowAfterMs: p.slowAfterMs });
      const m = new Map(rows.map((f) => [f.providerAccount, f] as const));
      acceptedBy.set(k, m);
      return m;
    };
    const base = await acceptedUnder(this.opts.policy);
    this.latency = new Map([...base.values()].flatMap((f) => (f.meanDeliveredMs === null ? [] : [[f.providerAccount, f.meanDeliveredMs] as const])));
    // Since when throttling has paused each account now (the limiter's record; absent: not paused).
    const pausedSince = new Map((await this.opts.store.routes.accountPauses(now)).map((x) => [x.providerAccount, x.pausedSince] as const));
    // The retry budget's window and the pause are the account's, whatever the route.
    const health = new Map<string, { calls: number; failures: number }>();
    for (const account of new Set(routes.flatMap((r) => r.accounts))) {
      health.set(account, await this.opts.store.health.providerHealth(account, now - HEALTH_WINDOW_MS));
    }
    const recorded: RouteChangeRecord[] = [];
    for (const route of routes) {
      const p = demotionPolicyFor(this.opts.policy, this.opts.overrides ?? [], route.channel, route.purpose);
      const accepted = await acceptedUnder(p);
      const figures = new Map<string, AccountFigures>(
        route.accounts.map((account) => {
          const a = accepted.get(account);
          const h = health.get(account)!;
          return [
            account,
            { account, accepted: a?.accepted ?? 0, slow: a?.slow ?? 0, calls: h.calls, failures: h.failures, pausedSince: pausedSince.get(account) ?? null },
          ] as const;
        }),
      );
      const key = routeKeyOf(route);
      const own = latest.filter((c) => c.routeKey === key);
      const last = own.reduce<RouteChangeRecord | null>((m, c) => (m === null || c.seq > m.seq ? c : m), null);
      const change = evaluateRoute(route.accounts, figures, { demoted: this.demotedIn(route), lastChangeAt: last?.decidedAt ?? null }, now, p);
      if (change === null) continue;
      const record = toRecord(key, (last?.seq ?? 0) + 1, change, now);
      if (!(await this.opts.store.routes.recordChange(record))) continue; // another process recorded this change first
      recorded.push(record);
      this.apply(record);
      this.opts.logger.warn(
        {
          route: key,
          providerAccount: record.providerAccount,
          action: record.action,
          reasons: record.reasons,
          accepted: record.figures.accepted,
          slow: record.figures.slow,
          calls: record.figures.calls,
          failures: record.figures.failures,
        },
        record.action === 'demote' ? 'provider account demoted within its route' : 'provider account restored within its route',
      );
      this.opts.onChange?.(record);
    }
    return recorded;
  }

  private apply(c: RouteChangeRecord): void {
    const set = new Set(this.demoted.get(c.routeKey) ?? []);
    if (c.action === 'demote') set.add(c.providerAccount);
    else set.delete(c.providerAccount);
    this.demoted.set(c.routeKey, set);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function demotedOf(latest: readonly RouteChangeRecord[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const c of latest) {
    if (c.action !== 'demote') continue;
    const set = out.get(c.routeKey) ?? new Set<string>();
    set.add(c.providerAccount);
    out.set(c.routeKey, set);
  }
  return out;
}

function toRecord(routeKey: string, seq: number, c: RouteChange, now: number): RouteChangeRecord {
  return { routeKey, seq, providerAccount: c.account, action: c.action, reasons: c.reasons, figures: c.figures, decidedAt: now };
}
