/** `store.observability`, written once for both drivers (see ../observability-store.ts): aggregate reads for the metrics endpoint and GET /v1/stats. */
import type { Channel, DeliveryState, DownstreamStatus, Purpose, TerminalReason } from '../../domain/index.js';
import {
  DEADLINE_MISS_WINDOW_MS,
  FAILURE_WINDOW_MS,
  campaignDeliveryStatus,
  emptyBuckets,
  foldCampaignGroups,
  foldSeries,
  mergeProviderAccounts,
  type ObservabilityStore,
  type StatsBucket,
  type StatsSeriesQuery,
  type SystemState,
  type SystemStateQuery,
} from '../observability-store.js';
import type { Row } from '../rows.js';
import { type Executor, allOf } from '../sql-executor.js';

/** The system's state, aggregated. */
export class ObservabilityPart implements ObservabilityStore {
  constructor(private readonly x: Executor) {}

  /**
   * The statements describe one moment where that is cheap (Executor.reads): SQLite reads them
   * in one snapshot; PostgreSQL runs them side by side on the pool, so a delivery that moves
   * between them may show in one and not the other for one scrape. Gauges tolerate that; a
   * REPEATABLE READ transaction would hold a connection for no gain.
   */
  systemState(q: SystemStateQuery): Promise<SystemState> {
    const tenant_id = q.tenantId ?? null;
    return this.x.reads(function* () {
      const [groups, due, waiting, misses, failures, refusals, health, pauses, devices, campaigns] = (yield* allOf([
        ['observability_deliveries_by_state', { unknown_before: q.now - q.unknownAfterMs, tenant_id }],
        ['observability_due', { now: q.now, tenant_id }],
        ['observability_accepted_waiting', { before: q.now - q.acceptedProgressAfterMs, tenant_id }],
        ['observability_deadline_misses', { since: q.now - DEADLINE_MISS_WINDOW_MS, tenant_id }],
        ['observability_failed_messages', { since: q.now - FAILURE_WINDOW_MS, tenant_id }],
        ['observability_refused_attempts', { since: q.now - FAILURE_WINDOW_MS, tenant_id }],
        ['observability_health', { since: q.healthSince }],
        ['observability_pauses', { now: q.now }],
        ['observability_devices', { tenant_id }],
        ['observability_campaigns', { tenant_id }],
      ])) as [Row[], Row[], Row[], Row[], Row[], Row[], Row[], Row[], Row[], Row[]];
      return systemStateOf(q.now, { groups, due, waiting, misses, failures, refusals, health, pauses, devices, campaigns });
    });
  }

  /** The four series reads (see systemState on snapshots). */
  statsSeries(q: StatsSeriesQuery): Promise<StatsBucket[]> {
    const params = { tenant_id: q.tenantId, from: q.from, until: q.from + q.bucketMs * q.buckets, bucket_ms: q.bucketMs };
    return this.x.reads(function* () {
      const [attempts, failed, unknown, confirmed] = yield* allOf([
        ['observability_series_attempts', params],
        ['observability_series_failed', params],
        ['observability_series_unknown', params],
        ['observability_series_confirmed', params],
      ]);
      const buckets = emptyBuckets(q);
      foldSeries(buckets, { attempts: attempts!, failed: failed!, unknown: unknown!, confirmed: confirmed! });
      return buckets;
    });
  }

  async reportCounts(tenantId: string): Promise<{ duplicate: number; not_received: number }> {
    const rows = await this.x.all('observability_report_counts', { tenant_id: tenantId });
    const n = (kind: string) => Number(rows.find((r) => r.kind === kind)?.n ?? 0);
    return { duplicate: n('duplicate'), not_received: n('not_received') };
  }
}

/** The system state from its reads' rows. */
function systemStateOf(
  now: number,
  rows: Record<'groups' | 'due' | 'waiting' | 'misses' | 'failures' | 'refusals' | 'health' | 'pauses' | 'devices' | 'campaigns', Row[]>,
): SystemState {
  const { groups, due, waiting, misses, failures, refusals, health, pauses, devices, campaigns } = rows;
  return {
    deliveries: groups.map((r) => ({
      state: r.state as DeliveryState,
      terminalReason: (r.terminal_reason ?? null) as TerminalReason | null,
      count: Number(r.n),
      oldestUpdatedAt: Number(r.oldest_updated_at),
      inReview: Number(r.in_review),
    })),
    due: due.map((r) => ({
      providerAccount: String(r.provider_account),
      purpose: r.purpose as Purpose,
      count: Number(r.n),
      oldestDueAt: Number(r.oldest_due_at),
    })),
    acceptedWithoutProgress: waiting.map((r) => ({
      providerAccount: String(r.provider_account),
      channel: r.channel as Channel,
      count: Number(r.n),
      oldestUpdatedAt: Number(r.oldest_updated_at),
    })),
    deadlineMissesLastHour: misses.map((r) => ({ channel: r.channel as Channel, purpose: r.purpose as Purpose, count: Number(r.n) })),
    providerAccounts: mergeProviderAccounts(
      failures.map((r) => ({ providerAccount: String(r.provider_account), count: Number(r.n) })),
      refusals.map((r) => ({ providerAccount: String(r.provider_account), count: Number(r.n) })),
      health.map((r) => ({ providerAccount: String(r.provider_account), calls: Number(r.calls), failures: Number(r.failures) })),
      pauses.map((r) => ({ providerAccount: String(r.provider_account), pausedUntil: r.paused_until == null ? null : Number(r.paused_until) })),
      now,
    ),
    devices: devices.map((r) => ({
      id: String(r.id),
      name: String(r.name),
      tenantId: String(r.tenant_id),
      providerAccount: String(r.provider_account),
      lastSeenAt: Number(r.last_seen_at),
    })),
    campaigns: foldCampaignGroups(
      campaigns.map((r) => ({
        campaignId: String(r.campaign_id),
        tenantId: String(r.tenant_id),
        status: campaignDeliveryStatus(
          r.state as DeliveryState,
          (r.terminal_reason ?? null) as TerminalReason | null,
          (r.downstream_status ?? null) as DownstreamStatus | null,
        ),
        count: Number(r.n),
      })),
    ),
  };
}
