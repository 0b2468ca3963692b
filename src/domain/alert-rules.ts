/**
 * The operator alert rules (docs/operations.md "Rules"), pure: from one snapshot of the system's signals
 * (what `store.observability` reads, plus devices and provider health) to the conditions that
 * hold now, each with its subject (a provider account, a device, or `all`) and one short line
 * of text for a person. The lines carry account and device ids, counts and UTC times only:
 * never a destination, a body or a code. The state machine over these observations (dedupe,
 * recovery, reminders, rate limit) is in alert-state-machine.ts.
 */

import { isLowBattery, LOW_BATTERY_PERCENT } from './device-health.js';

/** Every rule, in the order their lines appear in a message. */
export const ALERT_RULES = [
  'provider_failures',
  'unknown_old',
  'otp_due_old',
  'retry_budget_degraded',
  'throttle_pause_long',
  'account_demoted',
  'device_away',
  'device_low_battery',
  'deadline_misses',
  'review_queue_growing',
] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

/** The thresholds of each rule (config `alerts.rules`); a disabled rule never fires. */
export interface AlertRulesConfig {
  provider_failures: { enabled: boolean; min_failures: number };
  unknown_old: { enabled: boolean; older_than_seconds: number };
  otp_due_old: { enabled: boolean; older_than_seconds: number };
  retry_budget_degraded: { enabled: boolean };
  throttle_pause_long: { enabled: boolean; longer_than_seconds: number };
  account_demoted: { enabled: boolean };
  device_away: { enabled: boolean };
  device_low_battery: { enabled: boolean };
  deadline_misses: { enabled: boolean; min_misses: number };
  review_queue_growing: { enabled: boolean; min_growth: number; window_seconds: number };
}

/**
 * The defaults: the signals the seeds name, at the thresholds the issue gives (four failures in
 * 15 minutes; an unknown older than the review queue's 15 minutes; a code waiting a minute; a
 * throttle pause over 10 minutes; any deadline miss in the hour; a review queue that grew over
 * half an hour).
 */
export const DEFAULT_ALERT_RULES: AlertRulesConfig = {
  provider_failures: { enabled: true, min_failures: 4 },
  unknown_old: { enabled: true, older_than_seconds: 900 },
  otp_due_old: { enabled: true, older_than_seconds: 60 },
  retry_budget_degraded: { enabled: true },
  throttle_pause_long: { enabled: true, longer_than_seconds: 600 },
  account_demoted: { enabled: true },
  device_away: { enabled: true },
  device_low_battery: { enabled: true },
  deadline_misses: { enabled: true, min_misses: 1 },
  review_queue_growing: { enabled: true, min_growth: 1, window_seconds: 1800 },
};

/** One snapshot of the signals the rules read, every tenant, at one `now`. */
export interface AlertSignals {
  accounts: Array<{
    id: string;
    /** Attempts in the last 15 minutes that were not an acceptance. */
    failuresLast15m: number;
    retryBudgetDegraded: boolean;
    /** When a throttle pause of the account ends; null when not paused. */
    pausedUntil: number | null;
  }>;
  unknown: { count: number; oldestSince: number | null };
  /** Accounts the route evaluator has demoted within a route (docs/routing.md): the route's key, why, and since when. */
  demoted: Array<{ providerAccount: string; routeKey: string; reasons: readonly string[]; since: number }>;
  /** Due otp deliveries per provider account (ready/retryable, next attempt passed, not expired). */
  otpDue: Array<{ providerAccount: string; count: number; oldestDueAt: number }>;
  /**
   * Android gateway devices: when an offline one was last seen (null while online), its away
   * threshold, and its newest health report's battery (null when it never pinged).
   */
  devices: Array<{
    id: string;
    awaySince: number | null;
    awayThresholdSeconds: number;
    battery?: { percent: number | null; charging: boolean | null } | null;
  }>;
  deadlineMissesLastHour: number;
  reviewQueueSize: number;
}

/** A condition that holds now. `value` is the number the line reports (kept for the resolve line). */
export interface AlertObservation {
  rule: AlertRule;
  subject: string;
  value: number;
  line: string;
}

