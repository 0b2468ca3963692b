/** Tests for lanes: validation messages, purpose routing, and guaranteed/maximum budgets. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LANES,
  laneBudgets,
  laneConfigErrors,
  laneFor,
  PURPOSES,
  validateLanes,
  type LaneBudget,
  type LaneConfig,
  type Purpose,
} from '../../src/domain/index.js';

const budgets = (rate: number, concurrency: number, lanes: readonly LaneConfig[] = DEFAULT_LANES): LaneBudget[] => {
  const r = laneBudgets({ rate_per_second: rate, concurrency }, lanes);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
};

describe('DEFAULT_LANES', () => {
  it('auth carries otp and alert with 20% reserved; bulk carries the rest with nothing reserved', () => {
    expect(laneConfigErrors(DEFAULT_LANES)).toEqual([]);
    expect(DEFAULT_LANES.map((l) => [l.name, [...l.purposes].sort(), l.guaranteed_share])).toEqual([
      ['auth', ['alert', 'otp'], 0.2],
      ['bulk', ['conversational', 'marketing', 'transactional'], 0],
    ]);
  });

  it('laneFor routes every purpose', () => {
    const expected: Record<Purpose, string> = { otp: 'auth', alert: 'auth', transactional: 'bulk', conversational: 'bulk', marketing: 'bulk' };
    for (const p of PURPOSES) expect(laneFor(p).name).toBe(expected[p]);
    expect(() => laneFor('otp', [{ name: 'x', purposes: ['marketing'], guaranteed_share: 0 }])).toThrow(/otp/);
  });

  it('100/s and 10 workers: auth 20/s guaranteed and up to 100/s; bulk nothing guaranteed and up to 80/s', () => {
    expect(budgets(100, 10)).toEqual([
      { name: 'auth', guaranteed_rate: 20, max_rate: 100, guaranteed_concurrency: 2, max_concurrency: 10 },
      { name: 'bulk', guaranteed_rate: 0, max_rate: 80, guaranteed_concurrency: 0, max_concurrency: 8 },
    ]);
  });

  it('a share above 0 gets at least one worker slot: 4 workers give auth 1 (not 0.8) and bulk up to 3', () => {
    expect(budgets(100, 4).map((b) => [b.guaranteed_concurrency, b.max_concurrency])).toEqual([
      [1, 4],
      [0, 3],
    ]);
  });
});

describe('laneConfigErrors: messages name the field', () => {
  const ok: LaneConfig[] = [
    { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: 0.2 },
    { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0.8 },
  ];

  it('accepts shares that sum to exactly 1, even written as decimals', () => {
    expect(laneConfigErrors(ok)).toEqual([]);
    const three: LaneConfig[] = [
      { name: 'a', purposes: ['otp'], guaranteed_share: 0.1 },
      { name: 'b', purposes: ['alert'], guaranteed_share: 0.2 },
      { name: 'c', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0.7 },
    ];
    expect(laneConfigErrors(three)).toEqual([]);
    expect(validateLanes(three)).toEqual({ ok: true, value: three });
  });

  it.each([
    ['not a list', {}, 'lanes', /non-empty list/],
    ['an empty list', [], 'lanes', /non-empty list/],
    ['shares above 1 in total', [ok[0], { ...ok[1], guaranteed_share: 0.9 }], 'lanes', /sum to 1\.1; .* at most 1/],
    ['a share above 1', [ok[0], { ...ok[1], guaranteed_share: 1.5 }], 'lanes[1].guaranteed_share', /from 0 to 1; got 1\.5/],
    ['a negative share', [{ ...ok[0], guaranteed_share: -0.1 }, ok[1]], 'lanes[0].guaranteed_share', /from 0 to 1/],
    ['a missing share', [{ name: 'auth', purposes: ['otp', 'alert'] }, ok[1]], 'lanes[0].guaranteed_share', /got undefined/],
    ['a duplicate name', [ok[0], { ...ok[1], name: 'auth' }], 'lanes[1].name', /"auth" is already the name of lanes\[0\]/],
    ['a bad name', [{ ...ok[0], name: 'Auth Lane' }, ok[1]], 'lanes[0].name', /lower-case/],
    [
      'a purpose in two lanes',
      [ok[0], { ...ok[1], purposes: ['otp', 'transactional', 'conversational', 'marketing'] }],
      'lanes[1].purposes[0]',
      /"otp" is already carried by lane "auth"/,
    ],
    [
      'an unknown purpose',
      [ok[0], { ...ok[1], purposes: ['transactional', 'conversational', 'marketing', 'newsletter'] }],
      'lanes[1].purposes[3]',
      /must be one of .*; got "newsletter"/,
    ],
    ['a purpose in no lane', [ok[0], { ...ok[1], purposes: ['transactional', 'conversational'] }], 'lanes', /no lane carries marketing/],
    ['purposes not a list', [ok[0], { ...ok[1], purposes: 'marketing' }], 'lanes[1].purposes', /list of purposes/],
    ['a lane with no purpose', [...ok, { name: 'spare', purposes: [], guaranteed_share: 0 }], 'lanes[2].purposes', /non-empty list of purposes/],
    ['a lane that is not an object', [ok[0], 7], 'lanes[1]', /must be an object/],
  ])('%s', (_, lanes, field, message) => {
    const errors = laneConfigErrors(lanes);
    expect(errors.map((e) => e.field)).toContain(field);
    expect(errors.find((e) => e.field === field)?.message).toMatch(message);
    expect(validateLanes(lanes)).toMatchObject({ ok: false });
  });

  it('uses the field prefix it is given', () => {
    expect(laneConfigErrors([], 'provider_accounts[2].lanes')).toEqual([{ field: 'provider_accounts[2].lanes', message: expect.any(String) }]);
  });
});

describe('laneBudgets: errors', () => {
  it('one worker cannot serve two lanes: bulk would get no slot', () => {
    const r = laneBudgets({ rate_per_second: 100, concurrency: 1 });
    expect(r).toMatchObject({ ok: false, errors: [{ field: 'lanes[1].guaranteed_share', message: expect.stringMatching(/"bulk" gets no worker slot/) }] });
  });

  it('more lanes with a share than worker slots', () => {
    const lanes: LaneConfig[] = [
      { name: 'a', purposes: ['otp'], guaranteed_share: 0.1 },
      { name: 'b', purposes: ['alert'], guaranteed_share: 0.1 },
      { name: 'c', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0.1 },
    ];
    expect(laneBudgets({ rate_per_second: 100, concurrency: 2 }, lanes)).toMatchObject({
      ok: false,
      errors: [{ field: 'concurrency', message: expect.stringMatching(/needs 3/) }],
    });
  });

  it('a lane whose maximum is nothing', () => {
    const lanes: LaneConfig[] = [
      { name: 'auth', purposes: ['otp', 'alert'], guaranteed_share: 1 },
      { name: 'bulk', purposes: ['transactional', 'conversational', 'marketing'], guaranteed_share: 0 },
    ];
    const r = laneBudgets({ rate_per_second: 100, concurrency: 10 }, lanes);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => e.message).join('\n')).toMatch(/"bulk" gets no rate/);
  });

  it('bad account numbers', () => {
    expect(laneBudgets({ rate_per_second: 0, concurrency: 2.5 })).toMatchObject({
      ok: false,
      errors: [{ field: 'rate_per_second' }, { field: 'concurrency' }],
    });
  });
});

/** Valid lane configurations: purposes dealt into 1..4 lanes, shares summing to at most 1. */
const lanesArb: fc.Arbitrary<LaneConfig[]> = fc
  .record({
    count: fc.integer({ min: 1, max: 4 }),
    deal: fc.array(fc.nat(), { minLength: PURPOSES.length, maxLength: PURPOSES.length }),
    weights: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100 })), { minLength: 4, maxLength: 4 }),
    total: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
  })
  .map(({ count, deal, weights, total }) => {
    const sum = weights.slice(0, count).reduce((a, b) => a + b, 0);
    return Array.from({ length: count }, (_, i) => ({
      name: `lane_${i}`,
      // Purpose j < count opens lane j, so no lane is empty; the rest are dealt at random.
      purposes: PURPOSES.filter((_, j) => (j < count ? j : deal[j]! % count) === i),
      guaranteed_share: sum === 0 ? 0 : (weights[i]! / sum) * total,
    }));
  });

