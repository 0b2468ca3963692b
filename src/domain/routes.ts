/**
 * Routes and failover within a channel (docs/routing.md). A route is the ordered list of
 * provider accounts a tenant's deliveries of one channel and purpose may use. Three pure rules
 * live here:
 *
 * - `failoverReason`: whether a definite answer is one another account could overcome, so the
 *   delivery's next attempt may go to the next healthy account. Never after `unknown`, unless
 *   the account's ambiguity policy for the purpose already accepts a duplicate; never after a
 *   permanent refusal (for the destination or the content, another account would refuse too).
 * - `nextAccount` and `orderRoute`: which account of a route comes next, skipping the demoted
 *   ones; for codes, the fastest healthy account first (`order: latency`).
 * - `evaluateRoute`: the demotion rule, after GOV.UK Notify's (alphagov/notifications-api,
 *   `switch_current_sms_provider_on_slow_delivery`): an account is unhealthy when at least 15 %
 *   of its deliveries accepted in the last 15 minutes took more than 5 minutes to reach
 *   `delivered`, when its definite failures are over its retry budget, or when throttling has
 *   paused it for longer than P. Nothing changes when every account of the route is unhealthy,
 *   nor within a cool-down of the route's last change; a demoted account is restored when its
 *   figures recover.
 *
 * Pure: time comes in as `now`.
 */
import { madeNoCall } from './not-called.js';
import type { SubmitOutcome } from './outcome.js';
import { assessBudget, type RetryBudgetPolicy, DEFAULT_RETRY_BUDGET } from './retry-budget.js';
import type { AmbiguityPolicy, Channel, Purpose } from './vocabulary.js';

/** How a route orders its accounts: as configured, or (codes) by recent intake → delivered latency among the healthy ones. */
export const ROUTE_ORDERS = ['fixed', 'latency'] as const;
export type RouteOrder = (typeof ROUTE_ORDERS)[number];

/** One route: its accounts in the configured order. */
export interface Route {
  tenantId: string;
  channel: Channel;
  /** A purpose, or `default` for every purpose the tenant's channel has no route of its own for. */
  purpose: Purpose | 'default';
  accounts: readonly string[];
  order: RouteOrder;
}

/** The tenant of a route the configuration gives every tenant (`routes.<channel>`); a tenant's own (`routes.tenants.<id>`) comes first. */
export const EVERY_TENANT = '*';

/**
 * The route a tenant's delivery of this channel and purpose takes: the tenant's own for the
 * purpose, else its own `default`, else every tenant's for the purpose, else every tenant's
 * `default`; null when none is configured (the delivery then goes through the channel's one
 * account, as before routes: a one-account route).
 */
export function routeFor(routes: readonly Route[], tenantId: string, channel: Channel, purpose: Purpose): Route | null {
  const find = (tenant: string, p: Purpose | 'default') => routes.find((r) => r.tenantId === tenant && r.channel === channel && r.purpose === p);
  return find(tenantId, purpose) ?? find(tenantId, 'default') ?? find(EVERY_TENANT, purpose) ?? find(EVERY_TENANT, 'default') ?? null;
}

/**
 * Why a delivery's next attempt moved to another account, stored on the attempt that moved it.
 * `accept_duplicate` is the one move after an `unknown`: the account's ambiguity policy for the
 * purpose accepted a duplicate, and the attempt records that it did.
 */
export const FAILOVER_REASONS = ['retryable', 'throttled', 'account_paused', 'over_retry_budget', 'no_phone_online', 'accept_duplicate'] as const;
export type FailoverReason = (typeof FAILOVER_REASONS)[number];

/** What `failoverReason` needs to know about one answer and its account. */
export interface FailoverInput {
  outcome: SubmitOutcome;
  now: number;
  expiresAt: number;
  /** The account's ambiguity policy for the delivery's purpose. */
  ambiguityPolicy: AmbiguityPolicy;
  /** The account's retry budget is spent (domain/retry-budget.ts: more than half of its recent calls failed). */
  overRetryBudget: boolean;
  /** Until when throttling has paused the account, if it is paused now (the limiter's `throttled_until`). */
  pausedUntil: number | null;
  /** The delay the delivery's ladder would wait before its next attempt on this account. */
  ladderDelayMs: number;
}

/** An android_gateway account's answer when none of its phones is online (devices/offer-gateway.ts). */
const NO_PHONE_CODES: ReadonlySet<string> = new Set(['no_device_online', 'device_offline']);

/**
 * Whether another account of the route could overcome this answer, and why; null when the
 * delivery stays on its account (accepted, permanent, a destination-scoped throttle, an
 * `unknown` under any policy but `accept_duplicate`, or an outcome no call produced).
 */
