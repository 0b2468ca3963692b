/**
 * How long to wait before the next attempt: an explicit schedule (a ladder) or a bounded
 * exponential backoff, with jitter. Randomness is injected so tests and property checks
 * are deterministic. The purpose ladders in ladders.ts are values of this type.
 */

export interface RetryPolicy {
  /** Attempts allowed in total, the first included. */
  maxAttempts: number;
  /** Delay after the first failed attempt before jitter (exponential policies). */
  baseDelayMs: number;
  /** Upper bound of the planned delay, before jitter (`up10` may add up to 10% on top; a provider's Retry-After may exceed it). */
  maxDelayMs: number;
  /**
   * Explicit waits: scheduleMs[i] is the wait after attempt i+1. Past its end the last entry
   * repeats. When absent, the wait doubles from baseDelayMs.
   */
  scheduleMs?: readonly number[];
  /**
   * `equal`: uniformly in [d/2, d], so a retry never fires at once after a failure.
   * `full`: uniformly in [1 s, d] (AWS "full jitter", floored so it never fires at once).
   * `up10`: uniformly in [d, 1.1·d]: never earlier than the documented offset.
   * `none`: exactly d (tests, and ladders that say so).
   */
  jitter: 'equal' | 'full' | 'up10' | 'none';
}

/** The default for every purpose until purpose ladders land: 8 attempts, 1 s doubling to 5 min. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  jitter: 'equal',
};

/** A number in [0, 1). `Math.random` in production, a seeded sequence in tests. */
export type Random = () => number;

/** The wait after `attemptsMade` attempts before jitter: the schedule's entry, or the doubling backoff, capped. */
export function plannedDelayMs(policy: RetryPolicy, attemptsMade: number): number {
  const index = Math.max(0, attemptsMade - 1);
  const schedule = policy.scheduleMs;
  const planned = schedule && schedule.length > 0 ? schedule[Math.min(index, schedule.length - 1)]! : policy.baseDelayMs * 2 ** Math.min(index, 30);
  return Math.min(policy.maxDelayMs, planned);
}

/**
 * Delay before the next attempt after `attemptsMade` attempts. A definite `Retry-After`
 * is a lower bound: the result is never below it, and gets up to 10% (at most 1 s) of
 * jitter on top so that many deliveries throttled together do not return together.
 */
export function nextDelayMs(policy: RetryPolicy, attemptsMade: number, random: Random, retryAfterMs?: number | null): number {
  const backoff = jittered(policy.jitter, plannedDelayMs(policy, attemptsMade), random);
  // `!(x > 0)` rather than `x <= 0`: a NaN from an unparseable header counts as no Retry-After,
  // instead of turning the whole delay (and next_attempt_at) into NaN.
  if (retryAfterMs == null || !(retryAfterMs > 0)) return Math.ceil(backoff);
  const spread = policy.jitter === 'none' ? 0 : Math.min(1_000, retryAfterMs * 0.1) * random();
  return Math.ceil(Math.max(backoff, retryAfterMs + spread));
}

function jittered(jitter: RetryPolicy['jitter'], d: number, random: Random): number {
  switch (jitter) {
    case 'none':
      return d;
    case 'equal':
      return d / 2 + (d / 2) * random();
    case 'full': {
      const floor = Math.min(1_000, d);
      return floor + (d - floor) * random();
    }
    case 'up10':
      return d + d * 0.1 * random();
  }
}
