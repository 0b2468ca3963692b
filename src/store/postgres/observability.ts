/** The PostgreSQL driver's observability part (see src/store/observability-store.ts): aggregate reads for the metrics endpoint and GET /v1/stats. */
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
import type { PostgresContext } from './sql-context.js';

/** `store.observability` of the PostgreSQL store. */
export class PostgresObservability implements ObservabilityStore {
  constructor(private readonly sql: PostgresContext) {}

  /**
   * The statements run side by side on the pool, not in one snapshot: a delivery that moves
   * between them may show in one and not the other for one scrape. Gauges tolerate that; a
   * REPEATABLE READ transaction would hold a connection for no gain.
   */
  async systemState(q: SystemStateQuery): Promise<SystemState> {
    const tenant = q.tenantId ?? null;
    const [groups, due, waiting, misses, failures, health, pauses, devices, campaigns] = await Promise.all([
      this.sql.q('observability_deliveries_by_state', [q.now - q.unknownAfterMs, tenant]),
      this.sql.q('observability_due', [q.now, tenant]),
      this.sql.q('observability_accepted_waiting', [q.now - q.acceptedProgressAfterMs, tenant]),
      this.sql.q('observability_deadline_misses', [q.now - DEADLINE_MISS_WINDOW_MS, tenant]),
      this.sql.q('observability_failures', [q.now - FAILURE_WINDOW_MS, tenant]),
      this.sql.q('observability_health', [q.healthSince]),
      this.sql.q('observability_pauses', [q.now]),
      this.sql.q('observability_devices', [tenant]),
      this.sql.q('observability_campaigns', [tenant]),
    ]);
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
        health.map((r) => ({ providerAccount: String(r.provider_account), calls: Number(r.calls), failures: Number(r.failures) })),
        pauses.map((r) => ({ providerAccount: String(r.provider_account), pausedUntil: r.paused_until == null ? null : Number(r.paused_until) })),
        q.now,
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

  /** The three series reads side by side (see systemState on snapshots). */
  async statsSeries(q: StatsSeriesQuery): Promise<StatsBucket[]> {
    const params = [q.tenantId, q.from, q.from + q.bucketMs * q.buckets, q.bucketMs];
    const [attempts, terminal, confirmed] = await Promise.all([
      this.sql.q('observability_series_attempts', params),
      this.sql.q('observability_series_terminal', params),
      this.sql.q('observability_series_confirmed', params),
    ]);
    const buckets = emptyBuckets(q);
    foldSeries(buckets, { attempts, terminal, confirmed });
    return buckets;
  }

  async reportCounts(tenantId: string): Promise<{ duplicate: number; not_received: number }> {
    const rows = await this.sql.q('observability_report_counts', [tenantId]);
    const n = (kind: string) => Number(rows.find((r) => r.kind === kind)?.n ?? 0);
    return { duplicate: n('duplicate'), not_received: n('not_received') };
  }
}
