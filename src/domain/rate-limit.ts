/**
 * The rate limiter's arithmetic: GCRA (the generic cell rate algorithm of ATM networks, ITU-T
 * I.371; the "virtual scheduling" form). The state of one (provider account, lane) is a single
 * number, the theoretical arrival time `tat`: the moment the schedule of permits already granted
 * would be over if they were spaced exactly one emission interval T = 1/rate apart. A request
 * for k permits at `now` is granted when max(tat, now) + k·T − now ≤ burst·T.
 *
 * Units: `tat` is an integer count of microseconds since the epoch, and T is a whole number of
 * microseconds, rounded up. Integers below 2^53 (epoch µs stays below it until the year 2255)
 * make every step exact in a double, in a PostgreSQL BIGINT and in a SQLite INTEGER, so the
 * bounds below hold exactly instead of up to accumulated rounding; fractional milliseconds would
 * drift by up to half an ulp per grant. Rounding T up means the rate actually enforced is
 * 1e6 / ceil(1e6 / rate) ≤ rate: exact for every rate dividing 1,000,000 (1, 2, 5, 10, 25, 100,
 * 250, 1000, 2000…); 3/s becomes 2.999994/s; never more than asked.
 *
 * The bound (docs/campaign-planning.md has the proof): over any window [t, t + W) of the `now`
 * values passed in, whatever the callers and the order of their calls on one state, the permits
 * granted number fewer than W/T + burst, i.e. at most burst − 1 + ceil(W/T) (`windowBound`).
 */

const US_PER_MS = 1_000;
const US_PER_S = 1_000_000;

export interface RateLimit {
  /** Permits per second; any positive number (0.5 is one every 2 s). */
  ratePerSecond: number;
  /** The most permits granted at one instant from idle: a whole number ≥ 1 (1 = evenly spaced). */
  burst: number;
}

export interface LimiterState {
  /** Theoretical arrival time, integer microseconds since the epoch. 0 (or any past time) = idle: the full burst is available. */
  tatUs: number;
}

/** A limiter nobody has used: the full burst is available. */
export const IDLE_LIMITER_STATE: LimiterState = Object.freeze({ tatUs: 0 });

export interface AcquireRequest extends RateLimit {
  /** Epoch ms (fractions are kept to the microsecond). */
  now: number;
  /** Permits wanted, a whole number ≥ 0; a worker leases a small batch per round trip. */
  requested: number;
}

export interface AcquireResult {
  state: LimiterState;
  /** 0 ≤ granted ≤ requested. */
  granted: number;
  /** When granted < requested: the earliest whole epoch ms at which another permit is available. Otherwise null. */
  retryAt: number | null;
}

/** The emission interval in whole microseconds: 1e6 / rate, rounded up so the enforced rate never exceeds the configured one. */
export function emissionIntervalUs(ratePerSecond: number): number {
  if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) throw new RangeError(`ratePerSecond must be a positive finite number, got ${ratePerSecond}`);
  // At least 1 µs: 1,000,000 permits per second is the fastest this representation can express.
  return Math.max(1, Math.ceil(US_PER_S / ratePerSecond));
}

/** The rate the limiter really enforces for `ratePerSecond`: 1e6 / emissionIntervalUs, never above the configured rate. */
export function effectiveRatePerSecond(ratePerSecond: number): number {
  return US_PER_S / emissionIntervalUs(ratePerSecond);
}

/** Epoch ms to the microsecond at or before it (floor: a caller is never credited with time that has not passed). */
export function toMicros(ms: number): number {
  if (!Number.isFinite(ms)) throw new RangeError(`a time must be finite epoch ms, got ${ms}`);
  return Math.floor(ms * US_PER_MS);
}

/** The earliest whole epoch ms at which `state` can grant one permit (it may already be in the past). */
export function availableAt(state: LimiterState, limit: RateLimit): number {
  const t = emissionIntervalUs(limit.ratePerSecond);
  // One permit fits at n when max(tat, n) + T ≤ n + burst·T, i.e. n ≥ tat − (burst − 1)·T.
  return Math.ceil((state.tatUs - (checkBurst(limit.burst) - 1) * t) / US_PER_MS);
}

