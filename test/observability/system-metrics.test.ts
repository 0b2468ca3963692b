/**
 * SystemMetrics folds one store snapshot into its gauges: lanes from each account's own lane
 * configuration, devices online/offline against the gateway's away threshold, campaign statuses
 * zero-filled per unfinished campaign, the retry budget from the health window. The store is a
 * stub returning a fixed SystemState (the store reads themselves have their conformance suite).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DeliveryCounters } from '../../src/metrics/counters.js';
import { SystemMetrics } from '../../src/observability/system-metrics.js';
import type { SystemState, SystemStateQuery } from '../../src/store/observability-store.js';
import type { Store } from '../../src/store/store.js';
import { parseExposition, type Family } from './exposition.js';

const NOW = 1_700_000_000_000;
const EMPTY: SystemState = {
  deliveries: [],
  due: [],
  acceptedWithoutProgress: [],
  deadlineMissesLastHour: [],
  providerAccounts: [],
  devices: [],
  campaigns: [],
};

function metricsOver(state: Partial<SystemState>, queries: SystemStateQuery[] = [], mailReportsProgress?: boolean): SystemMetrics {
  const store = {
    observability: {
      systemState: async (q: SystemStateQuery) => {
        queries.push(q);
        return { ...EMPTY, ...state };
      },
    },
  } as unknown as Store;
  return new SystemMetrics({
    store,
    clock: new ManualClock(NOW),
    counters: new DeliveryCounters(),
    accounts: [
      { id: 'mail', channel: 'email', ...(mailReportsProgress === undefined ? {} : { reportsProgress: mailReportsProgress }) },
      {
        id: 'phones',
        channel: 'sms',
        lanes: [
          { name: 'codes', purposes: ['otp'], guaranteed_share: 0.5 },
          { name: 'rest', purposes: ['transactional', 'conversational', 'marketing', 'alert'], guaranteed_share: 0 },
        ],
      },
    ],
    deviceAwayMs: 120_000,
    acceptedProgressAfterMs: 600_000,
    cacheMs: 0,
  });
}

const series = (families: Map<string, Family>, name: string) =>
  Object.fromEntries(families.get(name)!.samples.map((s) => [Object.values(s.labels).join('|'), s.value]));

describe('SystemMetrics', () => {
  it('asks the store with its thresholds, every tenant', async () => {
    const queries: SystemStateQuery[] = [];
    await metricsOver({}, queries).render();
    expect(queries[0]).toEqual({ now: NOW, unknownAfterMs: 15 * 60_000, acceptedProgressAfterMs: 600_000, healthSince: NOW - 60_000 });
  });

  it('reports accepted-without-progress only for accounts that can report progress (an SMTP account never would)', async () => {
    const stuck = { acceptedWithoutProgress: [{ providerAccount: 'mail', channel: 'email' as const, count: 3, oldestUpdatedAt: NOW - 3_600_000 }] };
    const reporting = parseExposition(await metricsOver(stuck).render());
    expect(series(reporting, 'herald_accepted_without_progress')).toEqual({ 'mail|email': 3, 'phones|sms': 0 });
    const silent = parseExposition(await metricsOver(stuck, [], false).render());
    expect(series(silent, 'herald_accepted_without_progress')).toEqual({ 'phones|sms': 0 });
  });

  it("labels due work with the lane each account's configuration gives the purpose, every lane reporting", async () => {
    const m = parseExposition(
      await metricsOver({
        due: [
          { providerAccount: 'phones', purpose: 'otp', count: 3, oldestDueAt: NOW - 4_000 },
          { providerAccount: 'mail', purpose: 'otp', count: 1, oldestDueAt: NOW - 1_000 },
        ],
      }).render(),
    );
    const due = series(m, 'herald_due_deliveries');
    expect(due['phones|codes|otp']).toBe(3);
    expect(due['phones|rest|marketing']).toBe(0);
    // No lanes configured: the default ones (auth carries otp and alert).
    expect(due['mail|auth|otp']).toBe(1);
    expect(due['mail|bulk|transactional']).toBe(0);
    expect(Object.keys(due)).toHaveLength(10);
    expect(series(m, 'herald_due_oldest_age_seconds')['phones|codes|otp']).toBe(4);
  });

  it('counts devices online within the away threshold, and how long each offline one has been away', async () => {
    const device = (id: string, lastSeenAt: number) => ({ id, name: `Phone ${id}`, tenantId: 't', providerAccount: 'phones', lastSeenAt });
    const m = parseExposition(
      await metricsOver({ devices: [device('d1', NOW - 120_000), device('d2', NOW - 120_001), device('d3', NOW - 3_600_000)] }).render(),
    );
    expect(series(m, 'herald_devices')).toEqual({ online: 1, offline: 2 });
    expect(series(m, 'herald_device_away_seconds')).toEqual({ d1: 0, d2: 120.001, d3: 3600 });
    expect(series(m, 'herald_device_away_threshold_seconds')).toEqual({ d1: 120, d2: 120, d3: 120 });
    // No device name (an operator's free text) in any label.
    expect(await metricsOver({ devices: [device('d1', NOW)] }).render()).not.toContain('Phone d1');
  });

  it('reports every status of each unfinished campaign, zeros included', async () => {
    const m = parseExposition(
      await metricsOver({
        campaigns: [
          { campaignId: 'cmp_1', tenantId: 't', status: 'queued', count: 5 },
          { campaignId: 'cmp_1', tenantId: 't', status: 'delivered', count: 2 },
        ],
      }).render(),
    );
    expect(series(m, 'herald_campaign_deliveries')).toEqual({
      'cmp_1|queued': 5,
      'cmp_1|accepted': 0,
      'cmp_1|delivered': 2,
      'cmp_1|failed': 0,
      'cmp_1|suppressed': 0,
      'cmp_1|expired': 0,
    });
  });

  it('judges the retry budget from the health window, and reports accounts the store knows beyond the configured ones', async () => {
    const account = (providerAccount: string, over: object) => ({
      providerAccount,
      failuresLast15m: 0,
      refusedAttemptsLast15m: 0,
      healthCalls: 0,
      healthFailures: 0,
      pausedUntil: null,
      ...over,
    });
    const m = parseExposition(
      await metricsOver({
        providerAccounts: [
          account('phones', { healthCalls: 20, healthFailures: 11, failuresLast15m: 11, refusedAttemptsLast15m: 14 }),
          account('mail', { healthCalls: 19, healthFailures: 19 }),
          account('retired', { failuresLast15m: 2, pausedUntil: NOW + 1_500 }),
        ],
      }).render(),
    );
    // More than half of at least 20 calls: degraded; 19 calls say nothing.
    expect(series(m, 'herald_provider_retry_budget_degraded')).toEqual({ mail: 0, phones: 1, retired: 0 });
    expect(series(m, 'herald_provider_failures_last_15m')).toEqual({ mail: 0, phones: 11, retired: 2 });
    expect(series(m, 'herald_provider_refused_attempts_last_15m')).toEqual({ mail: 0, phones: 14, retired: 0 });
    expect(series(m, 'herald_provider_throttle_pause_remaining_seconds')).toEqual({ mail: 0, phones: 0, retired: 1.5 });
  });
});
