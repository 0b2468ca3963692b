/**
 * Quiet hours: a daily window of local time, in the recipient's IANA time zone, in which
 * Herald does not send a purpose (docs/scheduling.md). Pure: `now` comes in as an argument.
 *
 * Zone rules come from `temporal-polyfill` (the TC39 Temporal API over the ICU time zone data
 * Node ships, tzdata 2025c in Node 20.20). `Intl.DateTimeFormat` alone maps an instant to a
 * local time, but it cannot say when the zone's next transition is, which is what finding
 * "when does the window end" needs on a spring-forward or fall-back night; Temporal's
 * `ZonedDateTime.getTimeZoneTransition` does, so no offset or transition arithmetic is written
 * here. `Temporal.Now` (a clock) is never used (test/domain/state-machine-docs.test.ts).
 */
import { Temporal } from 'temporal-polyfill';
import type { Purpose } from './vocabulary.js';

/** A daily window `[start, end)` of local wall-clock time, minutes after midnight; `start > end` wraps midnight (21:00–08:00). */
export interface QuietWindow {
  startMinute: number;
  endMinute: number;
}

/** The default quiet hours per purpose (issue 28): codes, receipts and alerts are never held. */
export const DEFAULT_QUIET_HOURS: Readonly<Record<Purpose, QuietWindow | null>> = {
  marketing: { startMinute: 21 * 60, endMinute: 8 * 60 },
  conversational: { startMinute: 22 * 60, endMinute: 7 * 60 },
  otp: null,
  alert: null,
  transactional: null,
};

/** The purposes whose messages may wait for a window to end; the others always go at once. */
export const HOLDABLE_PURPOSES = ['marketing', 'conversational'] as const satisfies readonly Purpose[];

const CLOCK = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** "21:00" → 1260; null when it is not a 24-hour `HH:MM`. */
export function parseClockTime(text: string): number | null {
  const m = CLOCK.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** 1260 → "21:00". */
export function formatClockTime(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

/**
 * True for an IANA zone name this Node knows (`Europe/Berlin`, `UTC`). Offsets (`+01:00`) are
 * refused: an offset has no daylight-saving rules, so a window in it would drift by an hour
 * twice a year for most people who would pick one.
 */
export function isTimeZone(name: string): boolean {
  if (name.length === 0 || name.length > 64 || !/^[A-Za-z]/.test(name)) return false;
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(name);
    return true;
  } catch {
    return false;
  }
}

function zoned(now: number, zone: string): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(zone);
}

function inWindow(w: QuietWindow, minuteOfDay: number): boolean {
  if (w.startMinute === w.endMinute) return false;
  return w.startMinute < w.endMinute ? minuteOfDay >= w.startMinute && minuteOfDay < w.endMinute : minuteOfDay >= w.startMinute || minuteOfDay < w.endMinute;
}

/** True when `now` falls inside the window in `zone`'s local time. */
export function isQuiet(now: number, zone: string, w: QuietWindow): boolean {
  const z = zoned(now, zone);
  return inWindow(w, z.hour * 60 + z.minute);
}

const DAY_MS = 86_400_000;

/**
 * The first instant at or after `from` at which `isQuiet` is `quiet`. Between two of the zone's
 * transitions (Temporal's `getTimeZoneTransition`) the offset is fixed, so the wall clock runs
 * with real time and reaches the window's boundary after (boundary − wall time) mod 24 h; at a
 * transition the clocks jump (into, over or out of the window), so the answer may be the
 * transition itself. This is what makes a spring-forward or fall-back night come out right
 * without any offset arithmetic: an end swallowed by the gap ends at the jump, a repeated hour
 * is quiet twice when it is in the window, and a jump back out of the window ends it.
 */
function firstInstant(from: number, zone: string, w: QuietWindow, quiet: boolean): number {
  let t = from;
  const boundary = (quiet ? w.startMinute : w.endMinute) * 60_000;
  // A zone has at most a few transitions a day; 16 segments is far past any real rule.
  for (let i = 0; i < 16; i++) {
    const z = zoned(t, zone);
    if (inWindow(w, z.hour * 60 + z.minute) === quiet) return t;
    const wall = ((z.hour * 60 + z.minute) * 60 + z.second) * 1000 + z.millisecond;
    const reach = t + ((((boundary - wall) % DAY_MS) + DAY_MS) % DAY_MS || DAY_MS);
    const jump = z.getTimeZoneTransition('next')?.epochMilliseconds ?? Number.POSITIVE_INFINITY;
    if (reach < jump) return reach;
    t = jump;
  }
  throw new RangeError(`no ${quiet ? 'start' : 'end'} of the window in ${zone} found after ${from}`);
}

/**
 * When the window that holds `now` ends: the first instant after `now` whose local time is
 * outside the window; null when `now` is not inside it. On a spring-forward night whose gap
 * swallows the end (02:30 on a night the clocks go 02:00 → 03:00) that is the jump itself, the
 * moment the clocks read 03:00; on a fall-back night, the first time the clocks read the end
 * (and if they go back into the window, it holds again until they read it the second time).
 */
export function quietUntil(now: number, zone: string, w: QuietWindow): number | null {
  if (!isQuiet(now, zone, w)) return null;
  return firstInstant(now, zone, w, false);
}

/**
 * When the window next begins at or after `from` in `zone` (the time a campaign's wave in that
 * zone must finish by): the first instant whose local time is inside it; `from` when it is.
 */
export function nextQuietStart(from: number, zone: string, w: QuietWindow): number {
  if (w.startMinute === w.endMinute) return Number.POSITIVE_INFINITY;
  return firstInstant(from, zone, w, true);
}

/** What the quiet-hours check decides for one delivery at send time. */
export type QuietVerdict =
  | { kind: 'send' }
  /** Inside the window: due again when it ends, which is before expiry. */
  | { kind: 'defer'; until: number }
  /** Inside the window and it ends at or after `expires_at`: the message is useless by then. */
  | { kind: 'expire' };

/** The quiet-hours check: a purpose with no window always goes; inside the window the delivery waits, or expires if the window outlasts it. */
export function quietHoursVerdict(p: { now: number; expiresAt: number; zone: string; window: QuietWindow | null }): QuietVerdict {
  if (p.window === null) return { kind: 'send' };
  const until = quietUntil(p.now, p.zone, p.window);
  if (until === null || until <= p.now) return { kind: 'send' };
  return until >= p.expiresAt ? { kind: 'expire' } : { kind: 'defer', until };
}
