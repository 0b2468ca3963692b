/**
 * The routes part of the Store contract (`store.routes`, docs/routing.md): the figures the
 * demotion evaluator (src/delivery/route-evaluator.ts) reads for every account, and each
 * demotion and restoration it made, with those figures. A change is recorded as the route's next
 * change number, so every process may evaluate every route and exactly one of them records a
 * change made on the same last state. Both drivers implement it; test/store/routes-conformance.ts
 * runs on each.
 */
import type { AccountFigures, DemotionReason } from '../domain/index.js';

/** What a recorded change did to an account within its route. */
export const ROUTE_CHANGE_ACTIONS = ['demote', 'restore'] as const;
export type RouteChangeAction = (typeof ROUTE_CHANGE_ACTIONS)[number];

/** One recorded demotion or restoration. */
export interface RouteChangeRecord {
  routeKey: string;
  /** The route's change number: 1, 2, ... */
  seq: number;
  providerAccount: string;
  action: RouteChangeAction;
  reasons: DemotionReason[];
  figures: AccountFigures;
  decidedAt: number;
}

/** Per account, its accepted deliveries in the window and the slow ones among them. */
export interface AcceptedFigures {
  providerAccount: string;
  accepted: number;
  slow: number;
  /** The mean acceptance → delivered time of those with a delivered callback; null without one. */
  meanDeliveredMs: number | null;
}

/** An account throttling has paused now: until when, and since when without a break (null: not recorded). */
export interface AccountPause {
  providerAccount: string;
  pausedSince: number | null;
  pausedUntil: number;
}

export interface RouteStore {
  /** Per account, the deliveries it accepted since `since` and how many were slow (delivered, or not, more than `slowAfterMs` after acceptance). */
  acceptedFigures(q: { since: number; now: number; slowAfterMs: number }): Promise<AcceptedFigures[]>;
  /**
   * The accounts throttling has paused past `now` (the limiter's account row): the evaluator's
   * `pausedSince`, failover's `pausedUntil`. A lapsed pause is absent: it has no beginning.
   */
  accountPauses(now: number): Promise<AccountPause[]>;
  /** Records a change as number `seq` of its route; false (nothing written) when another process took that number first. */
  recordChange(c: RouteChangeRecord): Promise<boolean>;
  /** Each account's latest change in each route. */
  latestChanges(): Promise<RouteChangeRecord[]>;
  /** The changes since `since`, newest first. */
  recentChanges(since: number, limit: number): Promise<RouteChangeRecord[]>;
}
