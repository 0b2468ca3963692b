/** Tests for the campaign planner: the worked example, the edge cases, and that every suggested change really works. */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { planCampaign, projectFinish, type CampaignPlan, type CampaignPlanInput } from '../../src/domain/index.js';

const T0 = 1_700_000_000_000;
const S = 1_000;
const MIN = 60_000;

describe('planCampaign: the worked example (docs/campaign-planning.md)', () => {
  it('600,000 recipients, 2,000/s available, deadline 2 minutes after start: needs 5,000/s, takes 5 minutes, infeasible', () => {
    const plan = planCampaign({ audienceSize: 600_000, now: T0, deadlineAt: T0 + 2 * MIN, laneMaxRate: 2_000, reservedShare: 0.2 });
    expect(plan).toEqual({
      audience_size: 600_000,
      start_at: T0,
      deadline_at: T0 + 120 * S,
      window_seconds: 120,
      required_rate: 5_000,
      available_rate: 2_000,
      best_case_seconds: 300,
      projected_finish_at: T0 + 300 * S,
      feasible: false,
      reason: 'rate_too_low',
      options: {
        // It would have had to start 3 minutes ago.
        start_earlier: { latest_start_at: T0 - 180 * S, earlier_by_ms: 180 * S, missed_by_ms: 180 * S },
        // 5,000/s in the lane; with 20% reserved for codes the provider must allow 6,250/s.
        more_capacity: { lane_rate_needed: 5_000, provider_rate_needed: 6_250 },
        smaller_audience: { max_audience: 240_000 },
        later_deadline: { earliest_deadline_at: T0 + 300 * S },
      },
    });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it('docs/campaign-planning.md shows what planCampaign returns for it', () => {
    const doc = readFileSync(join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'docs/campaign-planning.md'), 'utf8');
    const example = doc.slice(doc.indexOf('### Worked example'));
    const call = /planCampaign\(\{ audienceSize: ([\d_]+), now: (\d+), deadlineAt: (\d+), laneMaxRate: ([\d_]+), reservedShare: ([\d.]+) \}\)/.exec(example);
    expect(call).not.toBeNull();
    const [audienceSize, now, deadlineAt, laneMaxRate, reservedShare] = call!.slice(1).map((x) => Number(x.replaceAll('_', '')));
    expect([audienceSize, laneMaxRate, (deadlineAt as number) - (now as number)]).toEqual([600_000, 2_000, 120_000]);
    const json = /```json\n([\s\S]*?)\n```/.exec(example)?.[1] ?? '';
    expect(JSON.parse(json)).toEqual(
      planCampaign({ audienceSize: audienceSize!, now: now!, deadlineAt: deadlineAt!, laneMaxRate: laneMaxRate!, reservedShare: reservedShare! }),
    );
  });
});

describe('planCampaign: cases', () => {
  const base: CampaignPlanInput = { audienceSize: 600_000, now: T0, deadlineAt: T0 + 2 * MIN, laneMaxRate: 2_000 };

  it('feasible: 100,000 at 2,000/s in 2 minutes finishes after 50 s; no options', () => {
    const plan = planCampaign({ ...base, audienceSize: 100_000 });
    expect(plan).toMatchObject({ feasible: true, reason: null, options: null, best_case_seconds: 50, projected_finish_at: T0 + 50 * S });
    expect(plan.required_rate).toBeCloseTo(833.333, 3);
  });

  it('exactly at capacity is feasible; one more recipient is not', () => {
    expect(planCampaign({ ...base, audienceSize: 240_000 }).feasible).toBe(true);
    expect(planCampaign({ ...base, audienceSize: 240_001 }).feasible).toBe(false);
  });

  it('a later start within reach: start earlier is possible, nothing missed', () => {
    const plan = planCampaign({ ...base, startAt: T0 + 10 * MIN, deadlineAt: T0 + 12 * MIN });
    expect(plan.start_at).toBe(T0 + 10 * MIN);
    expect(plan.options?.start_earlier).toEqual({ latest_start_at: T0 + 7 * MIN, earlier_by_ms: 3 * MIN, missed_by_ms: 0 });
    expect(plan.options?.later_deadline).toEqual({ earliest_deadline_at: T0 + 15 * MIN });
  });

  it('a start in the past means now', () => {
    expect(planCampaign({ ...base, startAt: T0 - MIN }).start_at).toBe(T0);
  });

  it('other load comes off the lane: 2,000/s minus 500/s of other traffic', () => {
    const plan = planCampaign({ ...base, otherLaneLoad: 500, reservedShare: 0.2 });
    expect(plan).toMatchObject({ available_rate: 1_500, best_case_seconds: 400 });
    expect(plan.options?.more_capacity).toEqual({ lane_rate_needed: 5_500, provider_rate_needed: 6_875 });
    expect(plan.options?.smaller_audience).toEqual({ max_audience: 180_000 });
  });

  it('zero audience: feasible, nothing to send, even with no rate and no window', () => {
    const plan = planCampaign({ ...base, audienceSize: 0, laneMaxRate: 0, deadlineAt: T0 - MIN });
    expect(plan).toMatchObject({ feasible: true, reason: 'nothing_to_send', required_rate: 0, best_case_seconds: 0, projected_finish_at: T0, options: null });
  });

  it('deadline at the start: infeasible, no rate is enough, but a later deadline or earlier start still works', () => {
    const plan = planCampaign({ ...base, deadlineAt: T0 });
    expect(plan).toMatchObject({ feasible: false, reason: 'deadline_not_after_start', window_seconds: 0, required_rate: null, best_case_seconds: 300 });
    expect(plan.options).toEqual({
      start_earlier: { latest_start_at: T0 - 300 * S, earlier_by_ms: 300 * S, missed_by_ms: 300 * S },
      more_capacity: null,
      smaller_audience: { max_audience: 0 },
      later_deadline: { earliest_deadline_at: T0 + 300 * S },
    });
  });

  it('deadline before the start: the window is 0, not negative', () => {
    expect(planCampaign({ ...base, deadlineAt: T0 - MIN })).toMatchObject({ window_seconds: 0, reason: 'deadline_not_after_start' });
  });

  it('zero available rate: no finish time; only more capacity or a smaller (empty) audience', () => {
    // The lane has nothing, or other traffic (3,000/s) takes all of its 2,000/s.
    const cases: Array<[Partial<CampaignPlanInput>, number]> = [
      [{ laneMaxRate: 0 }, 5_000],
      [{ otherLaneLoad: 3_000 }, 8_000],
    ];
    for (const [over, laneRateNeeded] of cases) {
      const p = planCampaign({ ...base, ...over });
      expect(p).toMatchObject({ feasible: false, reason: 'no_capacity', available_rate: 0, best_case_seconds: null, projected_finish_at: null });
      expect(p.options).toMatchObject({ start_earlier: null, later_deadline: null, smaller_audience: { max_audience: 0 } });
      expect(p.options?.more_capacity?.lane_rate_needed).toBe(laneRateNeeded);
    }
  });

  it('all of the provider reserved for other lanes: no provider rate helps', () => {
    expect(planCampaign({ ...base, reservedShare: 1 }).options?.more_capacity).toEqual({ lane_rate_needed: 5_000, provider_rate_needed: null });
  });

  it('rejects nonsense inputs', () => {
    expect(() => planCampaign({ ...base, audienceSize: -1 })).toThrow(/audienceSize/);
    expect(() => planCampaign({ ...base, audienceSize: 1.5 })).toThrow(/audienceSize/);
    expect(() => planCampaign({ ...base, laneMaxRate: -1 })).toThrow(/laneMaxRate/);
    expect(() => planCampaign({ ...base, otherLaneLoad: Number.NaN })).toThrow(/otherLaneLoad/);
    expect(() => planCampaign({ ...base, reservedShare: 1.5 })).toThrow(/reservedShare/);
    expect(() => planCampaign({ ...base, deadlineAt: Number.POSITIVE_INFINITY })).toThrow(/deadlineAt/);
    expect(() => planCampaign({ ...base, laneMaxRate: 1e-300 })).toThrow(/too small/);
  });
});

const inputArb: fc.Arbitrary<CampaignPlanInput> = fc.record(
  {
    audienceSize: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: 10_000_000 })),
    now: fc.constant(T0),
    startAt: fc.integer({ min: -MIN, max: 60 * MIN }).map((d) => T0 + d),
    deadlineAt: fc.integer({ min: -10 * MIN, max: 24 * 60 * MIN }).map((d) => T0 + d),
    laneMaxRate: fc.oneof(fc.constant(0), fc.constantFrom(1, 100, 2_000), fc.double({ min: 0.01, max: 50_000, noNaN: true })),
    otherLaneLoad: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 5_000, noNaN: true })),
    reservedShare: fc.oneof(fc.constant(0.2), fc.double({ min: 0, max: 0.95, noNaN: true })),
  },
  { requiredKeys: ['audienceSize', 'now', 'deadlineAt', 'laneMaxRate'] },
);

