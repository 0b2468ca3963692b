/**
 * GET /v1/provider-accounts: each configured account, its lanes, evidence settings, ambiguity
 * policy, rollout stage, its retry budget now and where it stands in its routes (demoted or in
 * service, docs/routing.md), each configured route with its accounts in order and their standing, and the routes' demotions and
 * restorations of the last day; GET /v1/provider-accounts/recent-errors: every
 * account's errors by class over 15 min, 1 h and 24 h; GET /v1/provider-accounts/:id/rollout:
 * what promoting it would change.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import {
  ambiguityPolicyFor,
  assessBudget,
  PURPOSES,
  DEFAULT_LANES,
  DEFAULT_RETRY_BUDGET,
  DEFAULT_ROLLOUT_STAGE,
  EVERY_TENANT,
  HEALTH_WINDOW_MS,
  laneBudgets,
  nextRolloutStage,
  type Route,
} from '../../domain/index.js';
import { HeraldError } from '../../errors.js';
import { DEFAULT_EVIDENCE_WINDOW_S, DEFAULT_LOOKUP_GRACE_S } from '../../delivery/reconciler.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import { providerKind } from '../../providers/registry.js';
import { routeKeyOf } from '../../delivery/route-evaluator.js';
import { mayUseAccount, type ProviderErrorCount, type RolloutDecisionCount, type RouteChangeRecord, type Store } from '../../store/store.js';
import { answer } from '../response-schemas.js';

const problemRef = { $ref: 'problem#' };

/** How far back the list shows the routes' demotions and restorations. */
const ROUTE_CHANGES_WINDOW_MS = 24 * 3_600_000;

/** One demotion or restoration with the figures it was made on. */
function routeChangeJson(c: RouteChangeRecord) {
  return {
    route: c.routeKey,
    provider_account: c.providerAccount,
    action: c.action,
    reasons: c.reasons,
    at: new Date(c.decidedAt).toISOString(),
    figures: figuresJson(c),
  };
}

/** The figures a change was made on, as the API shows them. */
function figuresJson(c: RouteChangeRecord) {
  return { accepted: c.figures.accepted, slow: c.figures.slow, calls: c.figures.calls, failures: c.figures.failures };
}

/**
 * The routes this tenant's deliveries may take (its own and every tenant's), each with the
 * accounts it may use in the configured order and where each stands: demoted or in service,
 * since when (null: never changed), why, and the figures of its last change.
 */
function routesView(routes: readonly Route[], tenantId: string, usable: ReadonlySet<string>, latest: readonly RouteChangeRecord[]) {
  return routes
    .filter((r) => r.tenantId === EVERY_TENANT || r.tenantId === tenantId)
    .map((r) => {
      const key = routeKeyOf(r);
      return {
        route: key,
        tenant: r.tenantId,
        channel: r.channel,
        purpose: r.purpose,
        order: r.order,
        accounts: r.accounts
          .filter((id) => usable.has(id))
          .map((id, i) => {
            const last = latest.find((c) => c.routeKey === key && c.providerAccount === id) ?? null;
            return {
              provider_account: id,
              position: i + 1,
              state: last?.action === 'demote' ? 'demoted' : 'in_service',
              since: last === null ? null : new Date(last.decidedAt).toISOString(),
              reasons: last?.reasons ?? [],
              last_change: last === null ? null : { action: last.action, at: new Date(last.decidedAt).toISOString(), figures: figuresJson(last) },
            };
          }),
      };
    })
    .filter((r) => r.accounts.length > 0);
}

/** The configured accounts this tenant may send through (assigned to it; for the default tenant also those assigned to nobody). */
async function usableAccounts(deps: { store: Store; accounts?: ProviderAccountConfig[] }, tenantId: string): Promise<ProviderAccountConfig[]> {
  const access = await deps.store.tenants.accountAccess(tenantId);
  return (deps.accounts ?? []).filter((a) => mayUseAccount(access, tenantId, a.id));
}