export function failoverReason(i: FailoverInput): FailoverReason | null {
  const o = i.outcome;
  switch (o.kind) {
    case 'accepted':
    case 'permanent':
      // A permanent refusal is for the destination (invalid number, unsubscribed) or the content:
      // another account would refuse it as well, or deliver what the first rightly refused.
      return null;
    case 'unknown':
      // The first submission may have gone out: moving sends a second copy. Only a policy that
      // already accepts a duplicate on this account may move it, and the attempt says so.
      return i.ambiguityPolicy === 'accept_duplicate' ? 'accept_duplicate' : null;
    case 'retryable':
      if (madeNoCall(o)) return null;
      if (NO_PHONE_CODES.has(o.code)) return 'no_phone_online';
      if (i.pausedUntil !== null && i.pausedUntil > i.now) return 'account_paused';
      return i.overRetryBudget ? 'over_retry_budget' : 'retryable';
    case 'throttled': {
      // A device's own limit (scope destination) follows the destination to any account.
      if (o.scope === 'destination') return null;
      // The account is throttled: waiting on it costs the Retry-After (a lower bound; unknown
      // when absent). Worth a move when that is longer than the ladder would wait anyway, or
      // reaches the message's expiry.
      const waitMs = Math.max(o.retryAfterMs ?? Infinity, i.pausedUntil === null ? 0 : i.pausedUntil - i.now);
      if (waitMs > i.ladderDelayMs || i.now + waitMs >= i.expiresAt) return 'throttled';
      return null;
    }
  }
}

/**
 * The account after `current` in the route's order that is not demoted, wrapping around to the
 * start (a primary that recovered is used again); null when every other account is demoted
 * (the delivery stays where it is) or the route has no other account.
 */
export function nextAccount(accounts: readonly string[], current: string, demoted: ReadonlySet<string>): string | null {
  const at = accounts.indexOf(current);
  for (let step = 1; step < accounts.length; step++) {
    const candidate = accounts[(Math.max(at, 0) + step) % accounts.length]!;
    if (candidate !== current && !demoted.has(candidate)) return candidate;
  }
  return null;
}

/**
 * The route's accounts in the order a new delivery tries them: the healthy (not demoted) ones
 * first, then the demoted ones (used only if nothing else is left). `latency`: the healthy ones
 * by their recent mean acceptance → delivered time, fastest first; an account without figures
 * keeps its configured place after those with figures. `fixed`: the configured order.
 */
export function orderRoute(route: Pick<Route, 'accounts' | 'order'>, demoted: ReadonlySet<string>, latencyMs: ReadonlyMap<string, number>): string[] {
  const healthy = route.accounts.filter((a) => !demoted.has(a));
  const rest = route.accounts.filter((a) => demoted.has(a));
  if (route.order === 'latency') {
    const position = new Map(route.accounts.map((a, i) => [a, i] as const));
    healthy.sort((a, b) => {
      const la = latencyMs.get(a) ?? Infinity;
      const lb = latencyMs.get(b) ?? Infinity;
      return la === lb ? position.get(a)! - position.get(b)! : la - lb;
    });
  }
  return [...healthy, ...rest];
}

/**
 * What intake and the worker read of the routes' health without a query of their own: the
 * route evaluator (delivery/route-evaluator.ts) keeps it per process, as of its last pass.
 */
export interface RouteHealthView {
  /** The route's demoted accounts. */
  demotedIn(route: Pick<Route, 'tenantId' | 'channel' | 'purpose'>): ReadonlySet<string>;
  /** Per account, its recent mean acceptance → delivered time (accounts without a delivered callback in the window are absent). */
  latencyMs(): ReadonlyMap<string, number>;
}

/**
 * The accounts a tenant's new delivery of this channel and purpose may take, in the order to try
 * them (`orderRoute`: healthy first, fastest first for `order: latency`, demoted last), or null
 * when no route is configured (the channel's first account, as before routes).
 */
export function routeCandidates(routes: readonly Route[], health: RouteHealthView, tenantId: string, channel: Channel, purpose: Purpose): string[] | null {
  const route = routeFor(routes, tenantId, channel, purpose);
  if (route === null) return null;
  return orderRoute(route, health.demotedIn(route), health.latencyMs());
}

/** The demotion rule's settings for one channel and purpose. */
export interface DemotionPolicy {
  /** Share of accepted deliveries that were slow at or above which an account is unhealthy (Notify: 0.15). */
  slowRatio: number;
  /** How far back accepted deliveries count (Notify: 15 minutes). */
  windowMs: number;
  /** An accepted delivery is slow when it took longer than this to reach `delivered`, or has not after this long (Notify: 5 minutes). */
  slowAfterMs: number;
  /** Fewer accepted deliveries than this in the window say nothing about the account. */
  minAccepted: number;
  /** Throttling that has paused the account for longer than this makes it unhealthy. */
  pausedLongerThanMs: number;
  /** No change to a route within this long of its last one (Notify: 5 minutes). */
  coolDownMs: number;
  /** The retry budget over which definite failures make the account unhealthy. */
  budget: RetryBudgetPolicy;
}

