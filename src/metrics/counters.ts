/**
 * Delivery counters, kept in one place: every part of Herald that attempts, accepts,
 * expires, supersedes or replays increments its counter here, per channel and purpose.
 * Counters are per process (as Prometheus expects: each process is scraped); the metrics
 * endpoint of a later issue reads them from here.
 */
import type { Channel, Purpose } from '../domain/index.js';

export const COUNTER_NAMES = [
  'api_attempts',
  'accepted_submissions',
  'ambiguous_submissions',
  'expired_challenges',
  'superseded_deliveries',
  'replays',
  'user_resends',
  'user_reported_duplicates',
  'user_reported_not_received',
] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];

export interface CounterLabels {
  channel: Channel;
  purpose: Purpose;
}

export interface CounterSample extends CounterLabels {
  name: CounterName;
  value: number;
}

export class DeliveryCounters {
  private readonly values = new Map<string, CounterSample>();

  /** Adds `n` (default 1) to a counter for one channel and purpose. */
  inc(name: CounterName, labels: CounterLabels, n = 1): void {
    if (n <= 0) return;
    const key = `${name}|${labels.channel}|${labels.purpose}`;
    const cur = this.values.get(key);
    if (cur) cur.value += n;
    else this.values.set(key, { name, channel: labels.channel, purpose: labels.purpose, value: n });
  }

  /** The current value of one counter (0 if never incremented). */
  get(name: CounterName, labels: CounterLabels): number {
    return this.values.get(`${name}|${labels.channel}|${labels.purpose}`)?.value ?? 0;
  }

  /** Sum of a counter over every channel and purpose. */
  total(name: CounterName): number {
    let sum = 0;
    for (const s of this.values.values()) if (s.name === name) sum += s.value;
    return sum;
  }

  /** Every non-zero counter, sorted, as plain objects. */
  snapshot(): CounterSample[] {
    return [...this.values.values()]
      .map((s) => ({ ...s }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.channel.localeCompare(b.channel) || a.purpose.localeCompare(b.purpose));
  }
}
