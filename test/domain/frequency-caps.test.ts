/**
 * Frequency caps over rolling windows: examples from the issue (marketing 2 a day, 5 a week)
 * and properties against a brute-force reading of the caps.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FREQUENCY_CAPS, capAllows, capAllowsAt, capVerdict, longestPeriodMs, type FrequencyCap } from '../../src/domain/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-06-10T09:00:00Z');
const MARKETING = DEFAULT_FREQUENCY_CAPS.marketing!;

describe('the default marketing caps', () => {
  it('the third of the day waits until the first leaves the 24-hour window', () => {
    const sent = [T0, T0 + 2 * HOUR];
    expect(capAllowsAt(sent, MARKETING.caps, T0 + 5 * HOUR)).toBe(T0 + DAY);
    expect(capVerdict({ now: T0 + 5 * HOUR, expiresAt: T0 + 3 * DAY, sentAt: sent, caps: MARKETING })).toEqual({ kind: 'defer', until: T0 + DAY });
    expect(capVerdict({ now: T0 + 5 * HOUR, expiresAt: T0 + DAY, sentAt: sent, caps: MARKETING })).toEqual({ kind: 'expire' });
    expect(capVerdict({ now: T0 + 5 * HOUR, expiresAt: T0 + 3 * DAY, sentAt: sent, caps: { ...MARKETING, action: 'suppress' } })).toEqual({
      kind: 'suppress',
    });
  });

  it('the sixth of the week waits for the week, even when the day has room', () => {
    const sent = [0, 1, 2, 3, 4].map((d) => T0 + d * DAY);
    const now = T0 + 5 * DAY;
    expect(capAllows(sent, [MARKETING.caps[0]!], now)).toBe(true);
    expect(capAllowsAt(sent, MARKETING.caps, now)).toBe(T0 + 7 * DAY);
  });

  it('uncapped purposes and no sends go at once', () => {
    expect(capVerdict({ now: T0, expiresAt: T0 + DAY, sentAt: [T0 - 1, T0 - 2, T0 - 3], caps: DEFAULT_FREQUENCY_CAPS.otp })).toEqual({ kind: 'send' });
    expect(capVerdict({ now: T0, expiresAt: T0 + DAY, sentAt: [], caps: MARKETING })).toEqual({ kind: 'send' });
    expect(longestPeriodMs(MARKETING.caps)).toBe(7 * DAY);
  });

  it('counts a send another worker stamped a little later: a worker whose clock is behind takes no extra slot', () => {
    // Two sends at T0 + 5 ms and T0 + 7 ms, taken by workers whose clocks are ahead of this one's T0 + 1 ms.
    const sent = [T0 + 5, T0 + 7];
    expect(capAllows(sent, MARKETING.caps, T0 + 1)).toBe(false);
    expect(capAllowsAt(sent, MARKETING.caps, T0 + 1)).toBe(T0 + 5 + DAY);
    // Only the windows around the instant count: a send a day and more ahead leaves room.
    expect(capAllows([T0 + DAY], MARKETING.caps, T0)).toBe(true);
  });

  it('a cap of zero never allows a send', () => {
    expect(capAllowsAt([], [{ max: 0, periodMs: DAY }], T0)).toBe(Number.POSITIVE_INFINITY);
  });
});

const capArb: fc.Arbitrary<FrequencyCap> = fc.record({ max: fc.integer({ min: 1, max: 5 }), periodMs: fc.integer({ min: 1, max: 50 }) });

describe('properties', () => {
  it('capAllowsAt is the earliest instant ≥ now at which every cap holds (brute force over whole ms)', () => {
    let waited = 0;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 12 }), fc.array(capArb, { minLength: 1, maxLength: 3 }), (sent, caps) => {
        const now = 100;
        const at = capAllowsAt(sent, caps, now);
        expect(at).toBeGreaterThanOrEqual(now);
        expect(capAllows(sent, caps, at)).toBe(true);
        for (let t = now; t < at; t++) expect(capAllows(sent, caps, t), `t=${t}`).toBe(false);
        if (at > now) waited++;
      }),
      { numRuns: 3000 },
    );
    expect(waited).toBeGreaterThan(300);
  });

  it('sending whenever the caps allow never puts more than max in any window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 30 }),
        fc.array(capArb, { minLength: 1, maxLength: 3 }),
        (asks, caps) => {
          const sent: number[] = [];
          // Each ask sends at the earliest time the caps allow from when it was asked.
          for (const ask of [...asks].sort((a, b) => a - b)) {
            const t = capAllowsAt(sent, caps, Math.max(ask, sent.at(-1) ?? 0));
            sent.push(t);
          }
          for (const c of caps)
            for (const end of sent) expect(sent.filter((t) => t > end - c.periodMs && t <= end).length, JSON.stringify({ c, sent })).toBeLessThanOrEqual(c.max);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
