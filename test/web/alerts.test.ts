/** The overview's banners (web/src/alerts.ts): what GET /v1/stats says needs a person, and where each banner links. */
import { describe, expect, it } from 'vitest';
import { TERMINAL_REASONS } from '../../src/domain/index.js';
import { alertsOf } from '../../web/src/alerts.js';
import type { Stats } from '../../web/src/types.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

function stats(over: Partial<Stats> = {}): Stats {
  return {
    at: new Date(NOW).toISOString(),
    deliveries: { ready: 0, submitting: 0, accepted: 10, unknown: 0, retryable: 0, terminal: 0 },
    terminal: Object.fromEntries(TERMINAL_REASONS.map((r) => [r, 0])) as Stats['terminal'],
    unknown: { count: 0, oldest_age_seconds: 0 },
    due: [],
    accepted_without_progress: [],
    deadline_misses_last_hour: 0,
    review_queue_size: 0,
    provider_accounts: [{ id: 'sms-main', failures_last_15m: 0, refused_attempts_last_15m: 0, retry_budget: 'healthy', paused_until: null }],
    series: { window: 'hour', bucket_seconds: 60, points: [] },
    reports: { duplicate: 0, not_received: 0 },
    ...over,
  };
}

describe('overview alerts', () => {
  it('says nothing when nothing needs a person', () => {
    expect(alertsOf(stats(), NOW)).toEqual([]);
  });

  it("names the failing account and links to its last 15 minutes' deliveries", () => {
    const [a, ...rest] = alertsOf(
      stats({ provider_accounts: [{ id: 'sms-main', failures_last_15m: 4, refused_attempts_last_15m: 0, retry_budget: 'healthy', paused_until: null }] }),
      NOW,
    );
    expect(rest).toEqual([]);
    expect(a).toMatchObject({ severity: 'bad', text: '4 messages failed on sms-main in the last 15 minutes — review' });
    const link = new URL(a!.to, 'http://x');
    expect(link.pathname).toBe('/messages');
    expect(Object.fromEntries(link.searchParams)).toEqual({ provider_account: 'sms-main', since: new Date(NOW - 15 * 60_000).toISOString() });
  });

  it('puts failures before warnings, and shows a throttle pause only while it lasts', () => {
    const s = stats({
      unknown: { count: 2, oldest_age_seconds: 300 },
      review_queue_size: 1,
      deadline_misses_last_hour: 1,
      provider_accounts: [
        { id: 'a', failures_last_15m: 0, refused_attempts_last_15m: 0, retry_budget: 'degraded', paused_until: new Date(NOW + 30_000).toISOString() },
        { id: 'b', failures_last_15m: 0, refused_attempts_last_15m: 0, retry_budget: 'healthy', paused_until: new Date(NOW - 1).toISOString() },
      ],
    });
    const alerts = alertsOf(s, NOW);
    expect(alerts.map((a) => a.severity)).toEqual(['bad', 'warn', 'warn', 'warn', 'warn']);
    expect(alerts[0]).toMatchObject({ text: '1 message expired unsent in the last hour', to: '/messages?state=terminal&terminal_reason=expired' });
    expect(alerts.map((a) => a.text)).toEqual(
      expect.arrayContaining([
        'a: retry budget degraded, retries are spread out',
        expect.stringMatching(/^a is throttled until /),
        '2 deliveries unknown (oldest 5 min) — reconciliation is finding out',
        '1 delivery in the review queue',
      ]),
    );
    expect(alerts.some((a) => a.text.startsWith('b '))).toBe(false);
  });
});
