/**
 * Campaigns with a template, end to end on both drivers: the version is pinned at creation (a
 * later publish does not change what fan-out renders); each recipient is rendered with its
 * audience row's data (NDJSON `data`, CSV `data.*` columns, inline `data`) in its own locale,
 * and the notification records template, version, locale and inputs hash; a recipient whose
 * render fails is recorded as a refusal with the reason (progress and GET .../refusals) while
 * the others are sent; what can be checked at creation is refused with a 422 naming template,
 * version, locale and part, and nothing is stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, T0, type Harness } from '../helpers/harness.js';

const promo = {
  locales: {
    en: { sms: { text: 'Hi {{ first_name }}, {{ discount }}% off until {{ ends }}' }, email: { subject: 'Hi {{ first_name }}', text: 'Sale' } },
    pt: { sms: { text: 'Olá {{ first_name }}, {{ discount }}% de desconto até {{ ends }}' } },
  },
};

describe.each(DRIVERS)('template campaigns on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const setup = async () => {
    h = await createHarness({ driver });
    const t = await h.post('/v1/templates', { id: 'promo', name: 'Promo', default_locale: 'en', version: { ...promo, publish: true } });
    expect(t.status, JSON.stringify(t.json)).toBe(201);
  };
  const upload = async (payload: string, type: string) => {
    const r = await h.app.inject({ method: 'POST', url: '/v1/audiences', headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': type }, payload });
    return { status: r.statusCode, json: r.json() };
  };
  const campaignBody = (audience: unknown, over: Record<string, unknown> = {}) => ({
    channel: 'sms',
    purpose: 'marketing',
    template: { id: 'promo' },
    deadline_at: new Date(T0 + 3600_000).toISOString(),
    audience,
    ...over,
  });
  /** The stored notifications of a campaign's recipients, by recipient id. */
  const rendered = async () => {
    const out = new Map<string, { text: unknown; template: unknown }>();
    for (const d of (await h.get('/v1/deliveries?limit=200')).json.items) {
      const n = await h.store.getNotification(h.tenantId, d.notification_id);
      const c = n!.content as { channels: { sms: { text: string } }; template: unknown };
      out.set(n!.recipientId, { text: c.channels.sms.text, template: c.template });
    }
    return out;
  };

  it('pins the version at creation, renders each NDJSON row with its data in its locale, and records the refused ones', async () => {
    await setup();
    const ndjson = [
      { id: 'u1', phone: '+14155550101', locale: 'pt-BR', data: { first_name: 'Ana', discount: 20, ends: 'sexta' } },
      { id: 'u2', phone: '+14155550102', data: { first_name: 'Bob', discount: 15, ends: 'Friday' } },
      // No `ends`: strict Liquid refuses the render; the recipient is recorded, the others go on.
      { id: 'u3', phone: '+14155550103', data: { first_name: 'Cy', discount: 10 } },
      { id: 'u4', phone: '+14155550104', locale: 'de', data: { first_name: 'Dora', discount: 5, ends: 'Freitag' } },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const aud = await upload(ndjson, 'application/x-ndjson');
    expect(aud.status, JSON.stringify(aud.json)).toBe(201);
    const created = await h.post('/v1/campaigns', campaignBody({ audience_id: aud.json.id }, { start: 'if_feasible' }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ status: 'running', template: { id: 'promo', version: 1 } });

    // Published after creation: the campaign keeps version 1.
    const v2 = await h.post('/v1/templates/promo/versions', { locales: { en: { sms: { text: 'v2 {{ first_name }}' } } }, publish: true });
    expect(v2.status, JSON.stringify(v2.json)).toBe(201);

    expect(await h.campaigns.runOnce()).toMatchObject({ fannedOut: 3, skipped: 1 });
    const byRecipient = await rendered();
    expect(byRecipient.get('u1')).toEqual({
      text: 'Olá Ana, 20% de desconto até sexta',
      template: { id: 'promo', version: 1, locale: 'pt', inputs_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(byRecipient.get('u2')).toMatchObject({ text: 'Hi Bob, 15% off until Friday', template: { version: 1, locale: 'en' } });
    expect(byRecipient.get('u4')).toMatchObject({ text: 'Hi Dora, 5% off until Freitag', template: { version: 1, locale: 'en' } });
    expect(byRecipient.has('u3')).toBe(false);

    const c = (await h.get(`/v1/campaigns/${created.json.id}`)).json;
    expect(c.progress).toMatchObject({ fanned_out: 3, skipped: 1, not_fanned_out: 0, refused_by_code: { template_render_failed: 1 } });
    const refusals = await h.get(`/v1/campaigns/${created.json.id}/refusals`);
    expect(refusals.status).toBe(200);
    expect(refusals.json).toEqual({
      items: [
        {
          position: 3,
          line: 3,
          recipient_id: 'u3',
          code: 'template_render_failed',
          reason: expect.stringMatching(/^template promo version 1 \(locale en\) sms\.text: undefined variable: ends/),
          locale: 'en',
          at: new Date(T0).toISOString(),
        },
      ],
      next_cursor: null,
    });
    await h.worker.drain();
    expect((await h.campaigns.runOnce()).finished).toBe(1);
    expect((await h.get(`/v1/campaigns/${created.json.id}`)).json).toMatchObject({ status: 'completed', progress: { accepted: 3, skipped: 1 } });
    expect(new Set(h.sandbox.ledger.entries().map((e) => e.destination))).toEqual(new Set(['+14155550101', '+14155550102', '+14155550104']));
  });

  it('reads CSV data.* columns as data fields and inline recipients’ data; pages refusals with a cursor', async () => {
    await setup();
    const csv = 'id,phone,locale,data.first_name,data.discount,data.ends\nu1,+14155550101,pt,Ana,20,sexta\nu2,+14155550102,,Bob,15,\nu3,+14155550103,,Cy,,\n';
    const aud = await upload(csv, 'text/csv');
    expect(aud.status, JSON.stringify(aud.json)).toBe(201);
    // The first row renders, so the campaign is created; u2 and u3 miss variables (an empty cell is no value).
    const created = await h.post('/v1/campaigns', campaignBody({ audience_id: aud.json.id }, { start: 'if_feasible' }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(await h.campaigns.runOnce()).toMatchObject({ fannedOut: 1, skipped: 2 });
    expect((await rendered()).get('u1')).toMatchObject({ text: 'Olá Ana, 20% de desconto até sexta' });
    const first = await h.get(`/v1/campaigns/${created.json.id}/refusals?limit=1`);
    expect(first.json.items.map((r: { recipient_id: string }) => r.recipient_id)).toEqual(['u2']);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await h.get(`/v1/campaigns/${created.json.id}/refusals?limit=1&cursor=${first.json.next_cursor}`);
    expect(second.json).toMatchObject({ items: [{ recipient_id: 'u3', line: 4 }], next_cursor: null });
    expect((await h.get(`/v1/campaigns/${created.json.id}/refusals?cursor=bogus`)).json.code).toBe('invalid_cursor');
    expect((await h.get(`/v1/campaigns/cmp_nope/refusals`)).status).toBe(404);

    // A CSV column that is neither a recipient field nor data.<name> is still refused.
    const bad = await upload('id,phone,first_name\nu1,+14155550101,Ana\n', 'text/csv');
    expect(bad.json.code).toBe('audience_invalid');
    // NDJSON data must be an object, and at most 8 KiB.
    const notObject = await upload('{"id":"u1","phone":"+14155550101","data":"Ana"}\n', 'application/x-ndjson');
    expect(notObject.json).toMatchObject({ code: 'audience_invalid', errors: [{ field: 'line 1.data' }] });
    const tooBig = await upload(`${JSON.stringify({ id: 'u1', phone: '+14155550101', data: { blob: 'x'.repeat(9000) } })}\n`, 'application/x-ndjson');
    expect(tooBig.json).toMatchObject({ code: 'audience_invalid', errors: [{ field: 'line 1.data', message: expect.stringMatching(/at most 8192/) }] });

    const inline = await h.post(
      '/v1/campaigns',
      campaignBody({ recipients: [{ id: 'i1', phone: '+14155550111', data: { first_name: 'Ivo', discount: 30, ends: 'Monday' } }] }, { start: 'if_feasible' }),
    );
    expect(inline.status, JSON.stringify(inline.json)).toBe(201);
    await h.campaigns.runOnce();
    expect((await rendered()).get('i1')).toMatchObject({ text: 'Hi Ivo, 30% off until Monday' });

    // Erasing a recipient clears its template data from the audience with its addresses.
    expect((await h.app.inject({ method: 'DELETE', url: '/v1/recipients/u1', headers: { authorization: `Bearer ${h.apiKey}` } })).statusCode).toBe(200);
    const [u1] = await h.store.campaigns.readAudienceRows(aud.json.id, 0, 1);
    expect(u1).toEqual({ position: 1, line: 2, recipient: { id: 'u1', locale: 'pt' } });
  });

  it('refuses at creation, naming template, version, locale and part, what cannot be sent; nothing is stored', async () => {
    await setup();
    const inline = (data: Record<string, unknown>) => ({ recipients: [{ id: 'u1', phone: '+14155550101', email: 'u1@example.com', data }] });
    const ok = { first_name: 'Ana', discount: 1, ends: 'x' };
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [campaignBody(inline(ok), { template: { id: 'nope' } }), 422, 'template_unknown', /there is no template nope/],
      [campaignBody(inline(ok), { template: { id: 'promo', version: 9 } }), 422, 'template_unknown', /template promo has no version 9/],
      // The template has no push part in any locale.
      [campaignBody(inline(ok), { channel: 'push' }), 422, 'template_part_missing', /template promo version 1 \(locale en\) has no push part/],
      // The first recipient's data lacks a variable.
      [
        campaignBody(inline({ first_name: 'Ana' })),
        422,
        'template_render_failed',
        /first recipient \(audience.recipients\[0\]\): template promo version 1 \(locale en\) sms.text/,
      ],
      // Over the SMS limit once rendered (10 segments).
      [
        campaignBody(inline({ ...ok, first_name: 'A'.repeat(1600) })),
        422,
        'template_content_too_large',
        /template promo version 1 \(locale en\) sms.text renders to \d+ SMS segments/,
      ],
      [campaignBody(inline(ok), { content: { text: 'x' } }), 400, 'validation_failed', /template and content are exclusive/],
    ];
    for (const [body, status, code, detail] of cases) {
      const r = await h.post('/v1/campaigns', body);
      expect(r.status, JSON.stringify(r.json)).toBe(status);
      expect(r.json.code).toBe(code);
      expect(r.json.detail).toMatch(detail);
    }
    // Nothing stored: no campaign, and the inline audiences were removed with their refusals.
    expect(await h.store.campaigns.listActiveCampaigns(10)).toEqual([]);
  });
});
