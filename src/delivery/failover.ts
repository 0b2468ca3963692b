/**
 * Failover of a queued delivery within its channel (docs/routing.md). After a definite answer
 * another account of the route could overcome, the delivery's next attempt goes to the next
 * healthy account of its route: the move rides on the transition write that schedules the retry
 * (`TransitionWrite.move`), so it costs no statement of its own. The rules are the domain's
 * (`failoverReason`, `nextAccount`); this reads what they need: the delivery's route, the
 * accounts the route evaluator last saw demoted, the account's ambiguity policy for the purpose,
 * until when throttling has paused the account (`account_paused`; a throttled answer waits the
 * longer of its Retry-After and the pause), and (only for the deliveries that would move) which
 * accounts the tenant may use.
 *
 * Never moved: a pinned account (`provider_accounts`), a delivery without a route of two accounts
 * or more, a permanent refusal, an `unknown` unless its policy is `accept_duplicate` (and
 * `routes.on_ambiguity` is `follow_policy`), or when no other healthy account the tenant may use
 * is left.
 */
import {
  ambiguityPolicyFor,
  failoverReason,
  nextAccount,
  routeFor,
  type Channel,
  type Purpose,
  type Route,
  type RouteHealthView,
  type SubmitOutcome,
} from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import { mayUseAccount, type AccountAccess, type FailoverMove, type Store } from '../store/store.js';

/** What the worker and the reconciler know of the routes (config `routes:` and the route evaluator's view). */
export interface FailoverRouting {
  routes: readonly Route[];
  health: RouteHealthView;
  /** `routes.on_ambiguity: follow_policy`: an `unknown` may move where its policy is `accept_duplicate`; `stay`: never. */
  failoverAfterUnknown: boolean;
}

/** The delivery facts a failover decision reads. */
export interface FailoverSubject {
  tenantId: string;
  channel: Channel;
  purpose: Purpose;
  providerAccount: string;
  accountPinned: boolean;
  expiresAt: number;
}

/** The answer's circumstances on the current account. */
export interface FailoverContext {
  now: number;
  /** The account's retry budget is spent (its health buckets: more than half of recent calls failed). */
  overRetryBudget: boolean;
  /** The delay the delivery's ladder plans before its next attempt on this account. */
  ladderDelayMs: number;
}

/** Decides where a delivery goes after an answer; see the file header. */
export class Failover {
  constructor(
    private readonly routing: FailoverRouting,
    private readonly accounts: ReadonlyMap<string, ProviderAccountConfig>,
    private readonly store: Store,
  ) {}

  /**
   * The moves for a batch of answers (null where the delivery stays), in order. Reads the
   * tenants' account access once per tenant, and only when some delivery would move.
   */
  async movesFor(items: ReadonlyArray<{ subject: FailoverSubject; outcome: SubmitOutcome; ctx: FailoverContext }>): Promise<Array<FailoverMove | null>> {
    const pausedUntil = await this.pausesFor(items);
    const proposed = items.map(({ subject, outcome, ctx }) => this.propose(subject, outcome, ctx, pausedUntil.get(subject.providerAccount) ?? null));
    const tenants = [...new Set(items.filter((_, i) => proposed[i] !== null).map((it) => it.subject.tenantId))];
    if (tenants.length === 0) return proposed.map(() => null);
    const access = new Map<string, AccountAccess>();
    for (const t of tenants) access.set(t, await this.store.tenants.accountAccess(t));
    return proposed.map((p, i) => {
      if (p === null) return null;
      const s = items[i]!.subject;
      // Only accounts this tenant may use (a route for every tenant is filtered per tenant, as at intake).
      const usable = p.route.accounts.filter((a) => a === s.providerAccount || mayUseAccount(access.get(s.tenantId)!, s.tenantId, a));
      const to = nextAccount(usable, s.providerAccount, this.routing.health.demotedIn(p.route));
      return to === null ? null : { to, reason: p.reason };
    });
  }

  /**
   * Until when throttling has paused each account (store.routes.accountPauses), read once for
   * the batch and only when one of its answers is one a pause bears on (a retryable or an
   * account-wide throttled answer on a routed account): an accepted batch costs no statement.
   */
  private async pausesFor(
    items: ReadonlyArray<{ subject: FailoverSubject; outcome: SubmitOutcome; ctx: FailoverContext }>,
  ): Promise<ReadonlyMap<string, number>> {
    const bears = items.find(
      ({ subject, outcome }) =>
        (outcome.kind === 'retryable' || (outcome.kind === 'throttled' && outcome.scope !== 'destination')) && this.routeOf(subject) !== null,
    );
    if (bears === undefined) return NO_PAUSES;
    return new Map((await this.store.routes.accountPauses(bears.ctx.now)).map((p) => [p.providerAccount, p.pausedUntil] as const));
  }

  /** The delivery's route when failover may move it (not pinned, two accounts or more); else null. */
  private routeOf(s: FailoverSubject): Route | null {
    if (s.accountPinned) return null;
    const route = routeFor(this.routing.routes, s.tenantId, s.channel, s.purpose);
    return route === null || route.accounts.length < 2 ? null : route;
  }

  /** The route and the reason a move would have, before the tenant's access and the target are looked at. */
  private propose(
    s: FailoverSubject,
    outcome: SubmitOutcome,
    ctx: FailoverContext,
    pausedUntil: number | null,
  ): { route: Route; reason: FailoverMove['reason'] } | null {
    const route = this.routeOf(s);
    if (route === null) return null;
    const a = this.accounts.get(s.providerAccount);
    const reason = failoverReason({
      outcome,
      now: ctx.now,
      expiresAt: s.expiresAt,
      ambiguityPolicy: a ? ambiguityPolicyFor(s.purpose, a.ambiguity_policy, a.ambiguity_policies) : 'wait_for_evidence',
      overRetryBudget: ctx.overRetryBudget,
      // The limiter's pause of the account, if any (a 429 of this batch has already extended it).
      pausedUntil,
      ladderDelayMs: ctx.ladderDelayMs,
    });
    if (reason === null || (reason === 'accept_duplicate' && !this.routing.failoverAfterUnknown)) return null;
    return { route, reason };
  }
}

const NO_PAUSES: ReadonlyMap<string, number> = new Map();