/** Grants up to `requested` permits at `now` (partial grants are normal) and says when to come back if short. */
export function acquire(state: LimiterState, req: AcquireRequest): AcquireResult {
  const r = acquireJoint([state], { now: req.now, requested: req.requested, limits: [req] });
  return { state: r.states[0]!, granted: r.granted, retryAt: r.retryAt };
}

export interface JointAcquireRequest {
  now: number;
  requested: number;
  /** limits[i] governs states[i]: e.g. a lane's limiter and its provider account's limiter. */
  limits: readonly RateLimit[];
}

/**
 * Grants the same count from every limiter at once (the fewest any of them allows), so a permit
 * passes a lane's limit and its account's limit together and none is spent on one but not the other.
 */
export function acquireJoint(states: readonly LimiterState[], req: JointAcquireRequest): { states: LimiterState[]; granted: number; retryAt: number | null } {
  if (states.length === 0 || states.length !== req.limits.length) throw new RangeError('acquireJoint needs one limit per state, and at least one');
  if (!Number.isSafeInteger(req.requested) || req.requested < 0) throw new RangeError(`requested must be a whole number ≥ 0, got ${req.requested}`);
  const nowUs = toMicros(req.now);
  const ts = req.limits.map((l) => emissionIntervalUs(l.ratePerSecond));
  let granted = req.requested;
  states.forEach((s, i) => (granted = Math.min(granted, grantable(s.tatUs, nowUs, ts[i]!, checkBurst(req.limits[i]!.burst), granted))));
  // A refusal leaves the state untouched (GCRA's rule): nothing was spent.
  const next = granted === 0 ? states.map((s) => ({ tatUs: s.tatUs })) : states.map((s, i) => ({ tatUs: Math.max(s.tatUs, nowUs) + granted * ts[i]! }));
  const retryAt = granted < req.requested ? Math.max(...next.map((s, i) => availableAt(s, req.limits[i]!))) : null;
  return { states: next, granted, retryAt };
}

/** The largest k ≤ cap with max(tat, now) + k·T ≤ now + burst·T, in exact integer arithmetic. */
function grantable(tatUs: number, nowUs: number, t: number, burst: number, cap: number): number {
  const base = Math.max(tatUs, nowUs);
  const limit = nowUs + burst * t;
  if (!Number.isSafeInteger(limit) || !Number.isSafeInteger(base + cap * t)) throw new RangeError('limiter arithmetic left the safe integer range');
  if (base + t > limit) return 0;
  // The quotient is computed in floating point; step it onto the exact answer (at most one step).
  let k = Math.min(cap, Math.floor((limit - base) / t));
  while (k > 0 && base + k * t > limit) k--;
  while (k < cap && base + (k + 1) * t <= limit) k++;
  return k;
}

function checkBurst(burst: number): number {
  if (!Number.isSafeInteger(burst) || burst < 1) throw new RangeError(`burst must be a whole number ≥ 1, got ${burst}`);
  return burst;
}

export interface ThrottleRequest extends RateLimit {
  now: number;
  /** The provider's Retry-After in ms; missing, zero, negative or NaN means `defaultThrottleMs`. */
  retryAfterMs?: number | null;
}

/**
 * The pause after a 429 without Retry-After: one second, or the time the burst takes to drain
 * at the rate if longer. One second because provider quotas are counted per second (Twilio's
 * "messages per second", SES's "maximum send rate"), so that is when their window has rolled over.
 */
export function defaultThrottleMs(limit: RateLimit): number {
  return Math.max(1_000, (checkBurst(limit.burst) * emissionIntervalUs(limit.ratePerSecond)) / US_PER_MS);
}

/**
 * Pushes the schedule back after a 429 so that no caller of this state gets a permit before
 * now + Retry-After (to the microsecond); afterwards permits resume at the rate, one at a time,
 * and the burst refills only while demand stays below the rate. Never moves the schedule earlier.
 */
