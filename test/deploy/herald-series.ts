/**
 * The series names Herald's `/metrics` exports, taken from the real registry: a `SystemMetrics`
 * on an in-memory SQLite store with a manual clock (registering reads nothing from the store).
 * A histogram `x` is scraped as `x_bucket`, `x_sum` and `x_count`, so those are its names; a
 * counter keeps its `_total` name as registered.
 */
import { Histogram, Summary } from 'prom-client';
import { ManualClock } from '../../src/clock.js';
import { DeliveryCounters } from '../../src/metrics/counters.js';
import { SystemMetrics } from '../../src/observability/system-metrics.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/**
 * Series of the metrics contract (/tmp/contract-metrics.md, branch metrics2) that the registry
 * does not have yet, with their labels. Emptied when metrics2 lands; until then the deploy/
 * checks accept them.
 */
const PENDING_CONTRACT_SERIES: Readonly<Record<string, readonly string[]>> = {
  herald_accepted_without_progress: ['provider_account', 'channel'],
  herald_deadline_misses_last_hour: ['channel', 'purpose'],
  herald_provider_failures_last_15m: ['provider_account'],
  herald_provider_retry_budget_degraded: ['provider_account'],
  herald_provider_throttle_pause_remaining_seconds: ['provider_account'],
  herald_devices: ['status'],
  herald_device_away_seconds: ['device'],
  herald_device_away_threshold_seconds: ['device'],
  herald_campaign_deliveries: ['campaign', 'status'],
  herald_definite_refusals_total: ['channel', 'purpose', 'class'],
  herald_throttles_total: ['provider_account', 'scope'],
  herald_downstream_signals_total: ['channel', 'status'],
  herald_callbacks_received_total: ['provider_account'],
  herald_callbacks_duplicated_total: ['provider_account'],
  herald_callbacks_refused_total: ['provider_account', 'reason'],
  ...histogram('herald_intake_to_acceptance_seconds', ['channel', 'purpose']),
  ...histogram('herald_provider_call_duration_seconds', ['channel', 'purpose', 'provider_account']),
};
/** Labels the registry does not have yet on series it does have (the contract changes them). */
const PENDING_CONTRACT_LABELS: Readonly<Record<string, readonly string[]>> = {
  herald_due_deliveries: ['provider_account', 'lane', 'purpose'],
  herald_due_oldest_age_seconds: ['provider_account', 'lane', 'purpose'],
};

/** The series a histogram is scraped as, each with its labels (`le` on the buckets). */
function histogram(name: string, labels: readonly string[]): Record<string, readonly string[]> {
  return { [`${name}_bucket`]: [...labels, 'le'], [`${name}_sum`]: labels, [`${name}_count`]: labels };
}

/** Every series name a scrape of Herald can carry, with the label names it carries. */
export async function heraldSeries(): Promise<Map<string, readonly string[]>> {
  const store = openSqliteStore({ path: ':memory:' });
  try {
    await store.migrate();
    const metrics = new SystemMetrics({
      store,
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      counters: new DeliveryCounters(),
      providerAccounts: ['sms-main'],
    });
    const series = new Map<string, readonly string[]>(Object.entries(PENDING_CONTRACT_SERIES));
    for (const m of metrics.registry.getMetricsAsArray()) {
      // prom-client keeps a metric's configuration on it; labelNames is not in its typings.
      const labels = PENDING_CONTRACT_LABELS[m.name] ?? (m as { labelNames?: readonly string[] }).labelNames ?? [];
      if (m instanceof Histogram) for (const [name, l] of Object.entries(histogram(m.name, labels))) series.set(name, l);
      else if (m instanceof Summary) for (const suffix of ['', '_sum', '_count']) series.set(`${m.name}${suffix}`, suffix ? labels : [...labels, 'quantile']);
      else series.set(m.name, labels);
    }
    return series;
  } finally {
    await store.close();
  }
}

/** Every series name a scrape of Herald can carry. */
export async function heraldSeriesNames(): Promise<Set<string>> {
  return new Set((await heraldSeries()).keys());
}
