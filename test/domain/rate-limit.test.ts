/** Tests for the GCRA limiter: the window bound, partial grants, liveness, throttling, monotonicity, sharing. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acquire,
  acquireJoint,
  availableAt,
  defaultThrottleMs,
  effectiveRatePerSecond,
  emissionIntervalUs,
  IDLE_LIMITER_STATE,
  quotaSafeRate,
  throttle,
  toMicros,
  windowBound,
  type LimiterState,
  type RateLimit,
} from '../../src/domain/index.js';

const T0 = 1_700_000_000_000;

/** A loop guard: a limiter that never makes a caller wait would otherwise hang the test instead of failing it. */
function guard(limit = 2_000_000): () => void {
  let steps = 0;
  return () => {
    if (++steps > limit) throw new Error(`no progress after ${limit} calls`);
  };
}

/** One grant: when (µs, as the limiter resolved `now`) and how many. */
interface Grant {
  atUs: number;
  n: number;
}

/** The most permits in any window [t, t + windowUs) (closed: [t, t + windowUs]) over `grants`. */
function maxInWindow(grants: readonly Grant[], windowUs: number, closed = false): number {
  const g = grants.filter((x) => x.n > 0).sort((a, b) => a.atUs - b.atUs);
  let best = 0;
  let sum = 0;
  let j = 0;
  // Two pointers: a worst window can always be slid to start at a grant.
  for (let i = 0; i < g.length; i++) {
    while (j < g.length && (closed ? g[j]!.atUs <= g[i]!.atUs + windowUs : g[j]!.atUs < g[i]!.atUs + windowUs)) sum += g[j++]!.n;
    best = Math.max(best, sum);
    sum -= g[i]!.n;
  }
  return best;
}

const limitArb: fc.Arbitrary<RateLimit> = fc.record({
  ratePerSecond: fc.oneof(fc.constantFrom(0.5, 1, 3, 7.5, 10, 100, 250, 333, 1_000, 2_000), fc.double({ min: 0.2, max: 5_000, noNaN: true })),
  burst: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 20 })),
});
/** Gaps between calls, in ms: bursts of calls in the same ms, sub-ms fractions, and pauses. */
const gapArb = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.double({ min: 0, max: 20, noNaN: true }), fc.integer({ min: 0, max: 3_000 }));
const callsArb = fc.array(fc.record({ gap: gapArb, requested: fc.integer({ min: 0, max: 25 }) }), { minLength: 1, maxLength: 300 });
const windowArb = fc.oneof(fc.constant(1_000), fc.integer({ min: 1, max: 5_000 }));
const stateArb = fc.oneof(
  fc.constant(IDLE_LIMITER_STATE),
  fc.integer({ min: -5_000_000, max: 30_000_000 }).map((d) => ({ tatUs: T0 * 1_000 + d })),
);

/** Runs `calls` one after another from `state`; returns the grants and the final state. */
function run(limit: RateLimit, calls: ReadonlyArray<{ gap: number; requested: number }>, state: LimiterState = IDLE_LIMITER_STATE) {
  const grants: Grant[] = [];
  let now = T0;
  for (const c of calls) {
    now += c.gap;
    const r = acquire(state, { ...limit, now, requested: c.requested });
    expect(r.granted).toBeGreaterThanOrEqual(0);
    expect(r.granted).toBeLessThanOrEqual(c.requested);
    expect(Number.isInteger(r.granted)).toBe(true);
    grants.push({ atUs: toMicros(now), n: r.granted });
    state = r.state;
  }
  return { grants, state, now };
}

