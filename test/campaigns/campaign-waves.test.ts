/**
 * A campaign planned and sent in waves over time zones (issue 28, docs/scheduling.md "Campaigns
 * in waves"), on both drivers with the harness's manual clock: 10,000 marketing e-mails to
 * recipients in Tokyo, Berlin and New York (New York's rows name no zone: they are the tenant's)
 * at 22:00Z, when it is 07:00 in Tokyo, 23:00 in Berlin and 17:00 in New York. The plan has three
 * waves with their counts and start times; fan-out queues them all, and the workers send each
 * zone's recipients only once its quiet hours (marketing: 21:00-08:00) are over, wave by wave in
 * the planned order. An audience row with a zone that is not an IANA name is refused, naming it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

/** 2026-11-29 22:00Z: 07:00 (Nov 30) in Tokyo, 23:00 in Berlin, 17:00 in New York. */
const AT = Date.UTC(2026, 10, 29, 22, 0, 0);
/** 08:00 in Tokyo (JST, UTC+9). */
const TOKYO_08 = Date.UTC(2026, 10, 29, 23, 0, 0);
/** 08:00 in Berlin (CET, UTC+1) the next morning. */
const BERLIN_08 = Date.UTC(2026, 10, 30, 7, 0, 0);
/** 21:00 in New York (EST, UTC-5): its window closes. */
const NEW_YORK_21 = Date.UTC(2026, 10, 30, 2, 0, 0);

const ZONES = [
  { zone: 'Asia/Tokyo', domain: 'tokyo.example', n: 2_000, row: true },
  { zone: 'Europe/Berlin', domain: 'berlin.example', n: 5_000, row: true },
  // The tenant's zone: these rows name none.
  { zone: 'America/New_York', domain: 'newyork.example', n: 3_000, row: false },
] as const;

const ndjson = () =>
  ZONES.flatMap(({ zone, domain, n, row }) =>
    Array.from({ length: n }, (_, i) => JSON.stringify({ id: `${domain}-${i}`, email: `u${i}@${domain}`, ...(row ? { time_zone: zone } : {}) })),
  ).join('\n');

