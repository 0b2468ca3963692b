/**
 * Property tests for `evaluateAlerts`: random signal sequences over two accounts and a
 * system-wide rule, random gaps, holds and reminders, a clock that only moves forward, and
 * each evaluation committed as a store would. Each property counts the cases it exercised, so
 * a generator change cannot make it vacuous.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_RULES, evaluateAlerts, type AlertPolicy, type AlertSignals, type AlertState, type Announcement } from '../../src/domain/index.js';

const T0 = Date.UTC(2026, 11, 1, 9, 0, 0);
const NUM_RUNS = 1500;

interface Step {
  dtMs: number;
  main: number;
  backup: number;
  misses: number;
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  dtMs: fc.integer({ min: 1_000, max: 20 * 60_000 }),
  main: fc.integer({ min: 0, max: 8 }),
  backup: fc.integer({ min: 0, max: 8 }),
  misses: fc.integer({ min: 0, max: 2 }),
});
const policyArb: fc.Arbitrary<AlertPolicy> = fc.record({
  resolveHoldMs: fc.constantFrom(0, 30_000, 5 * 60_000),
  minGapMs: fc.constantFrom(0, 60_000, 15 * 60_000),
  reminderMs: fc.option(fc.constantFrom(10 * 60_000, 60 * 60_000), { nil: null }),
});

const signalsOf = (s: Step): AlertSignals => ({
  accounts: [
    { id: 'sms-main', failuresLast15m: s.main, retryBudgetDegraded: false, pausedUntil: null },
    { id: 'sms-backup', failuresLast15m: s.backup, retryBudgetDegraded: false, pausedUntil: null },
  ],
  unknown: { count: 0, oldestSince: null },
  demoted: [],
  otpDue: [],
  devices: [],
  deadlineMissesLastHour: s.misses,
  reviewQueueSize: 0,
});

interface Sent {
  at: number;
  announcements: Announcement[];
}

function simulate(steps: Step[], policy: AlertPolicy): { rounds: Sent[]; states: AlertState[]; now: number } {
  let states: AlertState[] = [];
  let now = T0;
  const rounds: Sent[] = [];
  for (const step of steps) {
    now += step.dtMs;
    const e = evaluateAlerts({ signals: signalsOf(step), rules: DEFAULT_ALERT_RULES, policy, states, now });
    const changed = new Set(e.changes.map((c) => `${c.rule} ${c.subject}`));
    states = e.states.map((s) => (changed.has(`${s.rule} ${s.subject}`) ? { ...s, version: s.version + 1 } : s));
    if (e.round) rounds.push({ at: now, announcements: e.round.announcements });
  }
  return { rounds, states, now };
}

describe('evaluateAlerts properties', () => {
  it('never announces one alert firing twice without a resolve between, unless a reminder is configured', () => {
    let repeated = 0;
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), policyArb, (steps, policy) => {
        const { rounds } = simulate(steps, policy);
        const last = new Map<string, string>();
        for (const r of rounds) {
          for (const a of r.announcements) {
            const key = `${a.rule} ${a.subject}`;
            if (a.kind === 'firing' && last.get(key) === 'firing') {
              repeated++;
              expect(policy.reminderMs).not.toBeNull();
              expect(a.reminder).toBe(true);
            }
            // A resolve always follows an announced firing.
            if (a.kind === 'resolved') expect(last.get(key)).toBe('firing');
            last.set(key, a.kind);
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
    expect(repeated).toBeGreaterThan(0);
  });

  it('keeps rounds at least the minimum gap apart', () => {
    let checked = 0;
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), policyArb, (steps, policy) => {
        const { rounds } = simulate(steps, policy);
        for (let i = 1; i < rounds.length; i++) {
          expect(rounds[i]!.at - rounds[i - 1]!.at).toBeGreaterThanOrEqual(policy.minGapMs);
          if (policy.minGapMs > 0) checked++;
        }
      }),
      { numRuns: NUM_RUNS },
    );
    expect(checked).toBeGreaterThan(0);
  });

  it('catches up: once the signals hold still past the gap and the hold, what was said matches what is true', () => {
    let firingAtEnd = 0;
    let clearAtEnd = 0;
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), policyArb, stepArb, (steps, policy, final) => {
        const settle = Array.from({ length: 4 }, () => ({ ...final, dtMs: 16 * 60_000 }));
        const { states } = simulate([...steps, ...settle], policy);
        for (const s of states) {
          if (s.status === 'firing') {
            firingAtEnd++;
            expect(s.announced).toBe('firing');
          } else {
            clearAtEnd++;
            expect(s.announced).not.toBe('firing');
          }
        }
        // The steady state is the final step's truth.
        const expected = [final.main >= 4 ? 'sms-main' : null, final.backup >= 4 ? 'sms-backup' : null].filter(Boolean);
        const actual = states.filter((s) => s.rule === 'provider_failures' && s.status === 'firing').map((s) => s.subject);
        expect(actual.sort()).toEqual((expected as string[]).sort());
      }),
      { numRuns: NUM_RUNS },
    );
    expect(firingAtEnd).toBeGreaterThan(0);
    expect(clearAtEnd).toBeGreaterThan(0);
  });

  it('changes nothing when evaluated twice at the same instant with the same signals', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 20 }), policyArb, (steps, policy) => {
        const { states, now } = simulate(steps, policy);
        const again = evaluateAlerts({ signals: signalsOf(steps[steps.length - 1]!), rules: DEFAULT_ALERT_RULES, policy, states, now });
        expect(again.round).toBeNull();
        expect(again.changes).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