/** A review queue size sample, kept by the review rule between evaluations. */
export interface QueueSample {
  at: number;
  size: number;
}

/** HH:MM in UTC, the way every line states a time; a date is added when it is not `now`'s day. */
export function utcTime(at: number, now: number): string {
  const iso = new Date(at).toISOString();
  const hm = `${iso.slice(11, 16)} UTC`;
  return iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10) ? hm : `${iso.slice(0, 10)} ${hm}`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const ACCOUNT_RULES: readonly string[] = [
  'provider_failures',
  'otp_due_old',
  'retry_budget_degraded',
  'throttle_pause_long',
  'account_demoted',
] satisfies AlertRule[];

/** The provider accounts an observation is about (the ones an alert must not be sent through). */
export function accountSubject(o: { rule: string; subject: string }): string | null {
  return ACCOUNT_RULES.includes(o.rule) ? o.subject : null;
}

export interface ObserveInput {
  signals: AlertSignals;
  rules: AlertRulesConfig;
  now: number;
  /** Keys (`rule subject`) firing before this evaluation: a throttle pause keeps firing until it ends. */
  firing: ReadonlySet<string>;
  /** Review queue samples of earlier evaluations (any order). */
  queueSamples: readonly QueueSample[];
}

/** The key of one alert: its rule and subject. */
export const alertKey = (rule: string, subject: string): string => `${rule} ${subject}`;

/**
 * Every condition that holds at `now`, in rule order, and the review samples to keep (those
 * within the review window, plus this one).
 */