describe('laneBudgets: properties', () => {
  it("property: guaranteed ≤ maximum; guarantees fit the account; a maximum is the account minus the others' guarantees", () => {
    fc.assert(
      fc.property(lanesArb, fc.double({ min: 0.1, max: 10_000, noNaN: true }), fc.integer({ min: 1, max: 500 }), (lanes, rate, concurrency) => {
        expect(laneConfigErrors(lanes)).toEqual([]);
        const r = laneBudgets({ rate_per_second: rate, concurrency }, lanes);
        if (!r.ok) {
          // Only too few slots, or a lane left with nothing, are refused.
          for (const e of r.errors) expect(e.message).toMatch(/no worker slot|no rate|needs \d+/);
          return;
        }
        const b = r.value;
        const sum = (f: (x: LaneBudget) => number) => b.reduce((a, x) => a + f(x), 0);
        expect(sum((x) => x.guaranteed_rate)).toBeLessThanOrEqual(rate * (1 + 1e-9));
        expect(sum((x) => x.guaranteed_concurrency)).toBeLessThanOrEqual(concurrency);
        b.forEach((x, i) => {
          const lane = lanes[i]!;
          expect(x.guaranteed_rate).toBeCloseTo(lane.guaranteed_share * rate, 6);
          expect(x.guaranteed_rate).toBeLessThanOrEqual(x.max_rate + 1e-9);
          expect(x.max_rate).toBeLessThanOrEqual(rate);
          expect(x.max_rate).toBeCloseTo(rate - (sum((y) => y.guaranteed_rate) - x.guaranteed_rate), 6);
          expect(Number.isInteger(x.guaranteed_concurrency) && Number.isInteger(x.max_concurrency)).toBe(true);
          expect(x.guaranteed_concurrency).toBeLessThanOrEqual(x.max_concurrency);
          expect(x.max_concurrency).toBe(concurrency - (sum((y) => y.guaranteed_concurrency) - x.guaranteed_concurrency));
          expect(x.max_concurrency).toBeGreaterThanOrEqual(1);
          if (lane.guaranteed_share > 0) expect(x.guaranteed_concurrency).toBeGreaterThanOrEqual(1);
          // Never more slots than the share, except the one every lane with a share gets.
          expect(x.guaranteed_concurrency).toBeLessThanOrEqual(Math.max(lane.guaranteed_share > 0 ? 1 : 0, lane.guaranteed_share * concurrency + 1e-6));
        });
        // Every lane running at its guarantee while one lane borrows all it may never exceeds the account.
        b.forEach((x) => expect(x.max_rate + sum((y) => y.guaranteed_rate) - x.guaranteed_rate).toBeLessThanOrEqual(rate * (1 + 1e-9)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('property: laneFor finds the one lane listing the purpose', () => {
    fc.assert(
      fc.property(lanesArb, fc.constantFrom(...PURPOSES), (lanes, p) => {
        expect(laneFor(p, lanes).purposes).toContain(p);
        expect(lanes.filter((l) => l.purposes.includes(p))).toHaveLength(1);
      }),
      { numRuns: 500 },
    );
  });
});
