/**
 * GET /v1/stats: the caller's tenant, read from the store (`store.observability`), so every
 * process answers the same and a restart loses nothing (per-process counters, which GET
 * /v1/stats/counters once served, differed by process and reset on restart). The same facts as the metrics endpoint's state gauges,
 * scoped to one tenant, plus a per-minute (or per-15-minutes) series of what happened and the
 * user reports. The retry budget and a throttle pause belong to the provider account, which
 * every tenant shares; the failure counts are the tenant's own.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import {
  assessBudget,
  DEFAULT_LANES,
  DELIVERY_STATES,
  HEALTH_WINDOW_MS,
  laneFor,
  TERMINAL_REASONS,
  type DeliveryState,
  type TerminalReason,
} from '../../domain/index.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import type { Store } from '../../store/store.js';
import { DEFAULT_REVIEW_UNKNOWN_AFTER_MS } from './review.js';
import { STATS_WINDOWS } from '../stats-schema.js';

const problemRef = { $ref: 'problem#' };

export type StatsWindow = keyof typeof STATS_WINDOWS;

/** Default of config `metrics.accepted_progress_after_s`, in ms. */
const DEFAULT_ACCEPTED_PROGRESS_AFTER_MS = 1_800_000;

export interface StatsRouteDeps {
  store: Store;
  clock: Clock;
  accounts?: readonly ProviderAccountConfig[];
  reviewUnknownAfterMs?: number;
  /** Config `metrics.accepted_progress_after_s`, in ms. Default 30 minutes. */
  acceptedProgressAfterMs?: number;
}

/** Registers GET /v1/stats on an authenticated scope. */
export function statsRoutes(app: FastifyInstance, deps: StatsRouteDeps): void {
  const unknownAfterMs = deps.reviewUnknownAfterMs ?? DEFAULT_REVIEW_UNKNOWN_AFTER_MS;
  const acceptedProgressAfterMs = deps.acceptedProgressAfterMs ?? DEFAULT_ACCEPTED_PROGRESS_AFTER_MS;
  const accounts = deps.accounts ?? [];
  app.get<{ Querystring: { window?: StatsWindow } }>(
    '/v1/stats',
    {
      schema: {
        summary: "The tenant's delivery statistics, from the store",
        description:
          "The caller's tenant only: deliveries per state and terminal reason, the unknown count and age, due work per account, lane and " +
          'purpose, accepted deliveries without downstream progress, deadline misses, the review queue, per provider account its recent ' +
          'failures, retry budget and throttle pause, a series of the last hour (60 one-minute buckets, default) or day (`window=day`, 96 ' +
          'fifteen-minute buckets), and the user reports. Read from the store: the same from every process, and after restarts.',
        tags: ['stats'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { window: { type: 'string', enum: Object.keys(STATS_WINDOWS), description: 'hour (default) or day' } },
        },
        response: { 200: { $ref: 'Stats#' }, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const tenantId = request.tenantId;
      const now = deps.clock.now();
      const windowName: StatsWindow = request.query.window ?? 'hour';
      const w = STATS_WINDOWS[windowName];
      // The last bucket is the one `now` falls in.
      const from = Math.floor(now / w.bucketMs) * w.bucketMs - (w.buckets - 1) * w.bucketMs;
      const [state, series, reports] = await Promise.all([
        deps.store.observability.systemState({ now, tenantId, unknownAfterMs, acceptedProgressAfterMs, healthSince: now - HEALTH_WINDOW_MS }),
        deps.store.observability.statsSeries({ tenantId, from, bucketMs: w.bucketMs, buckets: w.buckets }),
        deps.store.observability.reportCounts(tenantId),
      ]);
      const ageS = (since: number) => Math.max(0, (now - since) / 1000);
      const deliveries = Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;
      const terminal = Object.fromEntries(TERMINAL_REASONS.map((r) => [r, 0])) as Record<TerminalReason, number>;
      let unknownOldest: number | null = null;
      for (const g of state.deliveries) {
        deliveries[g.state] += g.count;
        if (g.state === 'terminal' && g.terminalReason) terminal[g.terminalReason] += g.count;
        if (g.state === 'unknown' && g.count > 0) unknownOldest = Math.min(unknownOldest ?? Infinity, g.oldestUpdatedAt);
      }
      const lanesOf = (id: string) => accounts.find((a) => a.id === id)?.lanes ?? DEFAULT_LANES;
      const known = new Map(state.providerAccounts.map((a) => [a.providerAccount, a]));
      // Configured accounts, and any other with recent failures or refusals (one since removed from configuration).
      const accountIds = [
        ...new Set([
          ...accounts.map((a) => a.id),
          ...state.providerAccounts.filter((a) => a.failuresLast15m > 0 || a.refusedAttemptsLast15m > 0).map((a) => a.providerAccount),
        ]),
      ];
      return {
        at: new Date(now).toISOString(),
        deliveries,
        terminal,
        unknown: { count: deliveries.unknown, oldest_age_seconds: unknownOldest === null ? 0 : ageS(unknownOldest) },
        due: state.due
          .map((d) => ({
            provider_account: d.providerAccount,
            lane: laneFor(d.purpose, lanesOf(d.providerAccount)).name,
            purpose: d.purpose,
            count: d.count,
            oldest_age_seconds: ageS(d.oldestDueAt),
          }))
          .sort((a, b) => a.provider_account.localeCompare(b.provider_account) || a.lane.localeCompare(b.lane) || a.purpose.localeCompare(b.purpose)),
        accepted_without_progress: state.acceptedWithoutProgress
          .map((g) => ({ provider_account: g.providerAccount, channel: g.channel, count: g.count }))
          .sort((a, b) => a.provider_account.localeCompare(b.provider_account) || a.channel.localeCompare(b.channel)),
        deadline_misses_last_hour: state.deadlineMissesLastHour.reduce((n, g) => n + g.count, 0),
        review_queue_size: state.deliveries.reduce((n, g) => n + g.inReview, 0),
        provider_accounts: accountIds.map((id) => {
          const a = known.get(id);
          return {
            id,
            failures_last_15m: a?.failuresLast15m ?? 0,
            refused_attempts_last_15m: a?.refusedAttemptsLast15m ?? 0,
            retry_budget: assessBudget({ calls: a?.healthCalls ?? 0, failures: a?.healthFailures ?? 0 }).state,
            paused_until: a?.pausedUntil == null ? null : new Date(a.pausedUntil).toISOString(),
          };
        }),
        series: {
          window: windowName,
          bucket_seconds: w.bucketMs / 1000,
          points: series.map((p) => ({
            t: new Date(p.t).toISOString(),
            accepted: p.accepted,
            confirmed: p.confirmed,
            failed: p.failed,
            unknown: p.unknown,
            failed_by_account: p.failedByAccount,
            refused_attempts: p.refusedAttempts,
          })),
        },
        reports,
      };
    },
  );
}