export function observe(input: ObserveInput): { observations: AlertObservation[]; queueSamples: QueueSample[] } {
  const { signals, rules, now } = input;
  const out: AlertObservation[] = [];
  const accounts = [...signals.accounts].sort((a, b) => a.id.localeCompare(b.id));
  if (rules.provider_failures.enabled) {
    for (const a of accounts) {
      if (a.failuresLast15m >= rules.provider_failures.min_failures) {
        out.push({
          rule: 'provider_failures',
          subject: a.id,
          value: a.failuresLast15m,
          line: `${plural(a.failuresLast15m, 'message', 'messages')} failed on ${a.id} in the last 15 minutes`,
        });
      }
    }
  }
  if (rules.unknown_old.enabled && signals.unknown.count > 0 && signals.unknown.oldestSince !== null) {
    if (now - signals.unknown.oldestSince > rules.unknown_old.older_than_seconds * 1000) {
      out.push({
        rule: 'unknown_old',
        subject: 'all',
        value: signals.unknown.count,
        line: `${signals.unknown.count} unknown, the oldest since ${utcTime(signals.unknown.oldestSince, now)}`,
      });
    }
  }
  if (rules.otp_due_old.enabled) {
    for (const d of [...signals.otpDue].sort((a, b) => a.providerAccount.localeCompare(b.providerAccount))) {
      const waitS = Math.floor((now - d.oldestDueAt) / 1000);
      if (d.count > 0 && waitS > rules.otp_due_old.older_than_seconds) {
        out.push({
          rule: 'otp_due_old',
          subject: d.providerAccount,
          value: waitS,
          line: `${plural(d.count, 'code', 'codes')} waiting on ${d.providerAccount}, the oldest for ${waitS} s`,
        });
      }
    }
  }
  if (rules.retry_budget_degraded.enabled) {
    for (const a of accounts) {
      if (a.retryBudgetDegraded) out.push({ rule: 'retry_budget_degraded', subject: a.id, value: 1, line: `retry budget of ${a.id} degraded` });
    }
  }
  if (rules.throttle_pause_long.enabled) {
    for (const a of accounts) {
      if (a.pausedUntil === null || a.pausedUntil <= now) continue;
      const remainingS = Math.ceil((a.pausedUntil - now) / 1000);
      // Hysteresis: a long pause keeps firing until it has ended, not until it is merely shorter.
      if (remainingS > rules.throttle_pause_long.longer_than_seconds || input.firing.has(alertKey('throttle_pause_long', a.id))) {
        out.push({ rule: 'throttle_pause_long', subject: a.id, value: remainingS, line: `${a.id} paused by throttling until ${utcTime(a.pausedUntil, now)}` });
      }
    }
  }
  if (rules.account_demoted.enabled) {
    // One alert per account, whatever its number of routes: it fires at the demotion and resolves at the restoration.
    const byAccount = new Map<string, AlertSignals['demoted']>();
    for (const d of signals.demoted) byAccount.set(d.providerAccount, [...(byAccount.get(d.providerAccount) ?? []), d]);
    for (const [account, ds] of [...byAccount].sort(([a], [b]) => a.localeCompare(b))) {
      const first = ds.reduce((m, d) => (d.since < m.since ? d : m));
      const routes = ds.map((d) => d.routeKey).sort();
      const why = [...new Set(ds.flatMap((d) => d.reasons))].join(', ');
      out.push({
        rule: 'account_demoted',
        subject: account,
        value: ds.length,
        line: `${account} demoted in route ${routes.join(', ')} since ${utcTime(first.since, now)}${why ? ` (${why})` : ''}`,
      });
    }
  }
  if (rules.device_away.enabled) {
    for (const d of [...signals.devices].sort((a, b) => a.id.localeCompare(b.id))) {
      if (d.awaySince !== null && now - d.awaySince > d.awayThresholdSeconds * 1000) {
        out.push({
          rule: 'device_away',
          subject: d.id,
          value: Math.floor((now - d.awaySince) / 1000),
          line: `device ${d.id} away since ${utcTime(d.awaySince, now)}`,
        });
      }
    }
  }
  if (rules.device_low_battery.enabled) {
    for (const d of [...signals.devices].sort((a, b) => a.id.localeCompare(b.id))) {
      const b = d.battery ?? null;
      if (b !== null && isLowBattery({ batteryPercent: b.percent, charging: b.charging })) {
        out.push({
          rule: 'device_low_battery',
          subject: d.id,
          value: b.percent ?? 0,
          line: `device ${d.id} battery at ${b.percent} %, not charging (below ${LOW_BATTERY_PERCENT} %)`,
        });
      }
    }
  }
  if (rules.deadline_misses.enabled && signals.deadlineMissesLastHour >= rules.deadline_misses.min_misses && signals.deadlineMissesLastHour > 0) {
    out.push({
      rule: 'deadline_misses',
      subject: 'all',
      value: signals.deadlineMissesLastHour,
      line: `${plural(signals.deadlineMissesLastHour, 'deadline miss', 'deadline misses')} in the last hour`,
    });
  }
  const windowMs = rules.review_queue_growing.window_seconds * 1000;
  const kept = input.queueSamples.filter((s) => s.at >= now - windowMs && s.at < now).sort((a, b) => a.at - b.at);
  if (rules.review_queue_growing.enabled && kept.length > 0) {
    // Growth across the window: now against the oldest sample still inside it.
    const base = kept[0]!;
    const growth = signals.reviewQueueSize - base.size;
    if (growth >= rules.review_queue_growing.min_growth && growth > 0) {
      out.push({
        rule: 'review_queue_growing',
        subject: 'all',
        value: signals.reviewQueueSize,
        line: `review queue grew from ${base.size} to ${signals.reviewQueueSize} since ${utcTime(base.at, now)}`,
      });
    }
  }
  out.sort((a, b) => ALERT_RULES.indexOf(a.rule) - ALERT_RULES.indexOf(b.rule));
  // One sample per thirtieth of the window is enough resolution and bounds what is kept (30 samples).
  const last = kept[kept.length - 1];
  const samples = last !== undefined && now - last.at < windowMs / 30 ? kept : [...kept, { at: now, size: signals.reviewQueueSize }];
  return { observations: out, queueSamples: samples };
}

/** What the resolve line says about an alert whose firing line was `line`. */
export function resolvedLine(line: string, firingSince: number, now: number): string {
  return `resolved: ${line} (firing since ${utcTime(firingSince, now)})`;
}
