/**
 * `send_at`: when a notification (a batch item, a campaign's messages) becomes due, and how its
 * expiry is counted from it (docs/scheduling.md "Send later"). Pure: `now` comes in.
 *
 * - A `send_at` at or before `now` is due now (a producer's clock a little behind ours is not
 *   an error); one more than the horizon ahead is refused.
 * - `ttl_seconds` counts from when it is due; an absolute `expires_at` wins, and must be after
 *   `send_at` (a message that expires before it may go is refused, never silently dropped).
 */

/** How far ahead `send_at` may be by default (issue 28). */
export const DEFAULT_SEND_AT_HORIZON_MS = 30 * 86_400_000;

export interface SendAtInput {
  now: number;
  /** Epoch ms of `send_at`, or undefined when the request has none. */
  sendAt?: number;
  /** Epoch ms of an absolute `expires_at`, if given. */
  expiresAt?: number;
  /** The lifetime when no `expires_at` is given: `ttl_seconds` or the purpose's default, in ms. */
  ttlMs: number;
  horizonMs: number;
  /** The longest lifetime counted from when it is due (MAX_TTL_SECONDS). */
  maxLifetimeMs: number;
}

export type SendAtSchedule =
  | { ok: true; dueAt: number; expiresAt: number; scheduled: boolean }
  | { ok: false; problem: 'send_at_beyond_horizon' | 'send_at_after_expiry' | 'expires_in_past' | 'expires_beyond_lifetime' };

/** When a request is due and when it expires, or which rule it breaks. */
export function scheduleOf(p: SendAtInput): SendAtSchedule {
  const scheduled = p.sendAt !== undefined && p.sendAt > p.now;
  const dueAt = scheduled ? (p.sendAt as number) : p.now;
  if (dueAt > p.now + p.horizonMs) return { ok: false, problem: 'send_at_beyond_horizon' };
  if (p.expiresAt !== undefined) {
    if (p.expiresAt <= p.now) return { ok: false, problem: 'expires_in_past' };
    if (p.expiresAt <= dueAt) return { ok: false, problem: 'send_at_after_expiry' };
    if (p.expiresAt > dueAt + p.maxLifetimeMs) return { ok: false, problem: 'expires_beyond_lifetime' };
    return { ok: true, dueAt, expiresAt: p.expiresAt, scheduled };
  }
  return { ok: true, dueAt, expiresAt: dueAt + p.ttlMs, scheduled };
}
