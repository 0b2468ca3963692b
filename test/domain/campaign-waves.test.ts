/**
 * Campaign waves: one wave per time zone, each going when its quiet hours end, sharing the
 * lane's rate, with warnings for a missed deadline or a wave running into its next night.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUIET_HOURS, isQuiet, planWaves, type QuietWindow } from '../../src/domain/index.js';

const at = (iso: string): number => Date.parse(iso);
const MARKETING = DEFAULT_QUIET_HOURS.marketing as QuietWindow;
const HOUR = 3_600_000;

describe('planWaves', () => {
  // 05:00 UTC: 06:00 in Berlin (quiet until 08:00), 01:00 in New York (until 08:00 EDT = 12:00 UTC),
  // 14:00 in Tokyo (not quiet: goes at once).
  const now = at('2026-06-10T05:00:00Z');
  const zones = [
    { time_zone: 'Europe/Berlin', recipients: 4_000 },
    { time_zone: 'America/New_York', recipients: 3_000 },
    { time_zone: 'Asia/Tokyo', recipients: 3_000 },
  ];

  it('plans 10,000 recipients over three zones as three waves, each from the end of its window', () => {
    const plan = planWaves({ now, deadlineAt: now + 24 * HOUR, rate: 10, window: MARKETING, zones });
    expect(plan.waves.map((w) => [w.time_zone, w.recipients, w.send_from])).toEqual([
      ['Asia/Tokyo', 3_000, now],
      ['Europe/Berlin', 4_000, at('2026-06-10T08:00:00+02:00')],
      ['America/New_York', 3_000, at('2026-06-10T08:00:00-04:00')],
    ]);
    // Tokyo at 10/s takes 300 s; Berlin 400 s from 06:00 UTC; New York 300 s from 12:00 UTC.
    expect(plan.waves.map((w) => w.projected_finish - w.projected_start)).toEqual([300_000, 400_000, 300_000]);
    expect(plan.waves.every((w) => w.fits_window && w.meets_deadline)).toBe(true);
    for (const w of plan.waves) {
      expect(isQuiet(w.projected_start, w.time_zone, MARKETING)).toBe(false);
      expect(isQuiet(w.projected_finish - 1, w.time_zone, MARKETING)).toBe(false);
    }
    expect(plan).toMatchObject({ feasible: true, warnings: [], projected_finish_at: at('2026-06-10T12:05:00Z') });
  });

  it('warns when the deadline cannot be met at the rate, and when a wave runs into its next night', () => {
    const late = planWaves({ now, deadlineAt: at('2026-06-10T09:00:00Z'), rate: 10, window: MARKETING, zones });
    expect(late.feasible).toBe(false);
    expect(late.warnings).toEqual(['deadline_missed']);
    expect(late.waves.find((w) => w.time_zone === 'America/New_York')?.meets_deadline).toBe(false);
    // At 0.1/s Tokyo's 3,000 take 8⅓ hours: past 21:00 Tokyo time.
    const slow = planWaves({ now, deadlineAt: now + 72 * HOUR, rate: 0.1, window: MARKETING, zones });
    expect(slow.warnings).toContain('window_missed');
    expect(slow.waves[0]).toMatchObject({ time_zone: 'Asia/Tokyo', fits_window: false });
  });

  it('without quiet hours every wave may go at once and they drain back to back', () => {
    const plan = planWaves({ now, deadlineAt: now + HOUR, rate: 100, window: null, zones });
    expect(plan.waves.every((w) => w.send_from === now && w.window_closes_at === null)).toBe(true);
    expect(plan.projected_finish_at).toBe(now + 100_000);
  });

  it('waves never overlap, never start before their window ends, and hold every recipient', () => {
    const zoneArb = fc.constantFrom('Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney', 'UTC', 'Asia/Kathmandu');
    fc.assert(
      fc.property(
        fc.integer({ min: at('2026-01-01T00:00:00Z'), max: at('2027-01-01T00:00:00Z') }),
        fc.array(fc.record({ time_zone: zoneArb, recipients: fc.integer({ min: 0, max: 5_000 }) }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 1_000 }),
        (now, zs, rate) => {
          const plan = planWaves({ now, deadlineAt: now + 48 * HOUR, rate, window: MARKETING, zones: zs });
          expect(plan.waves.reduce((n, w) => n + w.recipients, 0)).toBe(zs.reduce((n, z) => n + z.recipients, 0));
          let prev = now;
          for (const w of plan.waves) {
            expect(w.projected_start).toBeGreaterThanOrEqual(Math.max(prev, w.send_from));
            expect(isQuiet(w.send_from, w.time_zone, MARKETING)).toBe(false);
            prev = w.projected_finish;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