describe.each(DRIVERS)('a campaign in waves over time zones on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const upload = async (payload: string, type: string) => {
    const r = await h.app.inject({ method: 'POST', url: '/v1/audiences', headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': type }, payload });
    return { status: r.statusCode, json: r.json() };
  };
  /** Sent so far, per recipient domain (one zone each). */
  const sentPerZone = () => {
    const out: Record<string, number> = {};
    for (const e of h.sandbox.ledger.entries()) {
      const domain = e.destination.split('@')[1]!;
      out[domain] = (out[domain] ?? 0) + 1;
    }
    return out;
  };
  /**
   * Runs the workers until nothing is claimable: the clock moves a second between rounds, so the
   * lane's limiter refills (a held delivery spends its permit too), and stops after two rounds
   * that claimed nothing.
   */
  const drain = async () => {
    for (let idle = 0; idle < 2;) {
      idle = (await h.worker.drain()).claimed === 0 ? idle + 1 : 0;
      h.clock.advance(1_000);
    }
  };

  it('10,000 recipients over three zones are planned and sent in three waves, each inside its window', { timeout: 600_000 }, async () => {
    h = await createHarness({ driver });
    await h.store.scheduling.putPolicy(h.tenantId, { time_zone: 'America/New_York' }, h.clock.now());
    h.clock.set(AT);
    const up = await upload(ndjson(), 'application/x-ndjson');
    expect(up.status, JSON.stringify(up.json)).toBe(201);
    expect(up.json.size).toBe(10_000);

    const created = await h.post('/v1/campaigns', {
      channel: 'email',
      purpose: 'marketing',
      content: { subject: 'Winter sale', text: '20% off' },
      deadline_at: new Date(AT + 24 * 3_600_000).toISOString(),
      audience: { audience_id: up.json.id },
      start: 'if_feasible',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.status).toBe('running');
    const plan = created.json.plan;
    // The deadline check is the planner's, as before; the waves come with it.
    expect(plan).toMatchObject({ audience_size: 10_000, feasible: true, wave_warnings: [] });
    expect(plan.waves.map((w: Record<string, unknown>) => [w.time_zone, w.recipients, w.send_from])).toEqual([
      ['America/New_York', 3_000, AT],
      ['Asia/Tokyo', 2_000, TOKYO_08],
      ['Europe/Berlin', 5_000, BERLIN_08],
    ]);
    expect(plan.waves[0]).toMatchObject({ window_closes_at: NEW_YORK_21, fits_window: true, meets_deadline: true });
    for (const w of plan.waves) expect(w.projected_finish).toBeLessThanOrEqual(w.window_closes_at);
    // GET shows the stored plan with its waves.
    expect((await h.get(`/v1/campaigns/${created.json.id}`)).json.plan.waves).toEqual(plan.waves);

    // Fan-out queues every recipient at once, each due at its wave's start (campaign-wave-send-at.test.ts
    // shows none is claimed before it); quiet hours are still the send-time check's.
    let fanned = 0;
    for (let pass = 0; pass < 100 && fanned < 10_000; pass++) fanned += (await h.campaigns.runOnce()).fannedOut;
    expect(fanned).toBe(10_000);

    // Wave 1 (New York, 17:00 there) goes now; Tokyo and Berlin wait for their waves.
    await drain();
    expect(sentPerZone()).toEqual({ 'newyork.example': 3_000 });
    // One minute before 08:00 in Tokyo, still nothing more.
    h.clock.set(TOKYO_08 - 60_000);
    await drain();
    expect(sentPerZone()).toEqual({ 'newyork.example': 3_000 });

    // Wave 2: Tokyo at 08:00 there.
    h.clock.set(TOKYO_08);
    await drain();
    expect(sentPerZone()).toEqual({ 'newyork.example': 3_000, 'tokyo.example': 2_000 });
    // Through Berlin's night, in steps, nothing of Berlin's goes.
    for (const at of [AT + 3 * 3_600_000, AT + 6 * 3_600_000, BERLIN_08 - 60_000]) {
      h.clock.set(at);
      await drain();
      expect(sentPerZone()).toEqual({ 'newyork.example': 3_000, 'tokyo.example': 2_000 });
    }

    // Wave 3: Berlin at 08:00 there.
    h.clock.set(BERLIN_08);
    await drain();
    expect(sentPerZone()).toEqual({ 'newyork.example': 3_000, 'tokyo.example': 2_000, 'berlin.example': 5_000 });
    // Each recipient once.
    expect(new Set(h.sandbox.ledger.entries().map((e) => e.destination)).size).toBe(10_000);
    expect((await h.campaigns.runOnce()).finished).toBe(1);
    expect((await h.get(`/v1/campaigns/${created.json.id}`)).json).toMatchObject({ status: 'completed', progress: { accepted: 10_000 } });
  });

  it('an audience row whose time zone is not an IANA name is refused, naming its line; a profile zone fills an id-only row', async () => {
    h = await createHarness({ driver });
    const bad = await upload('id,email,time_zone\nu1,a@example.com,Europe/Berlin\nu2,b@example.com,+01:00\nu3,c@example.com,Mars/Olympus\n', 'text/csv');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'audience_invalid' });
    expect(bad.json.errors.map((e: { field: string }) => e.field)).toEqual(['line 3.time_zone', 'line 4.time_zone']);
    expect(bad.json.errors[0].message).toMatch(/IANA time zone/);

    // A stored profile's zone counts for a row that gives only the id.
    const put = await h.app.inject({
      method: 'PUT',
      url: '/v1/recipients/p1',
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: { email: 'p1@example.com', time_zone: 'Asia/Tokyo' },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    h.clock.set(AT);
    const created = await h.post('/v1/campaigns', {
      channel: 'email',
      purpose: 'marketing',
      content: { subject: 'Hi', text: 'Hello' },
      deadline_at: new Date(AT + 24 * 3_600_000).toISOString(),
      audience: { recipients: [{ id: 'p1' }, { id: 'x1', email: 'x1@example.com' }] },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    // The tenant's zone is the install default, UTC: 22:00 there is quiet until 08:00.
    expect(created.json.plan.waves.map((w: Record<string, unknown>) => [w.time_zone, w.recipients, w.send_from])).toEqual([
      ['Asia/Tokyo', 1, TOKYO_08],
      ['UTC', 1, Date.UTC(2026, 10, 30, 8, 0, 0)],
    ]);
  });
});
