/** The limits' pure arithmetic: fixed windows and their verdicts, the sliding velocity bound, per-key quotas. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fixedWindow, NO_INTAKE_LIMITS, quotaFor, requestVerdict, velocityVerdict, type VelocityRule } from '../../src/domain/index.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

describe('fixed request windows', () => {
  it('puts a time in the window of whole multiples of its length, and counts seconds to the reset up', () => {
    expect(fixedWindow(T0 + 59_999, 60)).toEqual({ start: T0, resetAt: T0 + 60_000 });
    expect(fixedWindow(T0 + 60_000, 60)).toEqual({ start: T0 + 60_000, resetAt: T0 + 120_000 });
    expect(requestVerdict({ limit: 2, windowS: 60 }, 2, T0 + 59_001)).toEqual({ allowed: true, remaining: 0, resetS: 1 });
    expect(requestVerdict({ limit: 2, windowS: 60 }, 3, T0 + 15_000)).toEqual({ allowed: false, remaining: 0, resetS: 45 });
    expect(requestVerdict({ limit: 2, windowS: 60 }, 1, T0)).toEqual({ allowed: true, remaining: 1, resetS: 60 });
  });

  it("uses a key's own quota over the default, and none when nothing is configured", () => {
    const policy = { ...NO_INTAKE_LIMITS, requests: { limit: 10, windowS: 60 }, requestOverrides: { key_a: { limit: 1, windowS: 1 } } };
    expect(quotaFor(policy, 'key_a')).toEqual({ limit: 1, windowS: 1 });
    expect(quotaFor(policy, 'key_b')).toEqual({ limit: 10, windowS: 60 });
    expect(quotaFor(NO_INTAKE_LIMITS, 'key_a')).toBeNull();
  });
});

describe('velocity', () => {
  const rule: VelocityRule = { subject: 'destination', max: 3, windowMs: 600_000 };

  it('refuses at the bound until the oldest counted event leaves the window, ignoring events outside it', () => {
    expect(velocityVerdict(rule, [T0 + 2, T0 + 1], T0 + 3)).toEqual({ allowed: true });
    expect(velocityVerdict(rule, [T0 + 3, T0 + 2, T0 + 1], T0 + 4)).toEqual({ allowed: false, retryAt: T0 + 1 + 600_000 });
    expect(velocityVerdict(rule, [T0 + 3, T0 + 2, T0 - 600_000], T0 + 4)).toEqual({ allowed: true });
  });

  it('never admits more than max events in any window, whatever the arrival times (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3_000_000 }), { maxLength: 60 }), (gaps) => {
        const accepted: number[] = [];
        let now = T0;
        for (const g of gaps) {
          now += g;
          const v = velocityVerdict(rule, [...accepted].reverse().slice(0, rule.max), now);
          if (v.allowed) accepted.push(now);
          // A refusal's retryAt is when it would pass: never in the past, and one slot is free then.
          else expect(v.retryAt).toBeGreaterThan(now);
        }
        for (const t of accepted) expect(accepted.filter((u) => u > t - rule.windowMs && u <= t).length).toBeLessThanOrEqual(rule.max);
      }),
    );
  });
});
