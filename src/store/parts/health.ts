/** `store.health`, written once for both drivers (see ../health-store.ts). */
import type { HealthStore, ProviderCalls, ProviderErrorCount, ProviderHealth, RecentErrorWindows, RolloutDecisionCount } from '../health-store.js';
import { toProviderErrorCount, toRolloutDecisionCount } from '../rows.js';
import type { Executor } from '../sql-executor.js';

/** Provider call counts for the retry budget, and the rollout's decisions. */
export class HealthPart implements HealthStore {
  constructor(private readonly x: Executor) {}

  async recordProviderCalls(r: ProviderCalls): Promise<void> {
    await this.x.count('provider_calls_add', { provider_account: r.providerAccount, bucket_start: r.bucketStart, calls: r.calls, failures: r.failures });
  }

  async providerHealth(providerAccount: string, since: number): Promise<ProviderHealth> {
    const r = await this.x.one('provider_health_since', { provider_account: providerAccount, since });
    return { calls: Number(r?.calls ?? 0), failures: Number(r?.failures ?? 0) };
  }

  async rolloutDecisions(providerAccount: string, since: number): Promise<RolloutDecisionCount[]> {
    return (await this.x.all('rollout_decisions_since', { provider_account: providerAccount, since })).map(toRolloutDecisionCount);
  }

  async recentProviderErrors(w: RecentErrorWindows): Promise<ProviderErrorCount[]> {
    return (await this.x.all('provider_errors_recent', { since_15m: w.since15m, since_1h: w.since1h, since_24h: w.since24h })).map(toProviderErrorCount);
  }

  pruneProviderHealth(before: number): Promise<number> {
    return this.x.count('provider_health_prune', { before });
  }
}