describe('planCampaign: properties', () => {
  it('property: every suggested change, applied, makes the plan feasible, and is the least change that does', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(inputArb, (input) => {
        const plan = planCampaign(input);
        seen.add(String(plan.reason));
        expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
        const again = (over: Partial<CampaignPlanInput>): CampaignPlan => planCampaign({ ...input, ...over });
        if (plan.feasible) {
          expect(plan.options).toBeNull();
          if (plan.audience_size > 0) expect(plan.projected_finish_at as number).toBeLessThanOrEqual(plan.deadline_at);
          return;
        }
        const o = plan.options!;
        // A smaller audience: the largest that fits.
        if (o.smaller_audience.max_audience > 0) expect(again({ audienceSize: o.smaller_audience.max_audience }).feasible).toBe(true);
        expect(again({ audienceSize: o.smaller_audience.max_audience + 1 }).feasible).toBe(false);
        // A later deadline: the earliest that works.
        if (o.later_deadline) {
          expect(again({ deadlineAt: o.later_deadline.earliest_deadline_at }).feasible).toBe(true);
          expect(again({ deadlineAt: o.later_deadline.earliest_deadline_at - 1 }).feasible).toBe(false);
          expect(o.later_deadline.earliest_deadline_at).toBe(plan.projected_finish_at);
        }
        // Start earlier: the latest start that works (pretending it is that time now, if it has passed).
        if (o.start_earlier) {
          const s = o.start_earlier.latest_start_at;
          expect(again({ now: Math.min(T0, s), startAt: s }).feasible).toBe(true);
          expect(again({ now: Math.min(T0, s + 1), startAt: s + 1 }).feasible).toBe(false);
          expect(o.start_earlier.missed_by_ms).toBe(Math.max(0, T0 - s));
          expect(o.start_earlier.earlier_by_ms).toBe(plan.start_at - s);
        }
        // More capacity: the lane rate needed, or the provider rate needed with the same reserved share.
        if (o.more_capacity) {
          expect(again({ laneMaxRate: o.more_capacity.lane_rate_needed }).feasible).toBe(true);
          const provider = o.more_capacity.provider_rate_needed as number;
          expect(again({ laneMaxRate: provider * (1 - (input.reservedShare ?? 0)) }).feasible).toBe(true);
        } else {
          expect(plan.reason).toBe('deadline_not_after_start');
        }
      }),
      { numRuns: 5_000 },
    );
    // Non-vacuity: every outcome was reached.
    expect([...seen].sort()).toEqual(['deadline_not_after_start', 'no_capacity', 'nothing_to_send', 'null', 'rate_too_low']);
  });

  it('property: feasible exactly when the best-case finish is at or before the deadline', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const plan = planCampaign(input);
        if (plan.audience_size === 0) return;
        const inTime = plan.projected_finish_at !== null && plan.projected_finish_at <= plan.deadline_at && plan.window_seconds > 0;
        expect(plan.feasible).toBe(inTime);
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('projectFinish', () => {
  it('120,000 left at 2,000/s: one minute', () => {
    expect(projectFinish({ remaining: 120_000, rate: 2_000, now: T0 })).toEqual({ seconds_remaining: 60, finish_at: T0 + MIN });
  });

  it('nothing left: done now; no rate: unknown', () => {
    expect(projectFinish({ remaining: 0, rate: 0, now: T0 })).toEqual({ seconds_remaining: 0, finish_at: T0 });
    expect(projectFinish({ remaining: 5, rate: 0, now: T0 })).toEqual({ seconds_remaining: null, finish_at: null });
  });

  it('rounds up to whole ms and rejects negative numbers', () => {
    expect(projectFinish({ remaining: 1, rate: 3, now: T0 })).toEqual({ seconds_remaining: 0.334, finish_at: T0 + 334 });
    expect(() => projectFinish({ remaining: -1, rate: 1, now: T0 })).toThrow(RangeError);
  });
});