describe('acquire: numbers', () => {
  it('100/s with burst 1: one permit, then the next 10 ms later', () => {
    const limit = { ratePerSecond: 100, burst: 1 };
    const a = acquire(IDLE_LIMITER_STATE, { ...limit, now: T0, requested: 5 });
    expect(a).toEqual({ state: { tatUs: (T0 + 10) * 1_000 }, granted: 1, retryAt: T0 + 10 });
    expect(acquire(a.state, { ...limit, now: T0 + 9, requested: 1 }).granted).toBe(0);
    expect(acquire(a.state, { ...limit, now: T0 + 10, requested: 1 }).granted).toBe(1);
  });

  it('100/s with burst 5: five at once from idle, then one every 10 ms', () => {
    const limit = { ratePerSecond: 100, burst: 5 };
    const a = acquire(IDLE_LIMITER_STATE, { ...limit, now: T0, requested: 8 });
    expect(a).toMatchObject({ granted: 5, retryAt: T0 + 10 });
    expect(acquire(a.state, { ...limit, now: T0 + 35, requested: 8 }).granted).toBe(3);
  });

  it('a full grant has no retryAt; a request for 0 changes nothing', () => {
    const limit = { ratePerSecond: 10, burst: 3 };
    expect(acquire(IDLE_LIMITER_STATE, { ...limit, now: T0, requested: 3 }).retryAt).toBeNull();
    expect(acquire({ tatUs: 42 }, { ...limit, now: T0, requested: 0 })).toEqual({ state: { tatUs: 42 }, granted: 0, retryAt: null });
  });

  it('rounds the interval up to whole µs: never faster than configured', () => {
    expect(emissionIntervalUs(100)).toBe(10_000);
    expect(emissionIntervalUs(3)).toBe(333_334);
    expect(effectiveRatePerSecond(3)).toBeCloseTo(2.999994, 6);
    expect(effectiveRatePerSecond(1_000)).toBe(1_000);
    expect(emissionIntervalUs(5_000_000)).toBe(1);
  });

  it('windowBound: burst − 1 + ceil(W / T); the default account (100/s, burst 100) allows 199 in one second', () => {
    expect(windowBound({ ratePerSecond: 100, burst: 1, windowMs: 1_000 })).toBe(100);
    expect(windowBound({ ratePerSecond: 100, burst: 100, windowMs: 1_000 })).toBe(199);
    expect(windowBound({ ratePerSecond: 3, burst: 2, windowMs: 1_000 })).toBe(4);
  });

  it('rejects nonsense inputs with a RangeError naming them', () => {
    const ok = { ratePerSecond: 10, burst: 1, now: T0, requested: 1 };
    expect(() => acquire(IDLE_LIMITER_STATE, { ...ok, ratePerSecond: 0 })).toThrow(/ratePerSecond/);
    expect(() => acquire(IDLE_LIMITER_STATE, { ...ok, ratePerSecond: Number.NaN })).toThrow(/ratePerSecond/);
    expect(() => acquire(IDLE_LIMITER_STATE, { ...ok, burst: 0 })).toThrow(/burst/);
    expect(() => acquire(IDLE_LIMITER_STATE, { ...ok, burst: 1.5 })).toThrow(/burst/);
    expect(() => acquire(IDLE_LIMITER_STATE, { ...ok, requested: -1 })).toThrow(/requested/);
    expect(() => acquire(IDLE_LIMITER_STATE, { ...ok, now: Number.POSITIVE_INFINITY })).toThrow(/time/);
  });
});

