/**
 * Tests for the limiter rows of an account (lanePermitPlans) and the refund rule (refundedState):
 * a lane with a guaranteed share has its own row, the rest share `*`, and whatever the lanes ask,
 * and whatever they give back, the account as a whole grants no more in any window than one
 * limiter at the account's rate and burst would.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  acquireJoint,
  DEFAULT_LANES,
  lanePermitPlans,
  refundedState,
  windowBound,
  type LaneConfig,
  type LimiterRow,
  type LimiterState,
} from '../../src/domain/index.js';

const T0 = 1_700_000_000_000;

describe('lanePermitPlans', () => {
  it('gives a lane with a guaranteed share its own row at its share of the rate and burst, and the rest to the shared row', () => {
    const [auth, bulk] = lanePermitPlans({ rate_per_second: 100, burst: 100 }, DEFAULT_LANES);
    expect(auth).toMatchObject({
      scheme: 'split',
      sources: [[{ row: 'auth', limit: { ratePerSecond: 20, burst: 20 } }], [{ row: '*', limit: { ratePerSecond: 80, burst: 80 } }]],
    });
    expect(bulk!.sources).toEqual([[{ row: '*', limit: { ratePerSecond: 80, burst: 80 } }]]);
    expect(bulk!.throttleRows.map((r) => r.row)).toEqual(['*', 'auth']);
    expect(auth!.accrual).toEqual({ ratePerSecond: 100, burst: 80 });
  });

  it("bench:campaign's account: auth banks 250 ms of its 25/s (a burst of 7), the campaign keeps the other 57", () => {
    const rate = 1760.56;
    const [auth, bulk] = lanePermitPlans({ rate_per_second: rate, burst: 64 }, [
      { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: 25 / rate },
      { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0 },
    ]);
    expect(auth!.sources[0]![0]!.limit.burst).toBe(7);
    expect(auth!.sources[0]![0]!.limit.ratePerSecond).toBeCloseTo(25, 9);
    expect(bulk!.sources[0]![0]!.limit.burst).toBe(57);
  });

  it('falls back to bursts in proportion to the shares when banking 250 ms would leave the shared row none', () => {
    // 200/s, burst 5, auth 20 %: 250 ms of 40/s is 10 > 4; proportional: auth 1, shared 4.
    const [auth, bulk] = lanePermitPlans({ rate_per_second: 200, burst: 5 }, DEFAULT_LANES);
    expect(auth!.sources[0]![0]!.limit.burst).toBe(1);
    expect(bulk!.sources[0]![0]!.limit.burst).toBe(4);
  });

  it('keeps the joint scheme (lane row and account row together) when the burst is too small to split', () => {
    const plans = lanePermitPlans({ rate_per_second: 1, burst: 1 }, DEFAULT_LANES);
    expect(plans.map((p) => p.scheme)).toEqual(['joint', 'joint']);
    expect(plans[1]!.sources).toEqual([
      [
        { row: 'bulk', limit: { ratePerSecond: 0.8, burst: 1 } },
        { row: '*', limit: { ratePerSecond: 1, burst: 1 } },
      ],
    ]);
  });

  it('needs no shared row when the shares sum to 1', () => {
    const plans = lanePermitPlans({ rate_per_second: 10, burst: 4 }, [
      { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: 0.5 },
      { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0.5 },
    ]);
    expect(plans.map((p) => p.sources.map((s) => s.map((r) => r.row)))).toEqual([[['auth']], [['bulk']]]);
  });
});

describe('refundedState', () => {
  it('takes back the last unused emission intervals: the state a smaller grant at the same instant writes', () => {
    const limit = { ratePerSecond: 100, burst: 10 };
    const granted = acquireJoint([{ tatUs: 0 }], { now: T0, requested: 10, limits: [limit] });
    const smaller = acquireJoint([{ tatUs: 0 }], { now: T0, requested: 3, limits: [limit] });
    expect(refundedState(granted.states[0]!, limit, { granted: 10, unused: 7 })).toEqual(smaller.states[0]);
    expect(refundedState(granted.states[0]!, limit, { granted: 10, unused: 0 })).toBeNull();
    expect(() => refundedState(granted.states[0]!, limit, { granted: 10, unused: 11 })).toThrow(RangeError);
  });
});

describe('the account bound across rows, with refunds', () => {
  const lanesArb = fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 30 })).map(([a, b]): LaneConfig[] => [
    { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: a / 100 },
    { name: 'bulk', purposes: ['transactional', 'conversational'], guaranteed_share: b / 100 },
    { name: 'mkt', purposes: ['marketing'], guaranteed_share: 0 },
  ]);
  const eventArb = fc.record({
    lane: fc.integer({ min: 0, max: 2 }),
    dtMs: fc.integer({ min: 0, max: 40 }),
    requested: fc.integer({ min: 1, max: 40 }),
    unusedPct: fc.integer({ min: 0, max: 100 }),
    refundLater: fc.boolean(),
  });

  it('no window of any length holds more grants (net of refunds) than one limiter at (R, B) allows', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 100 }),
        lanesArb,
        fc.array(eventArb, { minLength: 1, maxLength: 200 }),
        fc.constantFrom(100, 250, 1000, 2000),
        (rate, burst, lanes, events, windowMs) => {
          const plans = lanePermitPlans({ rate_per_second: rate, burst }, lanes);
          const states = new Map<string, LimiterState>();
          const get = (row: string) => states.get(row) ?? { tatUs: 0 };
          const spent: Array<{ at: number; n: number }> = [];
          // A reservation whose refund comes after the next event (which may move its rows).
          let pending: Array<{ rows: LimiterRow[]; written: LimiterState[]; granted: number; unused: number; at: number }> = [];
          const settle = () => {
            for (const p of pending) {
              // Per row, compare and set; the permit counts as spent on any row that kept it.
              let kept = false;
              p.rows.forEach((r, i) => {
                const to = refundedState(p.written[i]!, r.limit, { granted: p.granted, unused: p.unused });
                if (to && get(r.row).tatUs === p.written[i]!.tatUs) states.set(r.row, to);
                else if (p.unused > 0) kept = true;
              });
              spent.push({ at: p.at, n: p.granted - (kept ? 0 : p.unused) });
            }
            pending = [];
          };
          let now = T0;
          for (const e of events) {
            now += e.dtMs;
            const later: typeof pending = [];
            const previous = pending;
            let want = e.requested;
            for (const rows of plans[e.lane]!.sources) {
              if (want <= 0) break;
              const out = acquireJoint(
                rows.map((r) => get(r.row)),
                { now, requested: want, limits: rows.map((r) => r.limit) },
              );
              if (out.granted === 0) continue;
              rows.forEach((r, i) => states.set(r.row, out.states[i]!));
              want -= out.granted;
              const unused = Math.floor((out.granted * e.unusedPct) / 100);
              later.push({ rows, written: out.states, granted: out.granted, unused, at: now });
            }
            pending = previous;
            settle();
            pending = later;
            if (!e.refundLater) settle();
          }
          settle();
          const bound = windowBound({ ratePerSecond: rate, burst, windowMs });
          for (const { at } of spent) {
            const inWindow = spent.filter((x) => x.at >= at && x.at < at + windowMs).reduce((a, x) => a + x.n, 0);
            expect(inWindow).toBeLessThanOrEqual(bound);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
