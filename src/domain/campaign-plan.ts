/**
 * The campaign planner: before a campaign starts, can its lane send N messages between start
 * and deadline, and if not, what would have to change — start earlier, more capacity, a smaller
 * audience or a later deadline — with the number for each. The HTTP API returns the plan as is,
 * so field names are snake_case and times are epoch ms.
 *
 * It is a best case: N / rate, with every permit of the lane used and nothing else in the way
 * but `other_lane_load`. It ignores the burst (which can only help, by burst / rate seconds),
 * retries and provider latency, so a campaign planned at 100% of its lane will finish late;
 * the dashboard shows the real progress with `projectFinish`.
 */

export interface CampaignPlanInput {
  /** Recipients, a whole number ≥ 0. */
  audienceSize: number;
  now: number;
  /** When sending starts; default `now`, and a start in the past means now. */
  startAt?: number;
  deadlineAt: number;
  /** The most the campaign's lane can give, msg/s: the provider's rate minus the other lanes' guaranteed shares (lanes.ts `max_rate`). */
  laneMaxRate: number;
  /** Msg/s of other traffic expected to take from that maximum meanwhile (other campaigns, receipts, codes borrowing above their share). Default 0. */
  otherLaneLoad?: number;
  /** The share of the provider's rate reserved for other lanes (default 0), to turn a lane rate into a provider rate. */
  reservedShare?: number;
}

export type PlanReason =
  /** Feasible: the audience is empty. */
  | 'nothing_to_send'
  /** Infeasible: the deadline is at or before the start, so no rate is enough. */
  | 'deadline_not_after_start'
  /** Infeasible: the lane has no rate left for this campaign. */
  | 'no_capacity'
  /** Infeasible: the lane is slower than the deadline requires. */
  | 'rate_too_low';

export interface CampaignOptions {
  /** Null when no start time works (no capacity). `earlier_by_ms`: how much before start_at; `missed_by_ms` > 0 when the latest start is already past. */
  start_earlier: { latest_start_at: number; earlier_by_ms: number; missed_by_ms: number } | null;
  /**
   * Null when no rate is enough (empty window). Rates are rounded up to 6 significant digits.
   * The lane rate includes the other load; the provider rate assumes the reserved share stays reserved.
   */
  more_capacity: { lane_rate_needed: number; provider_rate_needed: number | null } | null;
  smaller_audience: { max_audience: number };
  /** Null when no deadline works (no capacity). */
  later_deadline: { earliest_deadline_at: number } | null;
}

export interface CampaignPlan {
  audience_size: number;
  start_at: number;
  deadline_at: number;
  /** deadline − start in seconds, 0 when the deadline is not after the start. */
  window_seconds: number;
  /** Msg/s the deadline requires: N / window. Null when the window is empty and there is something to send (no rate is enough). */
  required_rate: number | null;
  /** Msg/s the campaign can get: lane maximum minus other load, not below 0. */
  available_rate: number;
  /** N / available rate; null when there is something to send and no rate. */
  best_case_seconds: number | null;
  projected_finish_at: number | null;
  feasible: boolean;
  reason: PlanReason | null;
  /** Null when feasible. */
  options: CampaignOptions | null;
}

/**
 * How many messages `rate` msg/s sends in `windowMs`, rounded down. Rates are decimals, so the
 * product is forgiven a millionth of a message plus a relative 1e-12 (a few thousand ulps)
 * before rounding down: 33.3/s × 30 s must count as 999, not 998.9999999999999, and a rate
 * computed as N / window must fit N.
 */
function fits(rate: number, windowMs: number): number {
  if (!(windowMs > 0 && rate > 0)) return 0;
  const x = (rate * windowMs) / 1_000;
  return Math.floor(x + 1e-6 + x * 1e-12);
}

/** `x` rounded up to 6 significant digits: a rate a person can type into a config, never below what is needed. */
function ceilSignificant(x: number): number {
  if (!(x > 0)) return x;
  const r = Number(x.toPrecision(6));
  // Within 1e-13 is float noise (0.1 + 0.2 is 0.30000000000000004): `fits` forgives 1e-12.
  if (r >= x * (1 - 1e-13)) return r;
  const unit = 10 ** (Math.floor(Math.log10(x)) - 5);
  return Number((r + unit).toPrecision(6));
}

