/** GET /v1/provider-accounts: each configured account, its ambiguity policy and its retry budget now. */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { assessBudget, DEFAULT_RETRY_BUDGET } from '../../domain/index.js';
import { HEALTH_WINDOW_MS } from '../../delivery/worker.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import type { Store } from '../../store/store.js';

const problemRef = { $ref: 'problem#' };

/** Registers the provider account routes on an authenticated scope. */
export function providerAccountRoutes(app: FastifyInstance, deps: { store: Store; accounts?: ProviderAccountConfig[]; clock?: Clock }): void {
  app.get(
    '/v1/provider-accounts',
    {
      schema: {
        summary: 'Provider accounts with their retry budget over the last minute',
        tags: ['provider accounts'],
        response: { 401: problemRef },
      },
    },
    async () => {
      const now = deps.clock?.now() ?? Date.now();
      const since = now - HEALTH_WINDOW_MS;
      const items = await Promise.all(
        (deps.accounts ?? []).map(async (a) => {
          const window = await deps.store.providerHealth(a.id, since);
          const budget = assessBudget(window);
          return {
            id: a.id,
            kind: a.kind,
            channel: a.channel,
            rate_per_second: a.rate_per_second,
            burst: a.burst,
            ambiguity_policy: a.ambiguity_policy,
            timeout_ms: a.timeout_ms,
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
          };
        }),
      );
      return { items };
    },
  );
}
