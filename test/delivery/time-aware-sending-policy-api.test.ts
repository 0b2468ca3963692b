/**
 * GET and PUT /v1/scheduling (docs/scheduling.md "The tenant's policy") on both drivers with the
 * harness's manual clock: GET shows the install's defaults until the tenant chooses; a PUT is
 * what the send-time check reads, so it changes what a message already queued does; bad zones,
 * windows and caps are refused with their own codes and change nothing; every PUT is audited.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** 2026-11-29 20:30Z: 20:30 in UTC (outside marketing's default 21:00–08:00), 21:30 in Berlin (inside). */
const EVENING = Date.UTC(2026, 10, 29, 20, 30, 0);
/** 08:00 Berlin the next morning (CET, UTC+1). */
const BERLIN_08 = Date.UTC(2026, 10, 30, 7, 0, 0);

const marketing = (over: Record<string, unknown> = {}) => ({
  recipient: { id: 'user-1', phone: '+14155550123' },
  purpose: 'marketing',
  channels: ['sms'],
  content: { text: 'Winter sale: 20% off' },
  ...over,
});

describe.each(DRIVERS)('the tenant scheduling policy API on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const put = async (body: unknown) => {
    const r = await h.app.inject({ method: 'PUT', url: '/v1/scheduling', headers: { authorization: `Bearer ${h.apiKey}` }, payload: body as object });
    return { status: r.statusCode, json: r.json() };
  };
  const delivery = async (id: string) => (await h.get(`/v1/deliveries/${id}`)).json;

  it("GET shows the install's defaults until a PUT; the PUT is what the send-time check reads for a message already queued", async () => {
    h = await createHarness({ driver });
    const before = await h.get('/v1/scheduling');
    expect(before.status, JSON.stringify(before.json)).toBe(200);
    expect(before.json).toMatchObject({
      time_zone: 'UTC',
      updated_at: null,
      quiet_hours: { marketing: { start: '21:00', end: '08:00' }, conversational: { start: '22:00', end: '07:00' }, otp: null },
      frequency_caps: { marketing: { action: 'defer' }, otp: null },
    });

    // Two marketing messages queued for 20:30Z while the tenant's zone is UTC (not quiet then).
    const held = (await h.send(marketing({ send_at: iso(EVENING) }))).json.deliveries[0].id as string;
    const conv = (await h.send(marketing({ purpose: 'conversational', send_at: iso(EVENING) }))).json.deliveries[0].id as string;

    const r = await put({ time_zone: 'Europe/Berlin', quiet_hours: { conversational: null }, frequency_caps: { marketing: null } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({
      time_zone: 'Europe/Berlin',
      updated_at: iso(h.clock.now()),
      quiet_hours: { marketing: { start: '21:00', end: '08:00' }, conversational: null },
      frequency_caps: { marketing: null },
    });
    expect((await h.get('/v1/scheduling')).json).toEqual(r.json);

    h.clock.set(EVENING);
    await h.worker.drain();
    // 21:30 in Berlin: the marketing message waits for 08:00 there; conversational has no window any more.
    expect(await delivery(held)).toMatchObject({ state: 'ready', hold_reason: 'quiet_hours', next_attempt_at: iso(BERLIN_08) });
    expect(await delivery(conv)).toMatchObject({ state: 'accepted', hold_reason: null });

    const audit = (await h.get('/v1/audit')).json.items.filter((a: { action: string }) => a.action === 'scheduling_edit');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ subject_id: h.tenantId, detail: { policy: { time_zone: 'Europe/Berlin', quiet_hours: { conversational: null } } } });
  });

  it('refuses a bad zone, window or cap with its own code, naming the fields, and changes nothing', async () => {
    h = await createHarness({ driver });
    expect((await put({ time_zone: 'Europe/Berlin' })).status).toBe(200);
    const stored = (await h.get('/v1/scheduling')).json;
    const cases: [unknown, string, string[]][] = [
      [{ time_zone: '+01:00' }, 'invalid_time_zone', ['time_zone']],
      [{ quiet_hours: { marketing: { start: '25:00', end: '08:00' } } }, 'invalid_quiet_hours', ['quiet_hours.marketing.start']],
      [{ quiet_hours: { marketing: { start: '21:00', end: '21:00' } } }, 'invalid_quiet_hours', ['quiet_hours.marketing.end']],
      [{ quiet_hours: { otp: { start: '22:00', end: '07:00' } } }, 'invalid_quiet_hours', ['quiet_hours.otp']],
      [
        { frequency_caps: { marketing: { caps: [{ max: 0, period_seconds: 10 }], action: 'defer' } } },
        'invalid_frequency_cap',
        ['frequency_caps.marketing.caps[0].max', 'frequency_caps.marketing.caps[0].period_seconds'],
      ],
      [
        { frequency_caps: { marketing: { caps: [{ max: 2, period_seconds: 86_400 }], action: 'drop' } } },
        'invalid_frequency_cap',
        ['frequency_caps.marketing.action'],
      ],
      // A cap on codes would never be applied (the check reads no policy for a code): refused, not ignored.
      [{ frequency_caps: { otp: { caps: [{ max: 3, period_seconds: 3_600 }], action: 'suppress' } } }, 'invalid_frequency_cap', ['frequency_caps.otp']],
    ];
    for (const [body, code, fields] of cases) {
      const r = await put(body);
      expect(r.status, JSON.stringify(r.json)).toBe(422);
      expect(r.json.code).toBe(code);
      expect(r.json.errors.map((e: { field: string }) => e.field)).toEqual(fields);
    }
    // A shape the schema refuses (an unknown purpose) is a 400, as everywhere.
    expect((await put({ quiet_hours: { newsletters: null } })).json.code).toBe('validation_failed');
    expect((await h.get('/v1/scheduling')).json).toEqual(stored);
    expect((await h.get('/v1/audit')).json.items.filter((a: { action: string }) => a.action === 'scheduling_edit')).toHaveLength(1);
  });
});