/** The shortest whole-ms window in which `rate` sends `n` (rate > 0), consistent with `fits`; null past 2^53 ms (a rate of ~0 msg/s). */
function drainMs(n: number, rate: number): number | null {
  let w = Math.ceil((n * 1_000) / rate);
  if (!Number.isSafeInteger(w)) return null;
  while (w > 0 && fits(rate, w - 1) >= n) w--;
  while (fits(rate, w) < n) w++;
  return w;
}

/** Whether the lane can send the audience by the deadline, and if not, the numbers for each way out. */
export function planCampaign(input: CampaignPlanInput): CampaignPlan {
  const n = input.audienceSize;
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`audienceSize must be a whole number ≥ 0, got ${n}`);
  for (const [k, v] of [
    ['now', input.now],
    ['deadlineAt', input.deadlineAt],
    ['startAt', input.startAt ?? input.now],
  ] as const) {
    if (!Number.isFinite(v)) throw new RangeError(`${k} must be finite epoch ms, got ${v}`);
  }
  const other = input.otherLaneLoad ?? 0;
  const reserved = input.reservedShare ?? 0;
  if (!(input.laneMaxRate >= 0) || !Number.isFinite(input.laneMaxRate)) throw new RangeError(`laneMaxRate must be ≥ 0, got ${input.laneMaxRate}`);
  if (!(other >= 0) || !Number.isFinite(other)) throw new RangeError(`otherLaneLoad must be ≥ 0, got ${other}`);
  if (!(reserved >= 0 && reserved <= 1)) throw new RangeError(`reservedShare must be in 0..1, got ${reserved}`);

  const start = Math.max(input.now, input.startAt ?? input.now);
  const deadline = input.deadlineAt;
  const windowMs = Math.max(0, deadline - start);
  const available = Math.max(0, input.laneMaxRate - other);
  const drain = n === 0 ? 0 : available > 0 ? drainMs(n, available) : null;
  if (n > 0 && drain === null && available > 0) throw new RangeError(`laneMaxRate − otherLaneLoad = ${available} msg/s is too small to plan with`);

  const plan: CampaignPlan = {
    audience_size: n,
    start_at: start,
    deadline_at: deadline,
    window_seconds: windowMs / 1_000,
    required_rate: n === 0 ? 0 : windowMs > 0 ? n / (windowMs / 1_000) : null,
    available_rate: available,
    best_case_seconds: drain === null ? null : drain / 1_000,
    projected_finish_at: drain === null ? null : start + drain,
    feasible: false,
    reason: null,
    options: null,
  };
  if (n === 0) return { ...plan, feasible: true, reason: 'nothing_to_send' };
  if (windowMs > 0 && n <= fits(available, windowMs)) return { ...plan, feasible: true };

  const reason: PlanReason = windowMs === 0 ? 'deadline_not_after_start' : available === 0 ? 'no_capacity' : 'rate_too_low';
  const laneRateNeeded = plan.required_rate === null ? null : ceilSignificant(plan.required_rate + other);
  const latestStart = drain === null ? null : deadline - drain;
  return {
    ...plan,
    reason,
    options: {
      start_earlier:
        latestStart === null ? null : { latest_start_at: latestStart, earlier_by_ms: start - latestStart, missed_by_ms: Math.max(0, input.now - latestStart) },
      more_capacity:
        laneRateNeeded === null
          ? null
          : { lane_rate_needed: laneRateNeeded, provider_rate_needed: reserved < 1 ? ceilSignificant(laneRateNeeded / (1 - reserved)) : null },
      smaller_audience: { max_audience: fits(available, windowMs) },
      later_deadline: drain === null ? null : { earliest_deadline_at: start + drain },
    },
  };
}

export interface FinishProjection {
  /** Seconds to send `remaining` at `rate`; null when something remains and the rate is 0. */
  seconds_remaining: number | null;
  finish_at: number | null;
}

/** When a running campaign finishes if it keeps sending `remaining` messages at `rate` msg/s from `now`. */
export function projectFinish(p: { remaining: number; rate: number; now: number }): FinishProjection {
  if (!(p.remaining >= 0) || !(p.rate >= 0) || !Number.isFinite(p.now)) throw new RangeError('remaining and rate must be ≥ 0 and now finite');
  if (p.remaining === 0) return { seconds_remaining: 0, finish_at: p.now };
  if (p.rate === 0 || !Number.isFinite(p.remaining)) return { seconds_remaining: null, finish_at: null };
  const ms = Math.ceil((p.remaining * 1_000) / p.rate);
  return { seconds_remaining: ms / 1_000, finish_at: p.now + ms };
}