/** Notify's figures (15 % / 15 min / 5 min, 5 min between changes), a minimum of 10 deliveries, 10 minutes paused. */
export const DEFAULT_DEMOTION_POLICY: DemotionPolicy = {
  slowRatio: 0.15,
  windowMs: 15 * 60_000,
  slowAfterMs: 5 * 60_000,
  minAccepted: 10,
  pausedLongerThanMs: 10 * 60_000,
  coolDownMs: 5 * 60_000,
  budget: DEFAULT_RETRY_BUDGET,
};

/** The demotion figures a channel and purpose may set for themselves (the retry budget is the account's, one for all). */
export type DemotionFigures = Omit<DemotionPolicy, 'budget'>;

/**
 * A channel's own demotion figures for one purpose, or for every purpose it does not name
 * (`default`), over the section's (`routes.demotion.<channel>.<purpose>`): a figure it leaves out
 * is the channel's `default`'s, else the section's.
 */
export interface DemotionOverride {
  channel: Channel;
  purpose: Purpose | 'default';
  figures: Partial<DemotionFigures>;
}

/**
 * The demotion rule's settings for a route of this channel and purpose (a route for `default`
 * takes the channel's `default` figures): the section's, overridden figure by figure by the
 * channel's `default`, then by the purpose's own.
 */
export function demotionPolicyFor(
  base: DemotionPolicy,
  overrides: readonly DemotionOverride[],
  channel: Channel,
  purpose: Purpose | 'default',
): DemotionPolicy {
  const of = (p: Purpose | 'default') => overrides.find((o) => o.channel === channel && o.purpose === p)?.figures ?? {};
  return { ...base, ...of('default'), ...(purpose === 'default' ? {} : of(purpose)) };
}

/** One account's figures, read from the store at evaluation time. */
export interface AccountFigures {
  account: string;
  /** Deliveries the account accepted in the window. */
  accepted: number;
  /** Of those, the slow ones: delivered after more than `slowAfterMs`, or still not delivered after that long. */
  slow: number;
  /** Calls in the retry budget's window, and of those the retryable or throttled answers. */
  calls: number;
  failures: number;
  /** Since when throttling has paused the account without a break; null when it is not paused. */
  pausedSince: number | null;
}

/** Why an account is unhealthy, first reason first; empty when it is healthy. */
export const DEMOTION_REASONS = ['slow_delivery', 'over_retry_budget', 'paused_by_throttling'] as const;
export type DemotionReason = (typeof DEMOTION_REASONS)[number];

/** The reasons an account's figures make it unhealthy under the policy. */
export function unhealthyReasons(f: AccountFigures, now: number, p: DemotionPolicy): DemotionReason[] {
  const reasons: DemotionReason[] = [];
  if (f.accepted >= p.minAccepted && f.slow / f.accepted >= p.slowRatio) reasons.push('slow_delivery');
  if (assessBudget({ calls: f.calls, failures: f.failures }, p.budget).state === 'degraded') reasons.push('over_retry_budget');
  if (f.pausedSince !== null && now - f.pausedSince > p.pausedLongerThanMs) reasons.push('paused_by_throttling');
  return reasons;
}

/** What the evaluator knows of a route's past: its demoted accounts and its last change. */
export interface RouteHealthState {
  demoted: ReadonlySet<string>;
  /** When the route last demoted or restored an account; null if never. */
  lastChangeAt: number | null;
}

/** One change the evaluator makes, recorded with the figures it was made on. */
export interface RouteChange {
  action: 'demote' | 'restore';
  account: string;
  /** Why a demotion was made (empty for a restoration: the account's figures recovered). */
  reasons: DemotionReason[];
  figures: AccountFigures;
}

/**
 * At most one change to a route per evaluation (the cool-down then holds the next one back):
 * restore the first demoted account whose figures recovered; else demote the first healthy
 * account whose figures are bad, provided another account of the route stays healthy. An
 * account without figures counts as healthy (no evidence against it).
 */
export function evaluateRoute(
  accounts: readonly string[],
  figures: ReadonlyMap<string, AccountFigures>,
  state: RouteHealthState,
  now: number,
  p: DemotionPolicy,
): RouteChange | null {
  if (state.lastChangeAt !== null && now - state.lastChangeAt < p.coolDownMs) return null;
  const of = (a: string): AccountFigures => figures.get(a) ?? { account: a, accepted: 0, slow: 0, calls: 0, failures: 0, pausedSince: null };
  const bad = new Map(accounts.map((a) => [a, unhealthyReasons(of(a), now, p)] as const));
  const restorable = accounts.find((a) => state.demoted.has(a) && bad.get(a)!.length === 0);
  if (restorable !== undefined) return { action: 'restore', account: restorable, reasons: [], figures: of(restorable) };
  const inService = accounts.filter((a) => !state.demoted.has(a));
  const healthy = inService.filter((a) => bad.get(a)!.length === 0);
  const failing = inService.find((a) => bad.get(a)!.length > 0);
  // Every account unhealthy (or the only one left in service failing): moving traffic helps no one.
  if (failing === undefined || healthy.length === 0) return null;
  return { action: 'demote', account: failing, reasons: bad.get(failing)!, figures: of(failing) };
}
