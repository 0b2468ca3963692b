/**
 * The operator alerts' signals, read from the store: one `store.observability.systemState`
 * call across every tenant (the same read the metrics endpoint serves its gauges from), folded
 * into the snapshot the rules take (src/domain/alert-rules.ts). The same truth in every process.
 */
import { assessBudget, HEALTH_WINDOW_MS, type AlertSignals } from '../domain/index.js';
import type { Store } from '../store/store.js';

export interface AlertSignalOptions {
  store: Store;
  /** Configured provider accounts: each is watched even while the store has nothing on it. */
  accounts: readonly string[];
  /** As the review queue: an unknown delivery older than this is listed there. Default 15 minutes. */
  reviewUnknownAfterMs?: number;
  /** After how long silent a gateway device is away (config devices.away_after_seconds). Default 120. */
  deviceAwayAfterSeconds?: number;
  /** Accepted-without-progress is not an alert rule, but the read takes its threshold (config metrics.accepted_progress_after_s). Default 30 minutes. */
  acceptedProgressAfterMs?: number;
}

/** A signal source over the store. */
export function storeAlertSignals(o: AlertSignalOptions): (now: number) => Promise<AlertSignals> {
  const awayS = o.deviceAwayAfterSeconds ?? 120;
  return async (now) => {
    const s = await o.store.observability.systemState({
      now,
      unknownAfterMs: o.reviewUnknownAfterMs ?? 15 * 60_000,
      acceptedProgressAfterMs: o.acceptedProgressAfterMs ?? 1_800_000,
      healthSince: now - HEALTH_WINDOW_MS,
    });
    // Each account's latest change per route: a demotion not yet followed by a restoration.
    const demoted = (await o.store.routes.latestChanges())
      .filter((c) => c.action === 'demote')
      .map((c) => ({ providerAccount: c.providerAccount, routeKey: c.routeKey, reasons: c.reasons, since: c.decidedAt }));
    // Each phone's newest health report (a primary-key range per device), for the battery rule.
    const health = new Map(s.devices.length === 0 ? [] : (await o.store.inbound.latestHealth(s.devices.map((d) => d.id))).map((r) => [r.deviceId, r] as const));
    const stored = new Map(s.providerAccounts.map((a) => [a.providerAccount, a] as const));
    const ids = [...new Set([...o.accounts, ...stored.keys()])];
    const unknown = s.deliveries.filter((g) => g.state === 'unknown');
    const otpDue = new Map<string, { count: number; oldestDueAt: number }>();
    for (const d of s.due) {
      if (d.purpose !== 'otp') continue;
      const prev = otpDue.get(d.providerAccount);
      otpDue.set(
        d.providerAccount,
        prev ? { count: prev.count + d.count, oldestDueAt: Math.min(prev.oldestDueAt, d.oldestDueAt) } : { count: d.count, oldestDueAt: d.oldestDueAt },
      );
    }
    return {
      accounts: ids.map((id) => {
        const a = stored.get(id);
        return {
          id,
          failuresLast15m: a?.failuresLast15m ?? 0,
          retryBudgetDegraded: a ? assessBudget({ calls: a.healthCalls, failures: a.healthFailures }).state === 'degraded' : false,
          pausedUntil: a?.pausedUntil ?? null,
        };
      }),
      unknown: {
        count: unknown.reduce((n, g) => n + g.count, 0),
        oldestSince: unknown.length === 0 ? null : Math.min(...unknown.map((g) => g.oldestUpdatedAt)),
      },
      demoted,
      otpDue: [...otpDue].map(([providerAccount, d]) => ({ providerAccount, ...d })),
      devices: s.devices.map((d) => {
        const report = health.get(d.id);
        return {
          // The name an operator gave the phone reads better than its id; the id stays the subject when it has none.
          id: d.name || d.id,
          awaySince: now - d.lastSeenAt > awayS * 1000 ? d.lastSeenAt : null,
          awayThresholdSeconds: awayS,
          battery: report ? { percent: report.batteryPercent, charging: report.charging } : null,
        };
      }),
      deadlineMissesLastHour: s.deadlineMissesLastHour.reduce((n, g) => n + g.count, 0),
      reviewQueueSize: s.deliveries.reduce((n, g) => n + g.inReview, 0),
    };
  };
}
