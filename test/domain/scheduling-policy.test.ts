/** A tenant's scheduling policy: checked, resolved over the defaults, shown back. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULING_POLICY, policyJson, policyProblems, resolvePolicy } from '../../src/domain/index.js';

describe('scheduling policy', () => {
  it('with nothing set, the defaults: marketing 21:00–08:00 and 2 a day / 5 a week, conversational 22:00–07:00, the rest never held', () => {
    expect(policyJson(resolvePolicy(null))).toEqual({
      time_zone: 'UTC',
      quiet_hours: {
        otp: null,
        transactional: null,
        conversational: { start: '22:00', end: '07:00' },
        marketing: { start: '21:00', end: '08:00' },
        alert: null,
      },
      frequency_caps: {
        otp: null,
        transactional: null,
        conversational: null,
        marketing: {
          caps: [
            { max: 2, period_seconds: 86_400 },
            { max: 5, period_seconds: 604_800 },
          ],
          action: 'defer',
        },
        alert: null,
      },
    });
  });

  it("a tenant's choices win, null turns a purpose's window or caps off, and what it leaves out stays default", () => {
    const p = resolvePolicy({
      time_zone: 'Europe/Berlin',
      quiet_hours: { marketing: { start: '20:00', end: '09:30' }, conversational: null },
      frequency_caps: { marketing: { caps: [{ max: 1, period_seconds: 3600 }], action: 'suppress' } },
    });
    expect(p.timeZone).toBe('Europe/Berlin');
    expect(p.quietHours.marketing).toEqual({ startMinute: 1200, endMinute: 570 });
    expect(p.quietHours.conversational).toBeNull();
    expect(p.frequencyCaps.marketing).toEqual({ caps: [{ max: 1, periodMs: 3_600_000 }], action: 'suppress' });
    expect(resolvePolicy({ frequency_caps: { marketing: null } }).frequencyCaps.marketing).toBeNull();
    expect(resolvePolicy({}).quietHours).toEqual(DEFAULT_SCHEDULING_POLICY.quietHours);
  });

  it('names every bad field', () => {
    expect(
      policyProblems({
        time_zone: '+02:00',
        quiet_hours: { otp: { start: '22:00', end: '07:00' }, marketing: { start: '25:00', end: '08:00' }, conversational: { start: '07:00', end: '07:00' } },
        frequency_caps: { marketing: { caps: [{ max: 0, period_seconds: 10 }], action: 'defer' } },
      }).map((p) => p.field),
    ).toEqual([
      'time_zone',
      'quiet_hours.otp',
      'quiet_hours.marketing.start',
      'quiet_hours.conversational.end',
      'frequency_caps.marketing.caps[0].max',
      'frequency_caps.marketing.caps[0].period_seconds',
    ]);
    expect(policyProblems({ time_zone: 'America/New_York', quiet_hours: { marketing: null } })).toEqual([]);
  });
});
