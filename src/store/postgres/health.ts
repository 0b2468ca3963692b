/** The PostgreSQL driver's provider-health part (see src/store/health-store.ts). */
import type { HealthStore, ProviderCalls, ProviderErrorCount, ProviderHealth, RecentErrorWindows, RolloutDecisionCount } from '../health-store.js';
import { toProviderErrorCount, toRolloutDecisionCount } from '../rows.js';
import type { PostgresContext } from './sql-context.js';

/** `store.health` of the PostgreSQL store. */
export class PostgresHealth implements HealthStore {
  constructor(private readonly sql: PostgresContext) {}

  async recordProviderCalls(r: ProviderCalls): Promise<void> {
    await this.sql.q('provider_calls_add', [r.providerAccount, r.bucketStart, r.calls, r.failures]);
  }

  async providerHealth(providerAccount: string, since: number): Promise<ProviderHealth> {
    const [r] = await this.sql.q('provider_health_since', [providerAccount, since]);
    return { calls: Number(r?.calls ?? 0), failures: Number(r?.failures ?? 0) };
  }

  async rolloutDecisions(providerAccount: string, since: number): Promise<RolloutDecisionCount[]> {
    return (await this.sql.q('rollout_decisions_since', [providerAccount, since])).map(toRolloutDecisionCount);
  }

  async recentProviderErrors(w: RecentErrorWindows): Promise<ProviderErrorCount[]> {
    return (await this.sql.q('provider_errors_recent', [w.since15m, w.since1h, w.since24h])).map(toProviderErrorCount);
  }

  async pruneProviderHealth(before: number): Promise<number> {
    return this.sql.count('provider_health_prune', [before]);
  }
}
