/**
 * Frequency caps: at most `max` deliveries of one purpose to one recipient on one channel in
 * any rolling `periodMs` (marketing: 2 in a day, 5 in a week). Rolling windows, not calendar
 * days, so a cap means the same in every time zone and a recipient never gets 2 at 23:59 and
 * 2 more at 00:01 (docs/scheduling.md "Frequency caps"). Pure: the sends counted so far come
 * in from the store, `now` as an argument.
 */
import type { Purpose } from './vocabulary.js';

export interface FrequencyCap {
  max: number;
  periodMs: number;
}

/** What happens to a delivery over its cap: wait until the cap allows it (before expiry), or end `terminal/suppressed` (frequency_capped). */
export const CAP_ACTIONS = ['defer', 'suppress'] as const;
export type CapAction = (typeof CAP_ACTIONS)[number];

export interface PurposeCaps {
  caps: FrequencyCap[];
  action: CapAction;
}

const DAY_MS = 86_400_000;

/** The default caps (issue 28's example): marketing 2 a day and 5 a week, deferred; every other purpose uncapped. */
export const DEFAULT_FREQUENCY_CAPS: Readonly<Record<Purpose, PurposeCaps | null>> = {
  marketing: {
    caps: [
      { max: 2, periodMs: DAY_MS },
      { max: 5, periodMs: 7 * DAY_MS },
    ],
    action: 'defer',
  },
  conversational: null,
  otp: null,
  alert: null,
  transactional: null,
};

/** The longest period of a purpose's caps: sends older than this never count again (the store prunes them). */
export function longestPeriodMs(caps: readonly FrequencyCap[]): number {
  return caps.reduce((m, c) => Math.max(m, c.periodMs), 0);
}

/**
 * The most of `sentAt` that one rolling window of `periodMs` holds together with an instant
 * `at`: windows `[s, s + periodMs)` with `s` in `(at − periodMs, at]`. With every send at or
 * before `at` this is the count in `(at − periodMs, at]`. A send recorded after `at` counts too:
 * workers' clocks differ by a little, and one whose clock is behind must not take a slot that a
 * send stamped a few milliseconds "later" by another worker has already taken.
 */
function mostWith(sentAt: readonly number[], at: number, periodMs: number): number {
  const near = sentAt.filter((t) => t > at - periodMs && t < at + periodMs);
  // Counts change only where a later send enters: the fullest window starts just after the
  // period before `at`, or where one of the sends after `at` comes in (whole milliseconds).
  const starts = [at - periodMs + 1, ...near.filter((t) => t > at).map((t) => t - periodMs + 1)];
  let most = 0;
  for (const s of starts) {
    let n = 0;
    for (const t of near) if (t >= s && t < s + periodMs) n++;
    most = Math.max(most, n);
  }
  return most;
}

/**
 * The earliest instant at or after `now` at which one more send keeps every cap, given the
 * times of the sends already counted (any order; a few may be after `now`, stamped by a worker
 * whose clock is ahead). `now` itself when the caps allow it. A cap with `max` < 1 never allows
 * a send (infinity).
 */
export function capAllowsAt(sentAt: readonly number[], caps: readonly FrequencyCap[], now: number): number {
  if (caps.some((c) => c.max < 1)) return Number.POSITIVE_INFINITY;
  // Whether a send at an instant is allowed changes only when a counted send leaves the windows
  // around it (its time + the period): the earliest allowed instant is `now` or one of those.
  const candidates = [now, ...caps.flatMap((c) => sentAt.map((t) => t + c.periodMs)).filter((at) => at > now)].sort((a, b) => a - b);
  for (const at of candidates) if (capAllows(sentAt, caps, at)) return at;
  // Unreachable: after the last send's longest period every window around it is empty.
  return Number.POSITIVE_INFINITY;
}

/** True when one more send at `at` keeps every cap. */
export function capAllows(sentAt: readonly number[], caps: readonly FrequencyCap[], at: number): boolean {
  return caps.every((c) => c.max >= 1 && mostWith(sentAt, at, c.periodMs) < c.max);
}

/** What the frequency-cap check decides for one delivery at send time. */
export type CapVerdict =
  | { kind: 'send' }
  /** Over the cap; it allows this delivery at `until`, before expiry. */
  | { kind: 'defer'; until: number }
  /** Over the cap, and the cap would allow it only at or after `expires_at`. */
  | { kind: 'expire' }
  /** Over the cap, and the purpose's action is `suppress`. */
  | { kind: 'suppress' };

/** The cap check: uncapped goes; over the cap, defer (before expiry) or suppress as configured. */
export function capVerdict(p: { now: number; expiresAt: number; sentAt: readonly number[]; caps: PurposeCaps | null }): CapVerdict {
  if (p.caps === null || p.caps.caps.length === 0) return { kind: 'send' };
  const until = capAllowsAt(p.sentAt, p.caps.caps, p.now);
  if (until <= p.now) return { kind: 'send' };
  if (p.caps.action === 'suppress') return { kind: 'suppress' };
  return until >= p.expiresAt ? { kind: 'expire' } : { kind: 'defer', until };
}
