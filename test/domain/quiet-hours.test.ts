/**
 * Quiet hours in the recipient's zone: explicit nights (an ordinary one, spring-forward and
 * fall-back in Europe/Berlin and America/New_York, an end swallowed by the gap) and properties
 * over random instants, zones and windows. Each property counts what it exercised.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_QUIET_HOURS,
  formatClockTime,
  isQuiet,
  isTimeZone,
  nextQuietStart,
  parseClockTime,
  quietHoursVerdict,
  quietUntil,
  type QuietWindow,
} from '../../src/domain/index.js';

const at = (iso: string): number => Date.parse(iso);
const MARKETING = DEFAULT_QUIET_HOURS.marketing as QuietWindow;
const window = (start: string, end: string): QuietWindow => ({ startMinute: parseClockTime(start)!, endMinute: parseClockTime(end)! });
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('clock times and zones', () => {
  it('parses 24-hour HH:MM and refuses anything else', () => {
    expect(parseClockTime('21:00')).toBe(1260);
    expect(parseClockTime('00:00')).toBe(0);
    expect(parseClockTime('23:59')).toBe(1439);
    for (const bad of ['24:00', '7:00', '07:60', '0700', '07:00:00', '', ' 07:00']) expect(parseClockTime(bad), bad).toBeNull();
    expect(formatClockTime(1260)).toBe('21:00');
    expect(formatClockTime(7)).toBe('00:07');
  });

  it('knows IANA names and refuses offsets and nonsense', () => {
    for (const z of ['Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'UTC', 'Australia/Lord_Howe']) expect(isTimeZone(z), z).toBe(true);
    for (const z of ['+01:00', '-05:00', 'Mars/Olympus', '', 'Europe/Berlin\u0000', 'x'.repeat(65)]) expect(isTimeZone(z), z).toBe(false);
  });
});

describe('an ordinary night', () => {
  it('a marketing message due at 23:00 in Berlin waits until 08:00 Berlin time', () => {
    const now = at('2026-06-10T23:00:00+02:00');
    expect(isQuiet(now, 'Europe/Berlin', MARKETING)).toBe(true);
    expect(quietUntil(now, 'Europe/Berlin', MARKETING)).toBe(at('2026-06-11T08:00:00+02:00'));
  });

  it('is outside the window at 08:00 and at 20:59, inside at 21:00 and 07:59', () => {
    const z = 'Europe/Berlin';
    expect(isQuiet(at('2026-06-11T08:00:00+02:00'), z, MARKETING)).toBe(false);
    expect(isQuiet(at('2026-06-11T20:59:59+02:00'), z, MARKETING)).toBe(false);
    expect(isQuiet(at('2026-06-11T21:00:00+02:00'), z, MARKETING)).toBe(true);
    expect(isQuiet(at('2026-06-11T07:59:59+02:00'), z, MARKETING)).toBe(true);
    expect(quietUntil(at('2026-06-11T12:00:00+02:00'), z, MARKETING)).toBeNull();
    // After midnight the window ends the same morning.
    expect(quietUntil(at('2026-06-11T03:00:00+02:00'), z, MARKETING)).toBe(at('2026-06-11T08:00:00+02:00'));
  });

  it('the same instant is quiet in Berlin and not in New York', () => {
    const now = at('2026-06-10T21:30:00Z'); // 23:30 in Berlin, 17:30 in New York
    expect(isQuiet(now, 'Europe/Berlin', MARKETING)).toBe(true);
    expect(isQuiet(now, 'America/New_York', MARKETING)).toBe(false);
  });

  it('a window that does not wrap midnight (13:00–14:00)', () => {
    const w = window('13:00', '14:00');
    expect(quietUntil(at('2026-06-10T13:30:00Z'), 'UTC', w)).toBe(at('2026-06-10T14:00:00Z'));
    expect(quietUntil(at('2026-06-10T14:00:00Z'), 'UTC', w)).toBeNull();
    expect(nextQuietStart(at('2026-06-10T14:00:00Z'), 'UTC', w)).toBe(at('2026-06-11T13:00:00Z'));
  });
});

describe('daylight-saving nights', () => {
  it('Europe/Berlin spring forward (2026-03-29, 02:00 → 03:00): 23:00 waits until 08:00 CEST, a night one hour shorter', () => {
    const now = at('2026-03-28T23:00:00+01:00');
    const until = quietUntil(now, 'Europe/Berlin', MARKETING);
    expect(until).toBe(at('2026-03-29T08:00:00+02:00'));
    expect((until as number) - now).toBe(8 * HOUR);
  });

  it('Europe/Berlin fall back (2026-10-25, 03:00 → 02:00): 23:00 waits until 08:00 CET, a night one hour longer', () => {
    const now = at('2026-10-24T23:00:00+02:00');
    const until = quietUntil(now, 'Europe/Berlin', MARKETING);
    expect(until).toBe(at('2026-10-25T08:00:00+01:00'));
    expect((until as number) - now).toBe(10 * HOUR);
  });

  it('America/New_York spring forward (2026-03-08) and fall back (2026-11-01)', () => {
    expect(quietUntil(at('2026-03-07T23:00:00-05:00'), 'America/New_York', MARKETING)).toBe(at('2026-03-08T08:00:00-04:00'));
    expect(quietUntil(at('2026-10-31T23:00:00-04:00'), 'America/New_York', MARKETING)).toBe(at('2026-11-01T08:00:00-05:00'));
    // Inside the repeated hour (01:30 EDT, then 01:30 EST): both readings are quiet until 08:00 EST.
    expect(quietUntil(at('2026-11-01T01:30:00-04:00'), 'America/New_York', MARKETING)).toBe(at('2026-11-01T08:00:00-05:00'));
    expect(quietUntil(at('2026-11-01T01:30:00-05:00'), 'America/New_York', MARKETING)).toBe(at('2026-11-01T08:00:00-05:00'));
  });

  it('a window ending inside the spring-forward gap ends at the jump (the clocks read 03:00)', () => {
    const w = window('22:00', '02:30');
    expect(quietUntil(at('2026-03-29T01:00:00+01:00'), 'Europe/Berlin', w)).toBe(at('2026-03-29T03:00:00+02:00'));
    expect(isQuiet(at('2026-03-29T03:00:00+02:00'), 'Europe/Berlin', w)).toBe(false);
    expect(quietUntil(at('2026-03-08T01:00:00-05:00'), 'America/New_York', w)).toBe(at('2026-03-08T03:00:00-04:00'));
  });

  it('a window ending inside the repeated fall-back hour ends the first time the clocks read its end', () => {
    const w = window('22:00', '02:30');
    const first = at('2026-10-25T02:30:00+02:00');
    expect(quietUntil(at('2026-10-25T01:00:00+02:00'), 'Europe/Berlin', w)).toBe(first);
    // The clocks go back to 02:00: quiet again for 30 minutes, then it ends at the second 02:30.
    expect(isQuiet(at('2026-10-25T02:10:00+01:00'), 'Europe/Berlin', w)).toBe(true);
    expect(quietUntil(at('2026-10-25T02:10:00+01:00'), 'Europe/Berlin', w)).toBe(at('2026-10-25T02:30:00+01:00'));
  });

  it("a window whose end the clocks skip lasts until the next night's end (Havana, 2026-03-08, 00:00 → 01:00)", () => {
    const w = window('00:01', '00:00');
    expect(quietUntil(at('2026-03-07T12:00:00-05:00'), 'America/Havana', w)).toBe(at('2026-03-09T00:00:00-04:00'));
  });

  it('a window starting inside the gap starts at the jump', () => {
    const w = window('02:30', '06:00');
    expect(nextQuietStart(at('2026-03-29T00:00:00+01:00'), 'Europe/Berlin', w)).toBe(at('2026-03-29T03:00:00+02:00'));
  });
});

describe('the verdict at send time', () => {
  const now = at('2026-06-10T23:00:00+02:00');
  it('defers before expiry, expires when the window outlasts it, sends a purpose with no window', () => {
    expect(quietHoursVerdict({ now, expiresAt: now + 12 * HOUR, zone: 'Europe/Berlin', window: MARKETING })).toEqual({
      kind: 'defer',
      until: at('2026-06-11T08:00:00+02:00'),
    });
    expect(quietHoursVerdict({ now, expiresAt: at('2026-06-11T08:00:00+02:00'), zone: 'Europe/Berlin', window: MARKETING })).toEqual({ kind: 'expire' });
    expect(quietHoursVerdict({ now, expiresAt: now + HOUR, zone: 'Europe/Berlin', window: DEFAULT_QUIET_HOURS.otp })).toEqual({ kind: 'send' });
    expect(quietHoursVerdict({ now: at('2026-06-11T12:00:00+02:00'), expiresAt: now + 48 * HOUR, zone: 'Europe/Berlin', window: MARKETING })).toEqual({
      kind: 'send',
    });
  });
});

// Zones with the awkward rules: 30- and 45-minute offsets, a 30-minute DST shift (Lord Howe),
// southern-hemisphere DST, DST at midnight (Havana, Santiago), none at all.
const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'America/Havana',
  'America/Santiago',
  'Asia/Tehran',
  'UTC',
];
const windowArb = fc
  .record({ startMinute: fc.integer({ min: 0, max: 1439 }), endMinute: fc.integer({ min: 0, max: 1439 }) })
  .filter((w) => w.startMinute !== w.endMinute);
const instantArb = fc.oneof(
  fc.integer({ min: at('2020-01-01T00:00:00Z'), max: at('2032-01-01T00:00:00Z') }),
  // Near the transitions the explicit tests name, where the rules are hardest.
  fc
    .constantFrom(at('2026-03-29T01:00:00Z'), at('2026-10-25T01:00:00Z'), at('2026-03-08T07:00:00Z'), at('2026-11-01T06:00:00Z'))
    .chain((t) => fc.integer({ min: t - 30 * HOUR, max: t + 30 * HOUR })),
);

describe('properties', () => {
  it('the end of a window is outside it, everything before it from now is inside, and it is at most two days away', () => {
    let inside = 0;
    let outside = 0;
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...ZONES), windowArb, fc.double({ min: 0, max: 1, noNaN: true }), (now, zone, w, frac) => {
        const until = quietUntil(now, zone, w);
        expect(until === null).toBe(!isQuiet(now, zone, w));
        if (until === null) {
          outside++;
          return;
        }
        inside++;
        expect(until).toBeGreaterThan(now);
        // A day and an hour at most, or two when the day's end fell into a skipped hour (Havana's
        // clocks skip 00:00–01:00: a window ending at 00:00 lasts until the next night's 00:00).
        expect(until - now).toBeLessThanOrEqual(49 * HOUR);
        expect(isQuiet(until, zone, w)).toBe(false);
        // Every instant in [now, until) is quiet: one just before the end, and one anywhere.
        expect(isQuiet(until - 1, zone, w)).toBe(true);
        expect(isQuiet(Math.min(until - 1, now + Math.floor((until - now) * frac)), zone, w)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(inside).toBeGreaterThan(300);
    expect(outside).toBeGreaterThan(300);
  });

  it('the next start of a window is inside it and nothing from `from` up to it is', () => {
    let checked = 0;
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...ZONES), windowArb, fc.double({ min: 0, max: 1, noNaN: true }), (from, zone, w, frac) => {
        const start = nextQuietStart(from, zone, w);
        expect(isQuiet(start, zone, w)).toBe(true);
        expect(start - from).toBeLessThanOrEqual(49 * HOUR);
        if (start > from) {
          checked++;
          expect(isQuiet(start - 1, zone, w)).toBe(false);
          expect(isQuiet(Math.min(start - 1, from + Math.floor((start - from) * frac)), zone, w)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
    expect(checked).toBeGreaterThan(200);
  });

  it('the verdict never sends inside the window and never defers to or past expiry', () => {
    const seen = { send: 0, defer: 0, expire: 0 };
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...ZONES), windowArb, fc.integer({ min: 1, max: 48 * HOUR }), (now, zone, w, ttl) => {
        const v = quietHoursVerdict({ now, expiresAt: now + ttl, zone, window: w });
        seen[v.kind]++;
        if (v.kind === 'send') expect(isQuiet(now, zone, w)).toBe(false);
        if (v.kind === 'defer') {
          expect(v.until).toBeLessThan(now + ttl);
          expect(isQuiet(v.until, zone, w)).toBe(false);
        }
        if (v.kind === 'expire') expect(quietUntil(now, zone, w)).toBeGreaterThanOrEqual(now + ttl);
      }),
      { numRuns: 2000 },
    );
    expect(Math.min(seen.send, seen.defer, seen.expire)).toBeGreaterThan(50);
  });
});
