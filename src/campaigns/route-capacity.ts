/**
 * The capacity a campaign drains at: when its channel and purpose have a route (docs/routing.md)
 * with more than one account the tenant may use, the route's healthy accounts together, each at
 * its lane's maximum rate for the purpose; else the one account intake would choose. Fan-out
 * spreads the recipients over those accounts in proportion to their rates (`accountForRow`), so
 * the plan's rate is what the workers can actually draw on. A demoted account is left out while
 * another account of the route is healthy, as intake leaves it out of new deliveries.
 */
import { routeFor, type Channel, type Purpose, type Route } from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { RouteChangeRecord } from '../store/store.js';
import { laneCapacity } from './campaign-progress.js';

/** The accounts a campaign drains through, and the lane rate they give together. */
export interface DrainCapacity {
  /** The route's key ("<tenant>/<channel>/<purpose>"), or null when the channel has no route of two accounts or more. */
  route: string | null;
  /** In the route's order, each with its lane for the purpose and that lane's maximum rate, msg/s. */
  accounts: Array<{ account: ProviderAccountConfig; lane: string; maxRate: number }>;
  /** The route's accounts the tenant may use that are not drained through: demoted while another is healthy. */
  leftOut: Array<{ id: string; reason: 'demoted' }>;
  /** The sum of the accounts' lane maxima, msg/s. */
  maxRate: number;
  /** The share of the accounts' provider rate reserved for other lanes (1 − lane rates / provider rates), to turn a lane rate into a provider rate. */
  reservedShare: number;
}

/** The route's demoted accounts as the store's latest changes say (every process reads the same). */
function demotedIn(routeKey: string, latest: readonly RouteChangeRecord[]): Set<string> {
  return new Set(latest.filter((c) => c.routeKey === routeKey && c.action === 'demote').map((c) => c.providerAccount));
}

/**
 * The drain capacity for a tenant's campaign: `first` is the account intake's rule would pick
 * without routes (the fallback); `may` whether the tenant may use an account; `latest` the
 * routes' latest changes (store.routes.latestChanges).
 */
export function drainCapacity(q: {
  routes: readonly Route[];
  accounts: readonly ProviderAccountConfig[];
  tenantId: string;
  channel: Channel;
  purpose: Purpose;
  first: ProviderAccountConfig;
  may: (account: ProviderAccountConfig) => boolean;
  latest: readonly RouteChangeRecord[];
}): DrainCapacity {
  const route = routeFor(q.routes, q.tenantId, q.channel, q.purpose);
  const usable = (route?.accounts ?? []).flatMap((id) => q.accounts.filter((a) => a.id === id && a.channel === q.channel && q.may(a)));
  if (route === null || usable.length < 2) return of(null, usable.length > 0 ? [usable[0]!] : [q.first], [], q.purpose);
  const key = `${route.tenantId}/${route.channel}/${route.purpose}`;
  const demoted = demotedIn(key, q.latest);
  const healthy = usable.filter((a) => !demoted.has(a.id));
  // Every account demoted: intake then sends through the first of them, so the plan does too.
  const chosen = healthy.length > 0 ? healthy : [usable[0]!];
  const leftOut = usable.filter((a) => !chosen.includes(a)).map((a) => ({ id: a.id, reason: 'demoted' as const }));
  return of(key, chosen, leftOut, q.purpose);
}

function of(route: string | null, chosen: ProviderAccountConfig[], leftOut: DrainCapacity['leftOut'], purpose: Purpose): DrainCapacity {
  const accounts = chosen.map((account) => {
    const c = laneCapacity(account, purpose);
    return { account, lane: c.lane, maxRate: c.maxRate };
  });
  const maxRate = accounts.reduce((s, a) => s + a.maxRate, 0);
  const providerRate = chosen.reduce((s, a) => s + a.rate_per_second, 0);
  // One account: its own lanes' reserved share, exactly as before routes.
  const reservedShare = chosen.length === 1 ? laneCapacity(chosen[0]!, purpose).reservedShare : providerRate > 0 ? Math.max(0, 1 - maxRate / providerRate) : 0;
  return { route, accounts, leftOut, maxRate, reservedShare };
}

/** Weyl's sequence step (the golden ratio's fractional part): consecutive positions land evenly over [0, 1). */
const STEP = 0.6180339887498949;

/**
 * The account of the capacity that takes the audience row at `position`, in proportion to the
 * accounts' rates: position × φ mod 1 is spread evenly over [0, 1), so any run of rows is split
 * within a row or two of the rates' ratio, and a batch re-run after a crash picks the same accounts.
 */
export function accountForRow(capacity: DrainCapacity, position: number): string {
  const { accounts } = capacity;
  if (accounts.length === 1 || !(capacity.maxRate > 0)) return accounts[0]!.account.id;
  let x = ((position * STEP) % 1) * capacity.maxRate;
  for (const a of accounts) {
    if (x < a.maxRate) return a.account.id;
    x -= a.maxRate;
  }
  return accounts[accounts.length - 1]!.account.id;
}

/** The capacity as the plan's answer names it (snake_case, rates in msg/s). */
export function capacityJson(c: DrainCapacity) {
  return {
    route: c.route,
    accounts: c.accounts.map((a) => ({ provider_account: a.account.id, lane: a.lane, max_rate: a.maxRate })),
    left_out: c.leftOut.map((l) => ({ provider_account: l.id, reason: l.reason })),
  };
}
