/** The operator alert rules and state machine (src/domain/alert-rules.ts, alert-state-machine.ts, alert-targets.ts), case by case. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ALERT_RULES,
  accountOrder,
  evaluateAlerts,
  maskEmail,
  maskPhone,
  maskUrl,
  observe,
  unannounce,
  utcTime,
  type AlertPolicy,
  type AlertSignals,
  type AlertState,
} from '../../src/domain/index.js';

const T0 = Date.UTC(2026, 11, 1, 9, 12, 0);
const S = 1000;
const MIN = 60 * S;

export const quiet = (): AlertSignals => ({
  accounts: [{ id: 'sms-main', failuresLast15m: 0, retryBudgetDegraded: false, pausedUntil: null }],
  unknown: { count: 0, oldestSince: null },
  demoted: [],
  otpDue: [],
  devices: [],
  deadlineMissesLastHour: 0,
  reviewQueueSize: 0,
});
const failing = (n: number): AlertSignals => ({
  ...quiet(),
  accounts: [{ id: 'sms-main', failuresLast15m: n, retryBudgetDegraded: false, pausedUntil: null }],
});
const POLICY: AlertPolicy = { resolveHoldMs: 0, minGapMs: 0, reminderMs: null };

/** Runs evaluations in sequence, committing each one's states as a store would (version + 1 per change). */
function run(steps: Array<{ at: number; signals: AlertSignals }>, policy: AlertPolicy = POLICY) {
  let states: AlertState[] = [];
  const rounds: Array<{ at: number; lines: string[]; kinds: string[] }> = [];
  for (const step of steps) {
    const e = evaluateAlerts({ signals: step.signals, rules: DEFAULT_ALERT_RULES, policy, states, now: step.at });
    const changed = new Set(e.changes.map((c) => `${c.rule} ${c.subject}`));
    states = e.states.map((s) => (changed.has(`${s.rule} ${s.subject}`) ? { ...s, version: s.version + 1 } : s));
    if (e.round) rounds.push({ at: step.at, lines: e.round.lines, kinds: e.round.announcements.map((a) => `${a.kind}:${a.rule}:${a.subject}`) });
  }
  return { states, rounds };
}

