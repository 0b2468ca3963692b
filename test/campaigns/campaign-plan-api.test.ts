/**
 * The plan a campaign gets before anything is sent, with its numbers, on both drivers: the
 * issue's infeasible example (600,000 recipients uploaded as a CSV stream, a lane of 2,000/s,
 * a deadline 2 minutes out: needs 5,000/s, best case 300 s, and the options), written to the
 * store in batches as it is parsed; audiences by upload, inline and by stored recipient ids;
 * and bad input answered with problem documents and stable codes.
 */
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHarness, DRIVERS, T0, type Harness } from '../helpers/harness.js';

/** `n` CSV lines generated a thousand at a time: the test never holds the audience either. */
function csvStream(n: number): Readable {
  return Readable.from(
    (function* () {
      yield 'id,email,locale\n';
      for (let i = 0; i < n; i += 1_000) {
        let chunk = '';
        for (let j = i; j < Math.min(n, i + 1_000); j++) chunk += `u${j},u${j}@example.com,en\n`;
        yield chunk;
      }
    })(),
  );
}

describe.each(DRIVERS)('campaign plans on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    // 2,500/s with the default lanes (auth keeps 20%): the bulk lane gives 2,000/s.
    h = await createHarness({ driver, account: (a) => (a.channel === 'email' ? { ...a, rate_per_second: 2_500, burst: 2_500 } : a) });
  });
  afterEach(async () => {
    await h.close();
  });

  const upload = async (payload: string | Readable, type = 'text/csv') => {
    const r = await h.app.inject({ method: 'POST', url: '/v1/audiences', headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': type }, payload });
    return { status: r.statusCode, json: r.json(), type: r.headers['content-type'] };
  };
  const body = (audience: unknown, over: Record<string, unknown> = {}) => ({
    channel: 'email',
    purpose: 'marketing',
    content: { subject: 'Sale', text: 'Everything must go' },
    deadline_at: new Date(T0 + 120_000).toISOString(),
    audience,
    ...over,
  });

  it('600,000 recipients in 2 minutes on a 2,000/s lane: infeasible, needs 5,000/s, best case 300 s, with every option', { timeout: 180_000 }, async () => {
    const append = vi.spyOn(h.store.campaigns, 'appendAudienceRows');
    const up = await upload(csvStream(600_000));
    expect(up.status).toBe(201);
    expect(up.json).toMatchObject({ source: 'csv', size: 600_000, duplicates: 0, with_address: { email: 600_000, sms: 0, push: 0 } });
    // Written as parsed, a thousand rows per transaction: never one 600,000-row array.
    expect(append).toHaveBeenCalledTimes(600);
    expect(Math.max(...append.mock.calls.map((c) => c[1].length))).toBe(1_000);

    const created = await h.post('/v1/campaigns', body({ audience_id: up.json.id }, { start: 'if_feasible' }));
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ status: 'draft', lane: 'bulk', lane_rate: 2_000, audience: { size: 600_000 } });
    expect(created.json.plan).toEqual({
      audience_size: 600_000,
      start_at: T0,
      deadline_at: T0 + 120_000,
      window_seconds: 120,
      required_rate: 5_000,
      available_rate: 2_000,
      best_case_seconds: 300,
      projected_finish_at: T0 + 300_000,
      feasible: false,
      reason: 'rate_too_low',
      options: {
        start_earlier: { latest_start_at: T0 - 180_000, earlier_by_ms: 180_000, missed_by_ms: 180_000 },
        more_capacity: { lane_rate_needed: 5_000, provider_rate_needed: 6_250 },
        smaller_audience: { max_audience: 240_000 },
        later_deadline: { earliest_deadline_at: T0 + 300_000 },
      },
      // One wave: every row is in the tenant's zone (UTC), where 12:00 is outside marketing's quiet hours (21:00-08:00).
      waves: [
        {
          time_zone: 'UTC',
          recipients: 600_000,
          send_from: T0,
          projected_start: T0,
          projected_finish: T0 + 300_000,
          window_closes_at: T0 + 9 * 3_600_000,
          fits_window: true,
          meets_deadline: false,
        },
      ],
      wave_warnings: ['deadline_missed'],
      // No route for email marketing: the one account intake would choose.
      capacity: { route: null, accounts: [{ provider_account: 'sandbox-email', lane: 'bulk', max_rate: 2_000 }], left_out: [] },
    });
    // `if_feasible` did not start it: nothing is fanned out.
    expect(await h.campaigns.runOnce()).toMatchObject({ fannedOut: 0 });
    expect((await h.get(`/v1/campaigns/${created.json.id}`)).json.progress).toMatchObject({ fanned_out: 0, not_fanned_out: 600_000, queued: 0 });
  });

  it('takes NDJSON, fills id-only rows from stored profiles, skips repeated ids', async () => {
    expect(
      (
        await h.app.inject({
          method: 'PUT',
          url: '/v1/recipients/ada',
          headers: { authorization: `Bearer ${h.apiKey}` },
          payload: { email: 'ada@example.com', locale: 'en' },
        })
      ).statusCode,
    ).toBe(201);
    const ndjson = '{"id":"ada"}\n\n{"id":"bob","email":"bob@example.com"}\r\n{"id":"bob","email":"other@example.com"}\n';
    const up = await upload(ndjson, 'application/x-ndjson');
    expect(up.json).toMatchObject({ size: 2, duplicates: 1, with_address: { email: 2 } });
    expect((await h.get(`/v1/audiences/${up.json.id}`)).json).toMatchObject({ id: up.json.id, size: 2 });
    const created = await h.post(
      '/v1/campaigns',
      body({ audience_id: up.json.id }, { deadline_at: new Date(T0 + 3600_000).toISOString(), start: 'if_feasible' }),
    );
    expect(created.json).toMatchObject({ status: 'running', plan: { feasible: true, audience_size: 2 } });
    await h.campaigns.runOnce();
    await h.worker.drain();
    expect(
      h.sandbox.ledger
        .entries()
        .map((e) => e.destination)
        .sort(),
    ).toEqual(['ada@example.com', 'bob@example.com']);
  });

  it('stores recipient profiles and makes a campaign of their ids', async () => {
    const put = (id: string, payload: object) =>
      h.app.inject({ method: 'PUT', url: `/v1/recipients/${id}`, headers: { authorization: `Bearer ${h.apiKey}` }, payload });
    expect((await put('u1', { email: 'u1@example.com' })).statusCode).toBe(201);
    const replaced = await put('u1', { email: 'u1@example.org', locale: 'de' });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ id: 'u1', email: 'u1@example.org', phone: null, locale: 'de' });
    expect((await h.get('/v1/recipients/u1')).json.email).toBe('u1@example.org');
    expect((await h.get('/v1/recipients/nobody')).json.code).toBe('not_found');
    expect((await put('u2', { phone: '+1555' })).json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'phone' }] });

    const created = await h.post('/v1/campaigns', body({ recipient_ids: ['u1'] }, { deadline_at: new Date(T0 + 3600_000).toISOString() }));
    expect(created.json).toMatchObject({ status: 'draft', audience: { size: 1 } });
    const unknown = await h.post('/v1/campaigns', body({ recipient_ids: ['u1', 'ghost'] }));
    expect(unknown.json).toMatchObject({ status: 400, code: 'audience_invalid', errors: [{ field: 'audience.recipient_ids[1]' }] });
  });

  it('answers bad input with problem documents and stable codes', async () => {
    const problem = async (r: Promise<{ status: number; json: any; headers?: Record<string, unknown>; type?: unknown }>) => {
      const x = await r;
      return { status: x.status, code: x.json.code, fields: (x.json.errors ?? []).map((e: any) => e.field), detail: x.json.detail as string };
    };
    const inline = { recipients: [{ id: 'a', email: 'a@example.com' }] };
    expect(await problem(h.post('/v1/campaigns', body(inline, { channel: 'fax' })))).toMatchObject({
      status: 400,
      code: 'validation_failed',
      fields: ['channel'],
    });
    expect(await problem(h.post('/v1/campaigns', body(inline, { purpose: 'otp' })))).toMatchObject({
      status: 400,
      code: 'validation_failed',
      fields: ['purpose'],
    });
    expect(await problem(h.post('/v1/campaigns', body(inline, { deadline_at: new Date(T0 - 1).toISOString() })))).toMatchObject({
      status: 400,
      code: 'validation_failed',
      fields: ['deadline_at'],
    });
    expect(await problem(h.post('/v1/campaigns', body(inline, { content: { text: 'no subject' } })))).toMatchObject({
      code: 'validation_failed',
      fields: ['content.subject'],
    });
    // A template and content are exclusive (template campaigns: test/campaigns/campaign-templates.test.ts).
    expect(await problem(h.post('/v1/campaigns', body(inline, { template: { id: 'welcome' } })))).toMatchObject({
      status: 400,
      code: 'validation_failed',
      fields: ['template'],
    });
    expect(await problem(h.post('/v1/campaigns', body({ recipients: [] })))).toMatchObject({ status: 422, code: 'audience_empty' });
    expect(
      await problem(
        h.post(
          '/v1/campaigns',
          body({
            recipients: [
              { id: 'a', email: 'a@example.com' },
              { id: 'b', phone: '+14155550123' },
            ],
          }),
        ),
      ),
    ).toMatchObject({
      status: 400,
      code: 'audience_invalid',
      fields: ['audience.recipients[1].email'],
    });
    expect(await problem(h.post('/v1/campaigns', body({ audience_id: 'aud_01J00000000000000000000000' })))).toMatchObject({
      code: 'validation_failed',
      fields: ['audience.audience_id'],
    });

    // A malformed CSV row is named by its line (the header is line 1).
    const csv = 'id,email\nu1,u1@example.com\nu2,u2@example.com,extra\nu3,"unclosed\nu4,not-an-email\n';
    const bad = await upload(csv);
    expect(bad.type).toMatch(/^application\/problem\+json/);
    expect(bad.json).toMatchObject({ status: 400, code: 'audience_invalid' });
    expect(bad.json.errors).toEqual([
      { field: 'line 3', message: 'has 3 fields; the header has 2' },
      { field: 'line 4', message: 'has a quoted field that does not close on its line (fields may not span lines)' },
      { field: 'line 5.email', message: 'must be an e-mail address with a domain, e.g. ada@example.com' },
    ]);
    expect(bad.json.detail).toMatch(/^line 3 has 3 fields/);
    expect(await upload('id,nickname\nu1,x\n')).toMatchObject({ status: 400, json: { code: 'audience_invalid', errors: [{ field: 'line 1' }] } });
    expect(await upload('{"id":"u1","age":3}\nnot json\n', 'application/x-ndjson')).toMatchObject({
      json: { errors: [{ field: 'line 1.age' }, { field: 'line 2', message: 'is not valid JSON' }] },
    });
    expect(await upload('id,email\n')).toMatchObject({ status: 422, json: { code: 'audience_empty' } });
    expect(await upload('hello', 'text/plain')).toMatchObject({ status: 415, json: { code: 'unsupported_audience_format' } });
    expect(
      (await h.app.inject({ method: 'POST', url: '/v1/audiences', headers: { authorization: `Bearer ${h.apiKey}` }, payload: { id: 'x' } })).json().code,
    ).toBe('unsupported_audience_format');

    const draft = await h.post('/v1/campaigns', body(inline));
    expect(await problem(h.post(`/v1/campaigns/${draft.json.id}/pause`))).toMatchObject({ status: 409, code: 'campaign_state_conflict' });
    expect(await problem(h.post(`/v1/campaigns/${draft.json.id}/resume`))).toMatchObject({ status: 409, code: 'campaign_state_conflict' });
    expect(await problem(h.post('/v1/campaigns/cmp_nope/start'))).toMatchObject({ status: 404, code: 'not_found' });
  });
});
