/**
 * How a webhook request's result is read and when the next one may go: Standard Webhooks'
 * producer rules (standardwebhooks.com, "Retry schedule"). 2xx is delivered; 410 Gone disables the
 * endpoint; anything else (3xx included: redirects are never followed) is a failure retried on
 * the spec's example schedule, with a Retry-After on 429/502/503/504 honoured as a lower bound.
 */
import { nextDelayMs, type Random, type RetryPolicy } from '../domain/index.js';
import type { PostResult } from './webhook-http.js';

/**
 * The waits after the 1st, 2nd, … failure: the spec's example schedule ("immediately, 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h"), the first try being the immediate one.
 * Past its end the last entry repeats: a message is never given up on (that would leave a gap);
 * an endpoint that keeps failing is disabled instead (WebhookSender's `disableAfterMs`).
 */
export const WEBHOOK_RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;

const DAY_MS = 24 * 3_600_000;

// `up10`: never earlier than the documented offset, up to 10% later, so endpoints that failed
// together do not all come back in the same second.
const POLICY: RetryPolicy = {
  maxAttempts: Number.MAX_SAFE_INTEGER,
  baseDelayMs: WEBHOOK_RETRY_SCHEDULE_MS[0],
  maxDelayMs: DAY_MS,
  scheduleMs: WEBHOOK_RETRY_SCHEDULE_MS,
  jitter: 'up10',
};

/** The wait after `failures` consecutive failures (≥ 1), never below `retryAfterMs` (capped at a day). */
export function webhookRetryDelayMs(failures: number, random: Random, retryAfterMs: number | null = null): number {
  return nextDelayMs(POLICY, Math.max(1, failures), random, retryAfterMs === null ? null : Math.min(retryAfterMs, DAY_MS));
}

/** A Retry-After header (delay-seconds or an HTTP date, RFC 9110 §10.2.3) as milliseconds from `now`, or null. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export type AttemptOutcome =
  { kind: 'delivered'; status: number } | { kind: 'gone'; status: 410 } | { kind: 'failed'; status: number | null; error: string; retryAfterMs: number | null };

/** Reads one request's result: delivered, gone, or failed (with the Retry-After to honour, if any). */
export function classifyResult(r: PostResult, now: number): AttemptOutcome {
  if (r.kind === 'error') return { kind: 'failed', status: null, error: r.error, retryAfterMs: null };
  if (r.status >= 200 && r.status < 300) return { kind: 'delivered', status: r.status };
  if (r.status === 410) return { kind: 'gone', status: 410 };
  const throttled = r.status === 429 || r.status === 502 || r.status === 503 || r.status === 504;
  const error = r.status >= 300 && r.status < 400 ? `answered ${r.status} (redirects are not followed)` : `answered ${r.status}`;
  return { kind: 'failed', status: r.status, error, retryAfterMs: throttled ? parseRetryAfter(r.retryAfter, now) : null };
}