describe('alert rules', () => {
  it('words each firing condition in one short line with UTC times and no destination', () => {
    const signals: AlertSignals = {
      accounts: [
        { id: 'sms-main', failuresLast15m: 4, retryBudgetDegraded: true, pausedUntil: T0 + 11 * MIN },
        { id: 'mail', failuresLast15m: 3, retryBudgetDegraded: false, pausedUntil: null },
      ],
      unknown: { count: 2, oldestSince: T0 - 16 * MIN },
      demoted: [
        { providerAccount: 'sms-main', routeKey: '*/sms/otp', reasons: ['slow_delivery'], since: T0 - 3 * MIN },
        { providerAccount: 'sms-main', routeKey: 'acme/sms/default', reasons: ['over_retry_budget'], since: T0 - MIN },
      ],
      otpDue: [{ providerAccount: 'sms-main', count: 3, oldestDueAt: T0 - 95 * S }],
      devices: [
        { id: 'pixel-7', awaySince: T0 - 10 * MIN, awayThresholdSeconds: 120 },
        { id: 'moto-g', awaySince: T0 - 60 * S, awayThresholdSeconds: 120 },
        { id: 'nokia', awaySince: null, awayThresholdSeconds: 120 },
      ],
      deadlineMissesLastHour: 1,
      reviewQueueSize: 7,
    };
    const { observations } = observe({ signals, rules: DEFAULT_ALERT_RULES, now: T0, firing: new Set(), queueSamples: [{ at: T0 - 20 * MIN, size: 2 }] });
    expect(observations.map((o) => [o.rule, o.subject, o.line])).toEqual([
      ['provider_failures', 'sms-main', '4 messages failed on sms-main in the last 15 minutes'],
      ['unknown_old', 'all', '2 unknown, the oldest since 08:56 UTC'],
      ['otp_due_old', 'sms-main', '3 codes waiting on sms-main, the oldest for 95 s'],
      ['retry_budget_degraded', 'sms-main', 'retry budget of sms-main degraded'],
      ['throttle_pause_long', 'sms-main', 'sms-main paused by throttling until 09:23 UTC'],
      ['account_demoted', 'sms-main', 'sms-main demoted in route */sms/otp, acme/sms/default since 09:09 UTC (slow_delivery, over_retry_budget)'],
      ['device_away', 'pixel-7', 'device pixel-7 away since 09:02 UTC'],
      ['deadline_misses', 'all', '1 deadline miss in the last hour'],
      ['review_queue_growing', 'all', 'review queue grew from 2 to 7 since 08:52 UTC'],
    ]);
  });

  it('stays quiet at the thresholds themselves and for disabled rules', () => {
    const signals: AlertSignals = {
      accounts: [{ id: 'sms-main', failuresLast15m: 3, retryBudgetDegraded: false, pausedUntil: T0 + 600 * S }],
      unknown: { count: 1, oldestSince: T0 - 15 * MIN },
      demoted: [],
      otpDue: [{ providerAccount: 'sms-main', count: 1, oldestDueAt: T0 - 60 * S }],
      devices: [{ id: 'pixel-7', awaySince: T0 - 120 * S, awayThresholdSeconds: 120 }],
      deadlineMissesLastHour: 0,
      reviewQueueSize: 2,
    };
    expect(observe({ signals, rules: DEFAULT_ALERT_RULES, now: T0, firing: new Set(), queueSamples: [{ at: T0 - MIN, size: 2 }] }).observations).toEqual([]);
    const off = { ...DEFAULT_ALERT_RULES, provider_failures: { enabled: false, min_failures: 4 } };
    expect(observe({ signals: failing(40), rules: off, now: T0, firing: new Set(), queueSamples: [] }).observations).toEqual([]);
  });

  it('keeps a long throttle pause firing until it ends, not until it is merely shorter', () => {
    const signals = { ...quiet(), accounts: [{ id: 'sms-main', failuresLast15m: 0, retryBudgetDegraded: false, pausedUntil: T0 + 5 * MIN }] };
    const obs = (firing: Set<string>) => observe({ signals, rules: DEFAULT_ALERT_RULES, now: T0, firing, queueSamples: [] }).observations.map((o) => o.rule);
    expect(obs(new Set())).toEqual([]);
    expect(obs(new Set(['throttle_pause_long sms-main']))).toEqual(['throttle_pause_long']);
  });

  it('dates a time that is not on the day of now', () => {
    expect(utcTime(T0, T0)).toBe('09:12 UTC');
    expect(utcTime(T0 - 24 * 60 * MIN, T0)).toBe('2026-11-30 09:12 UTC');
  });

  it('keeps review samples only within the window, one per thirtieth of it', () => {
    let samples: Array<{ at: number; size: number }> = [];
    for (let i = 0; i < 200; i++) {
      samples = observe({
        signals: { ...quiet(), reviewQueueSize: i },
        rules: DEFAULT_ALERT_RULES,
        now: T0 + i * 30 * S,
        firing: new Set(),
        queueSamples: samples,
      }).queueSamples;
    }
    expect(samples.length).toBeLessThanOrEqual(31);
    expect(samples.every((s) => s.at >= T0 + 199 * 30 * S - 1800 * S)).toBe(true);
  });
});

