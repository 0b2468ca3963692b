/** The SQLite driver's observability part (see src/store/observability-store.ts): aggregate reads for the metrics endpoint and GET /v1/stats. */
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
import type { SqliteContext } from './sql-context.js';

/** `store.observability` of the SQLite store. */
export class SqliteObservability implements ObservabilityStore {
  constructor(private readonly sql: SqliteContext) {}

  /** Every statement in one read transaction: the parts describe the same moment. */
  async systemState(q: SystemStateQuery): Promise<SystemState> {
    const tenant_id = q.tenantId ?? null;
    const all = (name: string, params: Record<string, unknown>) => this.sql.stmt(name).all(params) as Row[];
    const read = this.sql.db.transaction((): SystemState => {
      const groups = all('observability_deliveries_by_state', { unknown_before: q.now - q.unknownAfterMs, tenant_id });
      const due = all('observability_due', { now: q.now, tenant_id });
      const waiting = all('observability_accepted_waiting', { before: q.now - q.acceptedProgressAfterMs, tenant_id });
      const misses = all('observability_deadline_misses', { since: q.now - DEADLINE_MISS_WINDOW_MS, tenant_id });
      const failures = all('observability_failures', { since: q.now - FAILURE_WINDOW_MS, tenant_id });
      const health = all('observability_health', { since: q.healthSince });
      const pauses = all('observability_pauses', { now: q.now });
      const devices = all('observability_devices', { tenant_id });
      const campaigns = all('observability_campaigns', { tenant_id });
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
    });
    return read();
  }

  async statsSeries(q: StatsSeriesQuery): Promise<StatsBucket[]> {
    const params = { tenant_id: q.tenantId, from: q.from, until: q.from + q.bucketMs * q.buckets, bucket_ms: q.bucketMs };
    const read = this.sql.db.transaction(() => {
      const buckets = emptyBuckets(q);
      foldSeries(buckets, {
        attempts: this.sql.stmt('observability_series_attempts').all(params) as Row[],
        terminal: this.sql.stmt('observability_series_terminal').all(params) as Row[],
        confirmed: this.sql.stmt('observability_series_confirmed').all(params) as Row[],
      });
      return buckets;
    });
    return read();
  }

  async reportCounts(tenantId: string): Promise<{ duplicate: number; not_received: number }> {
    const rows = this.sql.stmt('observability_report_counts').all({ tenant_id: tenantId }) as Row[];
    const n = (kind: string) => Number(rows.find((r) => r.kind === kind)?.n ?? 0);
    return { duplicate: n('duplicate'), not_received: n('not_received') };
  }
}
