/** `send_at`: due time, expiry counted from it, and the refusals (past horizon, after expiry). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SEND_AT_HORIZON_MS, scheduleOf } from '../../src/domain/index.js';

const NOW = Date.parse('2026-06-10T12:00:00Z');
const DAY = 86_400_000;
const base = { now: NOW, ttlMs: DAY, horizonMs: DEFAULT_SEND_AT_HORIZON_MS, maxLifetimeMs: 30 * DAY };

describe('scheduleOf', () => {
  it('without send_at it is due now and the ttl counts from now', () => {
    expect(scheduleOf(base)).toEqual({ ok: true, dueAt: NOW, expiresAt: NOW + DAY, scheduled: false });
  });

  it('ttl counts from send_at', () => {
    expect(scheduleOf({ ...base, sendAt: NOW + 2 * DAY })).toEqual({ ok: true, dueAt: NOW + 2 * DAY, expiresAt: NOW + 3 * DAY, scheduled: true });
  });

  it('a send_at in the past is due now', () => {
    expect(scheduleOf({ ...base, sendAt: NOW - 5_000 })).toEqual({ ok: true, dueAt: NOW, expiresAt: NOW + DAY, scheduled: false });
  });

  it('an absolute expires_at wins, and must be after send_at', () => {
    expect(scheduleOf({ ...base, sendAt: NOW + DAY, expiresAt: NOW + DAY + 1 })).toMatchObject({ ok: true, expiresAt: NOW + DAY + 1 });
    expect(scheduleOf({ ...base, sendAt: NOW + DAY, expiresAt: NOW + DAY })).toEqual({ ok: false, problem: 'send_at_after_expiry' });
    expect(scheduleOf({ ...base, sendAt: NOW + 2 * DAY, expiresAt: NOW + DAY })).toEqual({ ok: false, problem: 'send_at_after_expiry' });
    expect(scheduleOf({ ...base, expiresAt: NOW })).toEqual({ ok: false, problem: 'expires_in_past' });
    expect(scheduleOf({ ...base, sendAt: NOW + DAY, expiresAt: NOW + 32 * DAY })).toEqual({ ok: false, problem: 'expires_beyond_lifetime' });
  });

  it('refuses a send_at beyond the horizon, and takes one exactly at it', () => {
    expect(scheduleOf({ ...base, sendAt: NOW + 30 * DAY })).toMatchObject({ ok: true, dueAt: NOW + 30 * DAY });
    expect(scheduleOf({ ...base, sendAt: NOW + 30 * DAY + 1 })).toEqual({ ok: false, problem: 'send_at_beyond_horizon' });
    expect(scheduleOf({ ...base, sendAt: NOW + 2 * DAY, horizonMs: DAY })).toEqual({ ok: false, problem: 'send_at_beyond_horizon' });
  });

  it('what it accepts is due at or after now, within the horizon, and expires after it is due', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: NOW - DAY, max: NOW + 40 * DAY }), { nil: undefined }),
        fc.option(fc.integer({ min: NOW - DAY, max: NOW + 80 * DAY }), { nil: undefined }),
        fc.integer({ min: 1_000, max: 30 * DAY }),
        (sendAt, expiresAt, ttlMs) => {
          const r = scheduleOf({ ...base, ttlMs, ...(sendAt === undefined ? {} : { sendAt }), ...(expiresAt === undefined ? {} : { expiresAt }) });
          if (!r.ok) return;
          expect(r.dueAt).toBeGreaterThanOrEqual(NOW);
          expect(r.dueAt).toBeLessThanOrEqual(NOW + base.horizonMs);
          expect(r.expiresAt).toBeGreaterThan(r.dueAt);
          if (expiresAt !== undefined) expect(r.expiresAt).toBe(expiresAt);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
