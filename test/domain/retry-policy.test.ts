/** Tests for `nextDelayMs`: the exponential ladder, its cap, jitter bounds and Retry-After. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, nextDelayMs, plannedDelayMs, type RetryPolicy } from '../../src/domain/index.js';

const NONE: RetryPolicy = { maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 5 * 60_000, jitter: 'none' };

/** A Random that replays `values` in order (then repeats the last one). */
function replay(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)] ?? 0;
}

const policyArb: fc.Arbitrary<RetryPolicy> = fc.record({
  maxAttempts: fc.integer({ min: 1, max: 20 }),
  baseDelayMs: fc.integer({ min: 1, max: 120_000 }),
  maxDelayMs: fc.integer({ min: 1, max: 24 * 3_600_000 }),
  jitter: fc.constantFrom('equal' as const, 'none' as const),
});
// Random's contract is [0, 1); include the extremes.
const unitArb = fc.oneof(fc.constant(0), fc.constant(1 - Number.EPSILON), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }));
const attemptsArb = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 10_000 }));

/** The un-jittered delay the policy promises: base doubling per attempt, capped. */
const ladder = (p: RetryPolicy, attemptsMade: number): number => Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** Math.max(0, attemptsMade - 1));

describe('nextDelayMs', () => {
  it('default policy: 8 attempts, 1 s doubling to 5 min, equal jitter', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 300_000, jitter: 'equal' });
  });

  it('without jitter walks the doubling ladder and stops at the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => nextDelayMs(NONE, n, replay(0.5)));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000]);
  });

  it('treats zero attempts like one', () => {
    expect(nextDelayMs(NONE, 0, replay(0.5))).toBe(1_000);
  });

  it('stays finite for absurd attempt counts (the exponent is capped)', () => {
    const p = { ...NONE, maxDelayMs: Number.MAX_SAFE_INTEGER };
    expect(nextDelayMs(p, 1_000_000, replay(0.5))).toBe(1_000 * 2 ** 30);
  });

  it('equal jitter stays in [d/2, d]', () => {
    expect(nextDelayMs({ ...NONE, jitter: 'equal' }, 3, replay(0))).toBe(2_000);
    expect(nextDelayMs({ ...NONE, jitter: 'equal' }, 3, replay(0.5))).toBe(3_000);
    expect(nextDelayMs({ ...NONE, jitter: 'equal' }, 3, replay(1 - Number.EPSILON))).toBe(4_000);
  });

  it('Retry-After above the backoff wins; without jitter exactly', () => {
    expect(nextDelayMs(NONE, 1, replay(0.5), 30_000)).toBe(30_000);
    // It may exceed maxDelayMs: the provider's word beats our cap.
    expect(nextDelayMs(NONE, 1, replay(0.5), 3_600_000)).toBe(3_600_000);
  });

  it('Retry-After gets at most 10% (capped at 1 s) of spread on top with jitter', () => {
    const p = { ...NONE, jitter: 'equal' as const };
    // random() is called for the backoff, then for the spread.
    expect(nextDelayMs(p, 1, replay(0, 1 - Number.EPSILON), 5_000)).toBe(5_500);
    expect(nextDelayMs(p, 1, replay(0, 1 - Number.EPSILON), 60_000)).toBe(61_000);
    expect(nextDelayMs(p, 1, replay(0, 0), 60_000)).toBe(60_000);
  });

  it('property: without Retry-After, the delay is the ladder value (none) or within [ladder/2, ladder] (equal)', () => {
    fc.assert(
      fc.property(policyArb, attemptsArb, unitArb, (p, n, u) => {
        const d = nextDelayMs(p, n, () => u);
        const raw = ladder(p, Math.min(n, 31));
        expect(Number.isInteger(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(1);
        if (p.jitter === 'none') expect(d).toBe(Math.ceil(raw));
        else {
          expect(d).toBeGreaterThanOrEqual(Math.ceil(raw / 2));
          expect(d).toBeLessThanOrEqual(Math.ceil(raw));
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it('property: without jitter the delay never decreases as attempts grow', () => {
    fc.assert(
      fc.property(policyArb, fc.integer({ min: 0, max: 60 }), (p, n) => {
        const q = { ...p, jitter: 'none' as const };
        expect(nextDelayMs(q, n + 1, () => 0.5)).toBeGreaterThanOrEqual(nextDelayMs(q, n, () => 0.5));
      }),
      { numRuns: 500 },
    );
  });

  it('property: a positive Retry-After is a lower bound, with bounded spread', () => {
    fc.assert(
      fc.property(
        policyArb,
        attemptsArb,
        unitArb,
        unitArb,
        fc.oneof(fc.integer({ min: 1, max: 3_600_000 }), fc.double({ min: 0.001, max: 1e7, noNaN: true })),
        (p, n, u1, u2, r) => {
          const d = nextDelayMs(p, n, replay(u1, u2), r);
          const raw = ladder(p, Math.min(n, 31));
          expect(Number.isInteger(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(r);
          expect(d).toBeLessThanOrEqual(Math.ceil(Math.max(raw, r + Math.min(1_000, r * 0.1))));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('property: a missing, non-positive or NaN Retry-After changes nothing', () => {
    fc.assert(
      fc.property(policyArb, attemptsArb, unitArb, fc.constantFrom(null, undefined, 0, -1, -60_000, Number.NaN, Number.NEGATIVE_INFINITY), (p, n, u, r) => {
        expect(nextDelayMs(p, n, () => u, r)).toBe(nextDelayMs(p, n, () => u));
      }),
      { numRuns: 500 },
    );
  });

  it('scheduleMs: entry n-1 after attempt n, the last entry repeats, capped at maxDelayMs', () => {
    const p: RetryPolicy = { ...NONE, scheduleMs: [1_000, 5_000, 30_000], maxDelayMs: 20_000 };
    expect([0, 1, 2, 3, 4, 50].map((n) => plannedDelayMs(p, n))).toEqual([1_000, 1_000, 5_000, 20_000, 20_000, 20_000]);
    expect(nextDelayMs(p, 2, replay(0.5))).toBe(5_000);
    // An empty schedule falls back to the doubling backoff.
    expect(plannedDelayMs({ ...NONE, scheduleMs: [] }, 3)).toBe(4_000);
  });

  it('full jitter stays in [1 s, d] (or exactly d below 1 s); up10 in [d, 1.1 d]', () => {
    const full = { ...NONE, jitter: 'full' as const };
    expect(nextDelayMs(full, 4, replay(0))).toBe(1_000);
    expect(nextDelayMs(full, 4, replay(1 - Number.EPSILON))).toBe(8_000);
    expect(nextDelayMs({ ...full, baseDelayMs: 400 }, 1, replay(0))).toBe(400);
    const up10 = { ...NONE, jitter: 'up10' as const };
    expect(nextDelayMs(up10, 4, replay(0))).toBe(8_000);
    expect(nextDelayMs(up10, 4, replay(1 - Number.EPSILON))).toBe(8_800);
  });

  it('property: every jitter mode stays within its bounds of the planned delay, and a Retry-After stays a lower bound', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.constantFrom('equal' as const, 'none' as const, 'full' as const, 'up10' as const),
        fc.option(fc.array(fc.integer({ min: 1, max: 600_000 }), { minLength: 1, maxLength: 6 }), { nil: undefined }),
        attemptsArb,
        unitArb,
        unitArb,
        fc.option(fc.integer({ min: 1, max: 3_600_000 }), { nil: null }),
        (base, jitter, scheduleMs, n, u1, u2, r) => {
          const p: RetryPolicy = scheduleMs ? { ...base, jitter, scheduleMs } : { ...base, jitter };
          const d = plannedDelayMs(p, n);
          expect(d).toBeLessThanOrEqual(p.maxDelayMs);
          const w = nextDelayMs(p, n, replay(u1, u2), r);
          expect(Number.isInteger(w)).toBe(true);
          const [lo, hi] = { none: [d, d], equal: [d / 2, d], full: [Math.min(1_000, d), d], up10: [d, 1.1 * d] }[jitter];
          if (r === null) {
            expect(w).toBeGreaterThanOrEqual(Math.floor(lo as number));
            expect(w).toBeLessThanOrEqual(Math.ceil(hi as number));
          } else {
            expect(w).toBeGreaterThanOrEqual(r);
            expect(w).toBeLessThanOrEqual(Math.ceil(Math.max(hi as number, r + Math.min(1_000, r * 0.1))));
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