export function throttle(state: LimiterState, req: ThrottleRequest): { state: LimiterState; resumeAt: number } {
  const t = emissionIntervalUs(req.ratePerSecond);
  const pause = req.retryAfterMs != null && req.retryAfterMs > 0 ? req.retryAfterMs : defaultThrottleMs(req);
  const untilUs = Math.ceil((req.now + pause) * US_PER_MS);
  // A permit fits at n only if tat ≤ n + (burst − 1)·T; with tat = until + (burst − 1)·T no n < until qualifies.
  const tatUs = Math.max(state.tatUs, untilUs + (checkBurst(req.burst) - 1) * t);
  if (!Number.isSafeInteger(tatUs)) throw new RangeError('limiter arithmetic left the safe integer range');
  const next = { tatUs };
  return { state: next, resumeAt: availableAt(next, req) };
}

/**
 * A 429 this soon after the account's last pause ended continues that pause rather than starting
 * a new one (the store's `paused_since`). Permits resume when a pause ends, so a provider that
 * keeps throttling answers the first calls let through with 429 again: each pause lapses for the
 * moment those calls take (a claim and one call, at most the 10 s timeout plus a margin), and
 * without this the account would never read as paused for longer than one Retry-After. One
 * minute covers that with room; a 429 after a minute of calls answered normally is a new pause.
 */
export const PAUSE_CONTINUES_WITHIN_MS = 60_000;

/** The most permits one limiter can grant within any window [t, t + windowMs) of `now` values: burst − 1 + ceil(W / T). It is reached from idle. */
export function windowBound(limit: RateLimit & { windowMs: number }): number {
  const t = emissionIntervalUs(limit.ratePerSecond);
  return checkBurst(limit.burst) - 1 + Math.ceil((limit.windowMs * US_PER_MS) / t);
}

export interface QuotaRule {
  /** What the provider allows per window, e.g. 100 for "100 messages per second". */
  quota: number;
  /** The provider's window, default 1000 ms. */
  windowMs?: number;
  burst: number;
  /**
   * How far apart the provider may see two sends that were granted at the same moment: spread of
   * network latency plus the longest a worker holds a leased permit before sending. Default 0.
   */
  skewMs?: number;
}

/**
 * The highest rate to configure so the provider never counts more than `quota` sends in any
 * window of `windowMs`, closed or half-open, with the given burst and skew; 0 when burst > quota.
 * Derivation: sends seen in a closed window W were granted within W + skew, and a closed window
 * of length L holds at most burst + floor(L / T) grants; the result is the rate of the smallest T
 * keeping that ≤ quota. A simpler sufficient rule at zero skew: rate + burst ≤ quota.
 */
export function quotaSafeRate(rule: QuotaRule): number {
  const quota = Math.floor(rule.quota);
  const spanUs = ((rule.windowMs ?? 1_000) + (rule.skewMs ?? 0)) * US_PER_MS;
  const room = quota - checkBurst(rule.burst); // grants beyond the burst allowed in the span
  if (room < 0 || !(spanUs > 0)) return 0;
  const t = Math.floor(spanUs / (room + 1)) + 1;
  return US_PER_S / t;
}

/**
 * The state a limiter returns to when `unused` of the `granted` permits a reservation took are
 * given back, or null when they cannot be. The rule that keeps the window bound: a refund is
 * applied only to the exact state the reservation wrote (`reserved`, compared and set in the
 * store), and takes back the last `unused` emission intervals it added, so the state becomes
 * exactly what a grant of `granted − unused` at the reservation's own `now` would have written:
 * max(tat₀, now) + (granted − unused)·T. The history is then one GCRA could have produced, and
 * the bound above holds for what was really spent. Once anybody else has moved the state (a later
 * grant, a throttle), the permits are forfeited instead: a later grant was computed on the
 * higher state, and giving back slots under it could let one window hold more than the bound.
 * A forfeited permit costs capacity, never the quota.
 */
export function refundedState(reserved: LimiterState, limit: RateLimit, r: { granted: number; unused: number }): LimiterState | null {
  if (!Number.isSafeInteger(r.unused) || r.unused < 0 || r.unused > r.granted)
    throw new RangeError(`unused must be a whole number from 0 to granted, got ${r.unused}`);
  if (r.unused === 0) return null;
  return { tatUs: reserved.tatUs - r.unused * emissionIntervalUs(limit.ratePerSecond) };
}
