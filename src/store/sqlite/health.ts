/** The SQLite driver's provider-health part (see src/store/health-store.ts). */
import type { HealthStore, ProviderCalls, ProviderErrorCount, ProviderHealth, RecentErrorWindows, RolloutDecisionCount } from '../health-store.js';
import { toProviderErrorCount, toRolloutDecisionCount, type Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.health` of the SQLite store. */
export class SqliteHealth implements HealthStore {
  constructor(private readonly sql: SqliteContext) {}

  async recordProviderCalls(r: ProviderCalls): Promise<void> {
    this.sql.stmt('provider_calls_add').run({ provider_account: r.providerAccount, bucket_start: r.bucketStart, calls: r.calls, failures: r.failures });
  }

  async providerHealth(providerAccount: string, since: number): Promise<ProviderHealth> {
    const r = this.sql.stmt('provider_health_since').get({ provider_account: providerAccount, since }) as Row;
    return { calls: Number(r.calls), failures: Number(r.failures) };
  }

  async rolloutDecisions(providerAccount: string, since: number): Promise<RolloutDecisionCount[]> {
    return (this.sql.stmt('rollout_decisions_since').all({ provider_account: providerAccount, since }) as Row[]).map(toRolloutDecisionCount);
  }

  async recentProviderErrors(w: RecentErrorWindows): Promise<ProviderErrorCount[]> {
    const rows = this.sql.stmt('provider_errors_recent').all({ since_15m: w.since15m, since_1h: w.since1h, since_24h: w.since24h }) as Row[];
    return rows.map(toProviderErrorCount);
  }

  async pruneProviderHealth(before: number): Promise<number> {
    return this.sql.stmt('provider_health_prune').run({ before }).changes;
  }
}
