/**
 * What needs a person, read from GET /v1/stats: the overview's banners, each linking to the list
 * that shows the deliveries concerned. Pure (no DOM), so it is tested under Node
 * (test/web/alerts.test.ts).
 */
import { duration, plural } from './format.js';
import type { Stats } from './types.js';

export interface Alert {
  text: string;
  to: string;
  severity: 'bad' | 'warn';
}

/** The banners for `s`, most urgent kinds first; `now` decides which throttle pauses are still on. */
export function alertsOf(s: Stats, now = Date.now()): Alert[] {
  const alerts: Alert[] = [];
  const since = new Date(now - 15 * 60_000).toISOString();
  for (const a of s.provider_accounts) {
    if (a.failures_last_15m > 0)
      alerts.push({
        severity: 'bad',
        // Messages, not attempts (docs/operations.md, "What counts as a failed message"): a message
        // refused three times counts once, and an offer to a phone is no failure.
        text: `${plural(a.failures_last_15m, 'message')} failed on ${a.id} in the last 15 minutes — review`,
        to: `/messages?${new URLSearchParams({ provider_account: a.id, since }).toString()}`,
      });
    if (a.retry_budget === 'degraded') alerts.push({ severity: 'warn', text: `${a.id}: retry budget degraded, retries are spread out`, to: '/providers' });
    if (a.paused_until && Date.parse(a.paused_until) > now)
      alerts.push({ severity: 'warn', text: `${a.id} is throttled until ${new Date(a.paused_until).toLocaleTimeString()}`, to: '/providers' });
  }
  if (s.unknown.count > 0)
    alerts.push({
      severity: 'warn',
      text: `${plural(s.unknown.count, 'delivery', 'deliveries')} unknown (oldest ${duration(s.unknown.oldest_age_seconds)}) — reconciliation is finding out`,
      to: '/messages?state=unknown',
    });
  if (s.deadline_misses_last_hour > 0)
    alerts.push({
      severity: 'bad',
      text: `${plural(s.deadline_misses_last_hour, 'message')} expired unsent in the last hour`,
      to: '/messages?state=terminal&terminal_reason=expired',
    });
  if (s.review_queue_size > 0)
    alerts.push({ severity: 'warn', text: `${plural(s.review_queue_size, 'delivery', 'deliveries')} in the review queue`, to: '/review' });
  // Failures first, warnings after; each kind keeps its order (Array.prototype.sort is stable).
  return alerts.sort((x, y) => (x.severity === 'bad' ? 0 : 1) - (y.severity === 'bad' ? 0 : 1));
}
