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
import { readPromql } from './promql-names.js';

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
      accounts: [{ id: 'sms-main', channel: 'sms' }],
    });
    const series = new Map<string, readonly string[]>();
    for (const m of metrics.registry.getMetricsAsArray()) {
      // prom-client keeps a metric's configuration on it; labelNames is not in its typings.
      const labels = (m as { labelNames?: readonly string[] }).labelNames ?? [];
      if (m instanceof Histogram) for (const [name, l] of Object.entries(histogram(m.name, labels))) series.set(name, l);
      else if (m instanceof Summary) for (const suffix of ['', '_sum', '_count']) series.set(`${m.name}${suffix}`, suffix ? labels : [...labels, 'quantile']);
      else series.set(m.name, labels);
    }
    return series;
  } finally {
    await store.close();
  }
}

/** Labels Prometheus adds to every scraped series. */
const SCRAPE_LABELS = ['job', 'instance'];

/**
 * The labels `expr` matches, groups or joins on (and any in `shown`, e.g. a legend's), that none
 * of the series it reads carries: a matcher on one selects nothing, a `by` on one groups nothing,
 * a legend or template showing one renders empty.
 */
export function uncarriedLabels(expr: string, series: ReadonlyMap<string, readonly string[]>, shown: readonly string[] = []): string[] {
  const reads = readPromql(expr);
  const carried = new Set([...SCRAPE_LABELS, ...reads.metrics.flatMap((m) => series.get(m) ?? [])]);
  return [...new Set([...reads.labels, ...shown])].filter((l) => !carried.has(l));
}