/** Registers the provider account routes on an authenticated scope. */
export function providerAccountRoutes(
  app: FastifyInstance,
  deps: { store: Store; accounts?: ProviderAccountConfig[]; routes?: readonly Route[]; clock: Clock },
): void {
  app.get(
    '/v1/provider-accounts',
    {
      schema: {
        summary: 'The provider accounts this tenant may use, with their retry budget over the last minute and their standing in their routes',
        tags: ['provider accounts'],
        response: { 200: answer.providerAccountList, 401: problemRef },
      },
    },
    async (request) => {
      const now = deps.clock.now();
      const since = now - HEALTH_WINDOW_MS;
      const usable = await usableAccounts(deps, request.tenantId);
      // The routes this tenant's deliveries take: its own and every tenant's (key "<tenant>/<channel>/<purpose>").
      const ids = new Set(usable.map((a) => a.id));
      const visible = (c: RouteChangeRecord) => ids.has(c.providerAccount) && [EVERY_TENANT, request.tenantId].includes(c.routeKey.split('/')[0]!);
      const latest = (await deps.store.routes.latestChanges()).filter(visible);
      const recent = (await deps.store.routes.recentChanges(now - ROUTE_CHANGES_WINDOW_MS, 100)).filter(visible);
      const items = await Promise.all(
        usable.map(async (a) => {
          const window = await deps.store.health.providerHealth(a.id, since);
          const budget = assessBudget(window);
          return {
            id: a.id,
            kind: a.kind,
            channel: a.channel,
            // The kind's settings that are safe to show (host, sender); credentials never are.
            settings: providerKind(a.kind).describe(a),
            rate_per_second: a.rate_per_second,
            burst: a.burst,
            ambiguity_policy: a.ambiguity_policy,
            // The staged rollout: what this account's answers are allowed to trigger (see /rollout for what promoting it would change).
            rollout: a.rollout ?? DEFAULT_ROLLOUT_STAGE,
            // The policy each purpose's unknown deliveries get (per-purpose choices over the account's one).
            ambiguity_policies: Object.fromEntries(PURPOSES.map((p) => [p, ambiguityPolicyFor(p, a.ambiguity_policy, a.ambiguity_policies)])),
            timeout_ms: a.timeout_ms,
            lanes: lanesView(a),
            capabilities: { lookup: a.capabilities?.lookup ?? a.kind === 'sandbox', dedupes_by_key: a.capabilities?.dedupes_by_key ?? false },
            // Whether delivery callbacks are accepted at /v1/callbacks/<id>; the secrets themselves are never shown.
            callbacks: Boolean(a.callback_secrets?.length || a.callback_secret_env),
            evidence_window_seconds: a.evidence_window_seconds ?? DEFAULT_EVIDENCE_WINDOW_S,
            lookup_grace_seconds: a.lookup_grace_seconds ?? DEFAULT_LOOKUP_GRACE_S,
            // Credentials are never shown.
            retry_budget: {
              state: budget.state,
              window_seconds: HEALTH_WINDOW_MS / 1000,
              calls: window.calls,
              failures: window.failures,
              failure_ratio: Math.round(budget.failureRatio * 1000) / 1000,
              degraded_above: DEFAULT_RETRY_BUDGET.degradedAbove,
              min_calls: DEFAULT_RETRY_BUDGET.minCalls,
              spread: 'when degraded, each retry is delayed by up to 2x its wait more (at most 5 min), so retries do not return together',
            },
            // Per route that ever changed it, where the account stands (an account never demoted is in service everywhere).
            routes: latest
              .filter((c) => c.providerAccount === a.id)
              .map((c) => ({
                route: c.routeKey,
                state: c.action === 'demote' ? 'demoted' : 'in_service',
                since: new Date(c.decidedAt).toISOString(),
                reasons: c.reasons,
              })),
          };
        }),
      );
      return { items, routes: routesView(deps.routes ?? [], request.tenantId, ids, latest), route_changes: recent.map(routeChangeJson) };
    },
  );

  // Its own route, not a field of the list: the aggregate reads a day of failed attempts (about
  // 0.5 s for 100,000 on SQLite), and the list is read by every message dialog.
  app.get(
    '/v1/provider-accounts/recent-errors',
    {
      schema: {
        summary: "Every provider account's recent errors by class, over the last 15 minutes, hour and day",
        description:
          'Per configured account: `attempts` counts its calls by failed outcome (retryable, throttled, permanent, unknown, lease_expired), ' +
          '`terminal` its deliveries that ended with a failure reason (exhausted, rejected, expired, unresolved) by when they ended; each with ' +
          '`last_15m`, `last_1h` and `last_24h`. One aggregate query for every account. Credentials are never shown.',
        tags: ['provider accounts'],
        response: { 200: answer.recentErrors, 401: problemRef },
      },
    },
    async () => {
      const now = deps.clock.now();
      const errors = await deps.store.health.recentProviderErrors({ since15m: now - 15 * 60_000, since1h: now - 3_600_000, since24h: now - 24 * 3_600_000 });
      return {
        at: new Date(now).toISOString(),
        items: (deps.accounts ?? []).map((a) => ({ provider_account: a.id, ...recentErrorsJson(errors.filter((e) => e.providerAccount === a.id)) })),
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/provider-accounts/:id/rollout',
    {
      schema: {
        summary: 'What promoting a provider account to its next rollout stage would change, over the last 24 h of its attempts',
        description:
          'Counts the attempts of the last 24 hours that carry rollout decisions by (decision taken, decision the next stage would take). ' +
          '`changes` lists the pairs that differ: what enabling the next stage would have done differently. At `full` the next stage is `full` and nothing differs.',
        tags: ['provider accounts'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: { 200: answer.rolloutSummary, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      // Another tenant's account is as absent as one that is not configured.
      const a = (await usableAccounts(deps, request.tenantId)).find((x) => x.id === request.params.id);
      if (!a) throw new HeraldError('not_found', `no provider account ${request.params.id}`);
      const now = deps.clock.now();
      const since = now - ROLLOUT_WINDOW_MS;
      const stage = a.rollout ?? DEFAULT_ROLLOUT_STAGE;
      const pairs = await deps.store.health.rolloutDecisions(a.id, since);
      const row = (p: RolloutDecisionCount) => ({ decision: p.decision, next_stage_decision: p.nextStageDecision, attempts: p.attempts });
      const changes = pairs.filter((p) => p.decision !== p.nextStageDecision);
      return {
        id: a.id,
        stage,
        next_stage: nextRolloutStage(stage),
        window: { from: new Date(since).toISOString(), to: new Date(now).toISOString() },
        decided_attempts: pairs.reduce((n, p) => n + p.attempts, 0),
        would_change: changes.reduce((n, p) => n + p.attempts, 0),
        changes: changes.map(row),
        decisions: pairs.map(row),
      };
    },
  );
}

/** One account's rows of the recent-errors aggregate, split into call outcomes and terminal reasons. */
function recentErrorsJson(rows: readonly ProviderErrorCount[]) {
  const counts = (r: ProviderErrorCount) => ({ last_15m: r.last15m, last_1h: r.last1h, last_24h: r.last24h });
  return {
    attempts: rows.filter((r) => r.kind === 'attempt').map((r) => ({ class: r.errorClass, ...counts(r) })),
    terminal: rows.filter((r) => r.kind === 'terminal').map((r) => ({ reason: r.errorClass, ...counts(r) })),
  };
}

/** The window the rollout summary counts over: a day of traffic covers the daily cycle of most senders. */
export const ROLLOUT_WINDOW_MS = 24 * 3_600_000;

/**
 * The account's lanes with the rates the limiter gives them: a lane's guaranteed rate is
 * reserved for it, its maximum is what it may reach by borrowing what nobody reserved.
 */
function lanesView(a: ProviderAccountConfig) {
  const lanes = a.lanes ?? DEFAULT_LANES;
  // Concurrency is a worker setting; the rates do not depend on it.
  const budgets = laneBudgets({ rate_per_second: a.rate_per_second, concurrency: 1_000 }, lanes);
  return lanes.map((l, i) => ({
    name: l.name,
    purposes: l.purposes,
    guaranteed_share: l.guaranteed_share,
    guaranteed_rate: budgets.ok ? budgets.value[i]!.guaranteed_rate : null,
    max_rate: budgets.ok ? budgets.value[i]!.max_rate : null,
  }));
}
