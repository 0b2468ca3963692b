/**
 * A bounded exponential backoff with jitter. Purpose-specific ladders come later; this is
 * the shape they will fill in. Randomness is injected so tests and property checks are
 * deterministic.
 */

export interface RetryPolicy {
  /** Attempts allowed in total, the first included. */
  maxAttempts: number;
  /** Delay after the first failed attempt before jitter. */
  baseDelayMs: number;
  /** Upper bound of the computed backoff (a provider's Retry-After may exceed it). */
  maxDelayMs: number;
  /**
   * `equal`: uniformly in [d/2, d], so a retry never fires at once after a failure.
   * `none`: exactly d (tests, and ladders that say so).
   */
  jitter: 'equal' | 'none';
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

/**
 * Delay before the next attempt after `attemptsMade` attempts. A definite `Retry-After`
 * is a lower bound: the result is never below it, and gets up to 10% (at most 1 s) of
 * jitter on top so that many deliveries throttled together do not return together.
 */
export function nextDelayMs(
  policy: RetryPolicy,
  attemptsMade: number,
  random: Random,
  retryAfterMs?: number | null,
): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const raw = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(exponent, 30));
  const backoff = policy.jitter === 'none' ? raw : raw / 2 + (raw / 2) * random();
  // `!(x > 0)` rather than `x <= 0`: a NaN from an unparseable header counts as no Retry-After,
  // instead of turning the whole delay (and next_attempt_at) into NaN.
  if (retryAfterMs == null || !(retryAfterMs > 0)) return Math.ceil(backoff);
  const spread = policy.jitter === 'none' ? 0 : Math.min(1_000, retryAfterMs * 0.1) * random();
  return Math.ceil(Math.max(backoff, retryAfterMs + spread));
}