describe('acquire: properties', () => {
  it('property: in any window [t, t + W) the grants number fewer than W/T + burst, i.e. at most windowBound ≤ R·W/1000 + burst', () => {
    fc.assert(
      fc.property(limitArb, callsArb, windowArb, stateArb, (limit, calls, windowMs, start) => {
        const { grants } = run(limit, calls, start);
        const t = emissionIntervalUs(limit.ratePerSecond);
        const most = maxInWindow(grants, windowMs * 1_000);
        expect(most * t).toBeLessThan(windowMs * 1_000 + limit.burst * t);
        expect(most).toBeLessThanOrEqual(windowBound({ ...limit, windowMs }));
        expect(most).toBeLessThanOrEqual((limit.ratePerSecond * windowMs) / 1_000 + limit.burst);
        // Closed windows [t, t + W] hold at most burst + floor(W / T).
        expect(maxInWindow(grants, windowMs * 1_000, true)).toBeLessThanOrEqual(limit.burst + Math.floor((windowMs * 1_000) / t));
      }),
      { numRuns: 3_000 },
    );
  });

  it('property: windowBound is reached: a greedy caller from idle gets exactly that many in its first window', () => {
    // Rates whose interval is whole ms, so a caller coming back at retryAt loses nothing.
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1_000),
        fc.integer({ min: 1, max: 20 }),
        windowArb,
        (rate, burst, windowMs) => {
          const limit = { ratePerSecond: rate, burst };
          const step = guard();
          let state = IDLE_LIMITER_STATE;
          let now = T0;
          let total = 0;
          while (now < T0 + windowMs) {
            step();
            const r = acquire(state, { ...limit, now, requested: 1_000 });
            total += r.granted;
            state = r.state;
            now = r.retryAt as number;
          }
          expect(total).toBe(windowBound({ ...limit, windowMs }));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('property: retryAt is the earliest whole ms at which one more permit is available', () => {
    fc.assert(
      fc.property(limitArb, callsArb, fc.integer({ min: 1, max: 25 }), (limit, calls, requested) => {
        const { state, now } = run(limit, calls);
        const r = acquire(state, { ...limit, now, requested });
        if (r.granted === requested) {
          expect(r.retryAt).toBeNull();
          return;
        }
        const at = r.retryAt as number;
        expect(Number.isInteger(at)).toBe(true);
        expect(at).toBeGreaterThan(now);
        expect(at).toBe(availableAt(r.state, limit));
        expect(acquire(r.state, { ...limit, now: at, requested: 1 }).granted).toBe(1);
        expect(acquire(r.state, { ...limit, now: at - 1, requested: 1 }).granted).toBe(0);
      }),
      { numRuns: 3_000 },
    );
  });

  it('property: a caller that always wants more and comes back at retryAt gets at least R·W/1000 (effective rate) over any W', () => {
    fc.assert(
      fc.property(limitArb, fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(), (limit, requested, fraction, seed) => {
        const t = emissionIntervalUs(limit.ratePerSecond);
        // Up to 10 minutes, or up to 20,000 permits at fast rates (the loop runs per call).
        const windowMs = 1 + Math.floor(fraction * Math.min(600_000, (20_000 * t) / 1_000));
        // A caller's lateness costs nothing while tat stays ahead of it: (burst − 1)·T must cover
        // the rounding of retryAt up to whole ms plus the lateness (test below shows the cost otherwise).
        const slackUs = (limit.burst - 1) * t - (t % 1_000 === 0 ? 0 : 999);
        fc.pre(slackUs >= 0);
        const lateMax = Math.floor(slackUs / 1_000);
        const step = guard();
        let state = IDLE_LIMITER_STATE;
        let now = T0;
        let total = 0;
        let i = seed;
        while (now < T0 + windowMs) {
          step();
          const r = acquire(state, { ...limit, now, requested });
          total += r.granted;
          state = r.state;
          // Again at once after a full grant; after a short one at retryAt, up to lateMax ms late.
          if (r.retryAt !== null) now = r.retryAt + ((i = (i * 1_103_515_245 + 12_345) % 2_147_483_648) % (lateMax + 1));
        }
        expect(total).toBeGreaterThanOrEqual((windowMs * 1_000) / t);
        expect(total).toBeGreaterThanOrEqual((effectiveRatePerSecond(limit.ratePerSecond) * windowMs) / 1_000 - 1);
      }),
      { numRuns: 1_000 },
    );
  });

  it('burst 1 with an interval that is not whole ms loses the fraction to a ms-granular caller (why the docs ask for burst ≥ 2)', () => {
    const step = guard();
    const limit = { ratePerSecond: 300, burst: 1 }; // T = 3,334 µs; retryAt rounds up to 4 ms
    let state = IDLE_LIMITER_STATE;
    let now = T0;
    let total = 0;
    while (now < T0 + 10_000) {
      step();
      const r = acquire(state, { ...limit, now, requested: 1 });
      total += r.granted;
      state = r.state;
      if (r.retryAt !== null) now = r.retryAt;
    }
    expect(total).toBe(2_500);
    // With burst 2 the same caller gets the full rate.
    let s2 = IDLE_LIMITER_STATE;
    let n2 = T0;
    let t2 = 0;
    while (n2 < T0 + 10_000) {
      step();
      const r = acquire(s2, { ratePerSecond: 300, burst: 2, now: n2, requested: 2 });
      t2 += r.granted;
      s2 = r.state;
      if (r.retryAt !== null) n2 = r.retryAt;
    }
    expect(t2).toBeGreaterThanOrEqual(2_999);
  });

  it('property: monotone in time: from one state, asking later never gets fewer', () => {
    fc.assert(
      fc.property(
        limitArb,
        stateArb,
        fc.double({ min: -2_000, max: 30_000, noNaN: true }),
        gapArb,
        fc.integer({ min: 0, max: 40 }),
        (limit, state, offset, gap, requested) => {
          const early = acquire(state, { ...limit, now: T0 + offset, requested });
          const late = acquire(state, { ...limit, now: T0 + offset + gap, requested });
          expect(late.granted).toBeGreaterThanOrEqual(early.granted);
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('property: many callers on one state, each with its own skewed clock, interleaved in any order, stay within the bound together', () => {
    const callerArb = fc.record({
      skewMs: fc.integer({ min: -200, max: 200 }),
      calls: fc.array(fc.record({ gap: gapArb, requested: fc.integer({ min: 0, max: 10 }) }), { maxLength: 80 }),
    });
    fc.assert(
      fc.property(
        limitArb,
        fc.array(callerArb, { minLength: 2, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 500 }),
        windowArb,
        (limit, callers, order, windowMs) => {
          const clocks = callers.map((c) => T0 + c.skewMs);
          const next = callers.map(() => 0);
          const grants: Grant[] = [];
          let state = IDLE_LIMITER_STATE;
          // `order` picks who reaches the store next; then everyone left finishes in turn.
          const picks = [...order.map((o) => o % callers.length), ...callers.flatMap((c, k) => c.calls.map(() => k))];
          for (const k of picks) {
            const call = callers[k]!.calls[next[k]!];
            if (!call) continue;
            next[k]!++;
            clocks[k]! += call.gap;
            const r = acquire(state, { ...limit, now: clocks[k]!, requested: call.requested });
            expect(r.granted).toBeLessThanOrEqual(call.requested);
            grants.push({ atUs: toMicros(clocks[k]!), n: r.granted });
            state = r.state;
          }
          expect(maxInWindow(grants, windowMs * 1_000)).toBeLessThanOrEqual(windowBound({ ...limit, windowMs }));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('throttle', () => {
  it('Retry-After 30 s: nothing before now + 30 s, then one permit at a time at the rate', () => {
    const limit = { ratePerSecond: 100, burst: 10 };
    const { state, resumeAt } = throttle(IDLE_LIMITER_STATE, { ...limit, now: T0, retryAfterMs: 30_000 });
    expect(resumeAt).toBe(T0 + 30_000);
    expect(acquire(state, { ...limit, now: T0 + 29_999, requested: 10 }).granted).toBe(0);
    const r = acquire(state, { ...limit, now: T0 + 30_000, requested: 10 });
    expect(r).toMatchObject({ granted: 1, retryAt: T0 + 30_010 });
  });

  it('without Retry-After waits max(1 s, burst × T)', () => {
    expect(defaultThrottleMs({ ratePerSecond: 100, burst: 10 })).toBe(1_000);
    expect(defaultThrottleMs({ ratePerSecond: 1, burst: 5 })).toBe(5_000);
    for (const retryAfterMs of [undefined, null, 0, -5, Number.NaN]) {
      expect(throttle(IDLE_LIMITER_STATE, { ratePerSecond: 1, burst: 5, now: T0, retryAfterMs }).resumeAt).toBe(T0 + 5_000);
    }
  });

  it('property: after throttle nothing is granted before it ends, to anyone, and a permit is available at resumeAt', () => {
    fc.assert(
      fc.property(
        limitArb,
        callsArb,
        fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 120_000 }), fc.double({ min: 0.001, max: 5_000, noNaN: true })),
        fc.array(fc.double({ min: -5_000, max: 130_000, noNaN: true }), { maxLength: 60 }),
        (limit, calls, retryAfterMs, probes) => {
          const before = run(limit, calls);
          const now = before.now;
          const { state, resumeAt } = throttle(before.state, { ...limit, now, retryAfterMs });
          const end = now + (retryAfterMs ?? defaultThrottleMs(limit));
          expect(state.tatUs).toBeGreaterThanOrEqual(before.state.tatUs);
          expect(resumeAt).toBeGreaterThanOrEqual(end);
          let s = state;
          for (const p of [...probes].sort((a, b) => a - b)) {
            const r = acquire(s, { ...limit, now: now + p, requested: 5 });
            // Times resolve to the microsecond: a probe a whole µs before the end gets nothing.
            if (now + p <= end - 0.001) expect(r.granted).toBe(0);
            s = r.state;
          }
          expect(acquire(state, { ...limit, now: resumeAt, requested: 1 }).granted).toBe(1);
          expect(acquire(state, { ...limit, now: resumeAt - 1, requested: 1 }).granted).toBe(0);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('acquireJoint: a lane limiter and its account limiter', () => {
  it('property: grants what both allow, and each limiter stays within its own bound', () => {
    fc.assert(
      fc.property(limitArb, limitArb, callsArb, windowArb, (lane, account, calls, windowMs) => {
        let states: LimiterState[] = [IDLE_LIMITER_STATE, IDLE_LIMITER_STATE];
        let now = T0;
        const grants: Grant[] = [];
        for (const c of calls) {
          now += c.gap;
          const alone = [lane, account].map((l, i) => acquire(states[i]!, { ...l, now, requested: c.requested }).granted);
          const r = acquireJoint(states, { now, requested: c.requested, limits: [lane, account] });
          expect(r.granted).toBe(Math.min(...alone));
          if (r.retryAt !== null) expect(r.retryAt).toBe(Math.max(availableAt(r.states[0]!, lane), availableAt(r.states[1]!, account)));
          grants.push({ atUs: toMicros(now), n: r.granted });
          states = r.states;
        }
        for (const l of [lane, account]) expect(maxInWindow(grants, windowMs * 1_000)).toBeLessThanOrEqual(windowBound({ ...l, windowMs }));
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('quotaSafeRate: never above the provider quota in any window, as the provider sees it', () => {
  it('numbers: 100/s quota', () => {
    // Closed windows count both ends: 100/s exactly with burst 1 would show 101 in [0 s, 1 s].
    expect(quotaSafeRate({ quota: 100, burst: 1 })).toBeCloseTo(99.99, 2);
    expect(quotaSafeRate({ quota: 100, burst: 10 })).toBeCloseTo(1e6 / 10_990, 6);
    expect(quotaSafeRate({ quota: 100, burst: 10, skewMs: 50 })).toBeCloseTo(1e6 / 11_539, 6);
    expect(quotaSafeRate({ quota: 5, burst: 6 })).toBe(0);
    // The simple sufficient rule at zero skew, rate + burst ≤ quota, is never above it.
    for (const b of [1, 2, 10, 50]) expect(100 - b).toBeLessThanOrEqual(quotaSafeRate({ quota: 100, burst: b }));
  });

  it('property: greedy callers at the safe rate, each send delayed by up to skewMs, never exceed the quota in a closed window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 20 }),
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300 })),
        fc.constantFrom(1_000, 1_000, 60_000, 250),
        fc.array(fc.record({ gap: gapArb, requested: fc.integer({ min: 0, max: 25 }) }), { maxLength: 300 }),
        fc.nat(),
        (quota, burst, skewMs, windowMs, calls, seed) => {
          fc.pre(burst <= quota);
          const ratePerSecond = quotaSafeRate({ quota, burst, skewMs, windowMs });
          const limit = { ratePerSecond, burst };
          let i = seed;
          const arrivals: Grant[] = [];
          let state = IDLE_LIMITER_STATE;
          let now = T0;
          // Callers that come back at retryAt plus random ones, so the limiter is saturated.
          for (const c of [...calls, ...Array.from({ length: 200 }, () => ({ gap: -1, requested: burst }))]) {
            const r = acquire(state, { ...limit, now, requested: c.requested });
            for (let k = 0; k < r.granted; k++) {
              i = (i * 1_103_515_245 + 12_345) % 2_147_483_648;
              arrivals.push({ atUs: toMicros(now) + (i % (skewMs * 1_000 + 1)), n: 1 });
            }
            state = r.state;
            now = c.gap >= 0 ? now + c.gap : (r.retryAt ?? now);
          }
          expect(maxInWindow(arrivals, windowMs * 1_000, true)).toBeLessThanOrEqual(quota);
        },
      ),
      { numRuns: 1_500 },
    );
  });
});