describe('alert state machine', () => {
  it('fires once at four failures, stays silent while failing, and resolves once when clear', () => {
    const { rounds } = run([
      { at: T0, signals: failing(3) },
      { at: T0 + 30 * S, signals: failing(4) },
      { at: T0 + 60 * S, signals: failing(6) },
      { at: T0 + 90 * S, signals: failing(9) },
      { at: T0 + 16 * MIN, signals: failing(0) },
      { at: T0 + 17 * MIN, signals: failing(0) },
    ]);
    expect(rounds).toEqual([
      { at: T0 + 30 * S, lines: ['4 messages failed on sms-main in the last 15 minutes', '1 alert firing now.'], kinds: ['firing:provider_failures:sms-main'] },
      {
        at: T0 + 16 * MIN,
        lines: ['resolved: 9 messages failed on sms-main in the last 15 minutes (firing since 09:12 UTC)', 'Nothing is firing now.'],
        kinds: ['resolved:provider_failures:sms-main'],
      },
    ]);
  });

  it('holds the resolve until the condition has been clear for the hold, and a relapse inside it cancels it', () => {
    const policy = { ...POLICY, resolveHoldMs: 2 * MIN };
    const { rounds } = run(
      [
        { at: T0, signals: failing(4) },
        { at: T0 + MIN, signals: failing(0) },
        { at: T0 + 2 * MIN, signals: failing(5) },
        { at: T0 + 3 * MIN, signals: failing(0) },
        { at: T0 + 4 * MIN, signals: failing(0) },
        { at: T0 + 5 * MIN, signals: failing(0) },
      ],
      policy,
    );
    expect(rounds.map((r) => [r.at, r.kinds])).toEqual([
      [T0, ['firing:provider_failures:sms-main']],
      [T0 + 5 * MIN, ['resolved:provider_failures:sms-main']],
    ]);
  });

  it('holds announcements inside the gap and sends them together; a flap inside the gap is never announced', () => {
    const policy = { ...POLICY, minGapMs: 10 * MIN };
    const twoFailing = {
      ...quiet(),
      accounts: [{ id: 'sms-main', failuresLast15m: 4, retryBudgetDegraded: false, pausedUntil: null }],
      deadlineMissesLastHour: 2,
    };
    const { rounds } = run(
      [
        { at: T0, signals: failing(4) },
        { at: T0 + MIN, signals: twoFailing },
        { at: T0 + 2 * MIN, signals: { ...twoFailing, deadlineMissesLastHour: 0 } },
        { at: T0 + 3 * MIN, signals: { ...quiet(), unknown: { count: 1, oldestSince: T0 - 20 * MIN } } },
        { at: T0 + 10 * MIN, signals: { ...quiet(), unknown: { count: 1, oldestSince: T0 - 20 * MIN } } },
      ],
      policy,
    );
    expect(rounds.map((r) => [r.at, r.kinds])).toEqual([
      [T0, ['firing:provider_failures:sms-main']],
      [T0 + 10 * MIN, ['firing:unknown_old:all', 'resolved:provider_failures:sms-main']],
    ]);
  });

  it('reminds while firing only when a reminder is configured', () => {
    const steps = Array.from({ length: 8 }, (_, i) => ({ at: T0 + i * 10 * MIN, signals: failing(5) }));
    expect(run(steps).rounds).toHaveLength(1);
    const reminded = run(steps, { ...POLICY, reminderMs: 30 * MIN }).rounds;
    expect(reminded.map((r) => r.at)).toEqual([T0, T0 + 30 * MIN, T0 + 60 * MIN]);
    expect(reminded[1]!.lines[0]).toBe('still firing since 09:12 UTC: 5 messages failed on sms-main in the last 15 minutes');
  });

  it('carries the version each change was read at, and reports no change when nothing moved', () => {
    const first = evaluateAlerts({ signals: failing(4), rules: DEFAULT_ALERT_RULES, policy: POLICY, states: [], now: T0 });
    expect(first.changes.map((c) => [c.rule, c.version])).toEqual([
      ['provider_failures', 0],
      ['review_queue_growing', 0],
    ]);
    const stored = first.states.map((s) => ({ ...s, version: 1 }));
    const again = evaluateAlerts({
      signals: failing(4),
      rules: { ...DEFAULT_ALERT_RULES, review_queue_growing: { ...DEFAULT_ALERT_RULES.review_queue_growing, enabled: false } },
      policy: POLICY,
      states: stored,
      now: T0 + S,
    });
    expect(again.changes).toEqual([]);
    expect(again.round).toBeNull();
  });

  it('owes the announcements again when no target took the round', () => {
    const before: AlertState[] = [];
    const e = evaluateAlerts({ signals: failing(4), rules: DEFAULT_ALERT_RULES, policy: POLICY, states: before, now: T0 });
    const committed = e.changes.map((s) => ({ ...s, version: 1 }));
    const back = unannounce(committed, before, e.round!);
    expect(back.map((s) => [s.rule, s.announced, s.announcedAt, s.version])).toEqual([['provider_failures', null, null, 1]]);
    const retry = evaluateAlerts({
      signals: failing(4),
      rules: DEFAULT_ALERT_RULES,
      policy: POLICY,
      states: [...committed.filter((s) => s.rule !== 'provider_failures'), ...back],
      now: T0 + 30 * S,
    });
    expect(retry.round?.announcements.map((a) => a.kind)).toEqual(['firing']);
  });
});

describe('alert targets', () => {
  it('never sends through the account the round is about while another exists', () => {
    expect(accountOrder(['sms-main', 'sms-backup'], new Set(['sms-main']))).toEqual(['sms-backup']);
    expect(accountOrder(['sms-main', 'sms-backup', 'sms-main'], new Set())).toEqual(['sms-main', 'sms-backup']);
    expect(accountOrder(['sms-main'], new Set(['sms-main']))).toEqual(['sms-main']);
  });

  it('masks every target kind', () => {
    expect(maskEmail('oncall@example.com')).toBe('o***@example.com');
    expect(maskEmail('nobody')).toBe('***');
    expect(maskPhone('+4915112345689')).toBe('+4915*******89');
    expect(maskPhone('+1234')).toBe('***');
    expect(maskUrl('https://hooks.example.com:8443/T0/secret-token?x=1')).toBe('https://hooks.example.com:8443/…');
    expect(maskUrl('not a url')).toBe('***');
  });
});
