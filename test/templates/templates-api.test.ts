/**
 * Templates end to end, on both drivers: create, version (compiled at save, refused whole when
 * it does not compile), publish, preview (nothing stored), and intake with a template: pinned
 * at intake, rendered once per channel in the recipient's locale chain, refused with a 422
 * naming template, version, locale and part (nothing stored), and recorded on the notification
 * and delivery with its inputs hash. A newly published version does not change queued messages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const welcome = {
  locales: {
    en: {
      email: {
        subject: 'Welcome, {{ name }}',
        mjml: '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{ name }}, you have {{ n | plural: one: "# message", other: "# messages" }}</mj-text></mj-column></mj-section></mj-body></mjml>',
      },
      sms: { text: 'Hi {{ name }}: {{ total | currency: "EUR" }}' },
      push: { title: 'Hi', body: '{{ name }}', data: { url: 'https://app.example.com/{{ name }}' } },
    },
    pt: { sms: { text: 'Olá {{ name }}: {{ total | currency: "EUR" }}' }, email: { subject: 'Bem-vindo, {{ name }}', text: 'Olá {{ name }}' } },
  },
};

const body = (over: Record<string, unknown> = {}, recipient: Record<string, unknown> = {}) => ({
  recipient: { id: 'user-1', phone: '+14155550123', email: 'ada@example.com', ...recipient },
  purpose: 'transactional',
  channels: ['sms', 'email'],
  template: { id: 'welcome', data: { name: 'Ada', total: 1234.5, n: 3 } },
  ...over,
});

describe.each(DRIVERS)('templates on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  const setup = async () => {
    h = await createHarness({ driver });
    const created = await h.post('/v1/templates', { id: 'welcome', name: 'Welcome', default_locale: 'en', version: { ...welcome, publish: true } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    return created;
  };

  it('creates, versions, publishes, lists and reads templates; a version that does not compile is not saved', async () => {
    const created = await setup();
    expect(created.json).toMatchObject({
      id: 'welcome',
      default_locale: 'en',
      published_version: 1,
      latest_version: 1,
      version: { version: 1, published: true },
    });
    // MJML was compiled at save: the stored html is HTML, the source is kept.
    expect(created.json.version.locales.en.email.html).toContain('<!doctype html>');
    expect(created.json.version.locales.en.email.mjml).toContain('<mjml>');
    expect((await h.post('/v1/templates', { id: 'welcome', name: 'Again', default_locale: 'en' })).json.code).toBe('template_exists');

    const bad = [
      { locales: { en: { sms: { text: 'Hi {{ name | shout }}' } } }, field: 'locales.en.sms.text' },
      { locales: { en: { sms: { text: 'Hi {% if %}' } } }, field: 'locales.en.sms.text' },
      { locales: { en: { email: { subject: 'x', mjml: '<mjml><mj-body><mj-text>no column</mj-text></mj-body></mjml>' } } }, field: 'locales.en.email.mjml' },
      { locales: { pt: { sms: { text: 'Olá' } } }, field: 'locales.en' },
    ];
    for (const b of bad) {
      const r = await h.post('/v1/templates/welcome/versions', { locales: b.locales });
      expect(r.status, JSON.stringify(r.json)).toBe(422);
      expect(r.json.code).toBe('template_invalid');
      expect(r.json.errors.map((e: { field: string }) => e.field)).toContain(b.field);
    }
    expect((await h.get('/v1/templates/welcome')).json.latest_version).toBe(1);
    // A first version that does not compile creates no template either.
    expect((await h.post('/v1/templates', { id: 'broken', name: 'B', default_locale: 'en', version: { locales: bad[0]!.locales } })).status).toBe(422);
    expect((await h.get('/v1/templates/broken')).status).toBe(404);

    const v2 = await h.post('/v1/templates/welcome/versions', { locales: { en: { sms: { text: 'v2 {{ name }}' } } } });
    expect(v2.json).toMatchObject({ version: 2, published: false });
    expect((await h.get('/v1/templates/welcome')).json).toMatchObject({ published_version: 1, latest_version: 2 });
    expect((await h.post('/v1/templates/welcome/versions/2/publish')).json.published_version).toBe(2);
    expect((await h.post('/v1/templates/welcome/versions/9/publish')).status).toBe(404);
    expect((await h.get('/v1/templates/welcome/versions/1')).json).toMatchObject({ version: 1, published: false });
    expect((await h.get('/v1/templates')).json.items.map((t: { id: string }) => t.id)).toEqual(['welcome']);
    expect((await h.get('/v1/templates/nope')).status).toBe(404);
  });

  it('previews a version in a locale with Intl formatting, storing nothing', async () => {
    await setup();
    const en = await h.post('/v1/templates/welcome/versions/1/preview', { data: { name: 'Ada', total: 1234.5, n: 1 }, locale: 'en-GB' });
    expect(en.status, JSON.stringify(en.json)).toBe(200);
    expect(en.json).toMatchObject({
      locale: 'en',
      version: 1,
      parts: { sms: { text: 'Hi Ada: €1,234.50' }, push: { title: 'Hi', body: 'Ada', data: { url: 'https://app.example.com/Ada' } } },
    });
    expect(en.json.parts.email.html).toContain('you have 1 message');
    // No text part: derived from the HTML.
    expect(en.json.parts.email.text).toContain('Hello Ada, you have 1 message');
    const pt = await h.post('/v1/templates/welcome/versions/1/preview', { data: { name: 'Ana', total: 1234.5, n: 2 }, locale: 'pt-BR', channels: ['sms'] });
    expect(pt.json).toMatchObject({ locale: 'pt', parts: { sms: { text: 'Olá Ana: €\u00a01.234,50' } } });
    const missing = await h.post('/v1/templates/welcome/versions/1/preview', { data: { total: 1 }, channels: ['sms'] });
    expect(missing.status).toBe(422);
    expect(missing.json.code).toBe('template_render_failed');
    expect(missing.json.detail).toMatch(/template welcome version 1 \(locale en\) sms.text: undefined variable: name/);
    expect(await h.store.getNotification(h.tenantId, 'ntf_x')).toBeNull();
  });

  it('renders at intake per channel and locale, records template, version, locale and hash, and pins the version', async () => {
    await setup();
    const sent = await h.send(body({}, { locale: 'pt-BR' }));
    expect(sent.status, JSON.stringify(sent.json)).toBe(202);
    const n = await h.get(`/v1/notifications/${sent.json.id}`);
    expect(n.json.template).toEqual({ id: 'welcome', version: 1, locale: 'pt', inputs_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const stored = await h.store.getNotification(h.tenantId, sent.json.id);
    expect(stored!.content).toMatchObject({ subject: 'Bem-vindo, Ada', text: 'Olá Ada', channels: { sms: { text: 'Olá Ada: €\u00a01.234,50' } } });
    const d = await h.get(`/v1/deliveries/${sent.json.deliveries[0].id}`);
    expect(d.json.template).toEqual(n.json.template);
    // The same inputs hash the same; other data does not.
    const again = await h.send(body({ group: { key: 'g2', generation: 1 } }, { locale: 'pt-BR' }));
    expect((await h.get(`/v1/notifications/${again.json.id}`)).json.template.inputs_hash).toBe(n.json.template.inputs_hash);

    // A new published version changes what later requests render, never the queued message.
    await h.post('/v1/templates/welcome/versions', {
      locales: { en: { sms: { text: 'v2 {{ name }}' }, email: { subject: 'v2', text: 'v2' } } },
      publish: true,
    });
    const later = await h.send(body({ group: { key: 'g3', generation: 1 } }));
    expect((await h.get(`/v1/notifications/${later.json.id}`)).json.template).toMatchObject({ version: 2, locale: 'en' });
    expect((await h.store.getNotification(h.tenantId, sent.json.id))!.content).toMatchObject({ text: 'Olá Ada', template: { version: 1 } });
    await h.worker.drain();
    const queued = await h.get(`/v1/notifications/${sent.json.id}`);
    expect(queued.json.deliveries.every((x: { state: string }) => x.state === 'accepted')).toBe(true);
    expect(queued.json.template.version).toBe(1);
    // A pinned older version is still used when named.
    const pinned = await h.send(
      body({ group: { key: 'g4', generation: 1 }, template: { id: 'welcome', version: 1, locale: 'en', data: { name: 'Ada', total: 1, n: 1 } } }),
    );
    expect((await h.get(`/v1/notifications/${pinned.json.id}`)).json.template).toMatchObject({ version: 1, locale: 'en' });
    // A resend sends what was rendered, not a new rendering with the version published since.
    const resent = await h.post(`/v1/notifications/${sent.json.id}/resend`, {});
    expect(resent.status, JSON.stringify(resent.json)).toBe(202);
    expect((await h.get(`/v1/notifications/${resent.json.id}`)).json.template).toEqual(n.json.template);
    expect((await h.store.getNotification(h.tenantId, resent.json.id))!.content).toMatchObject({
      text: 'Olá Ada',
      channels: { sms: { text: 'Olá Ada: €\u00a01.234,50' } },
    });
  });

  it('refuses a bad template request with a 422 naming template, version, locale and part, storing nothing', async () => {
    await setup();
    await h.post('/v1/templates', { id: 'draft', name: 'Draft', default_locale: 'en' });
    const cases: Array<[Record<string, unknown>, string, RegExp | null]> = [
      [body({ template: { id: 'nope', data: {} } }), 'template_unknown', null],
      [body({ template: { id: 'welcome', version: 7, data: {} } }), 'template_unknown', /no version 7/],
      [body({ template: { id: 'draft', data: {} } }), 'template_not_published', null],
      [
        body({ template: { id: 'welcome', data: { total: 1, n: 1 } } }),
        'template_render_failed',
        /template welcome version 1 \(locale en\) .*undefined variable: name/,
      ],
      [
        body({ template: { id: 'welcome', data: { name: 'x'.repeat(1600), total: 1, n: 1 } }, channels: ['sms'] }),
        'template_content_too_large',
        /template welcome version 1 \(locale en\) sms.text renders to 11 SMS segments/,
      ],
      [
        body({ template: { id: 'welcome', data: { name: 'x'.repeat(5000), total: 1, n: 1 } }, channels: ['push'] }, { push_token: 'fcm-token-1' }),
        'template_content_too_large',
        /push renders to a \d+-byte payload/,
      ],
    ];
    for (const [b, code, detail] of cases) {
      const r = await h.send(b, { 'idempotency-key': `k-${code}` });
      expect(r.status, JSON.stringify(r.json)).toBe(422);
      expect(r.json.code).toBe(code);
      if (detail) expect(r.json.detail).toMatch(detail);
    }
    const page = await h.get('/v1/deliveries');
    expect(page.json.items).toEqual([]);
    // The key was not poisoned: the corrected request goes through under it.
    expect((await h.send(body(), { 'idempotency-key': 'k-template_render_failed' })).status).toBe(202);
  });
});

describe.each(DRIVERS)('template e-mail html against max_html_bytes on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  it("refuses a rendered html part over the e-mail account's max_html_bytes, naming template, version, locale and part", async () => {
    h = await createHarness({ driver, account: (a) => (a.channel === 'email' ? { ...a, max_html_bytes: 200 } : a) });
    const v = { publish: true, locales: { en: { email: { subject: 'Hi', html: '<p>{{ body }}</p>' } } } };
    expect((await h.post('/v1/templates', { id: 'news', name: 'News', default_locale: 'en', version: v })).status).toBe(201);
    const send = (text: string) => h.send(body({ channels: ['email'], template: { id: 'news', data: { body: text } } }));
    const big = await send('x'.repeat(300));
    expect(big.status).toBe(422);
    expect(big.json).toMatchObject({ code: 'template_content_too_large', errors: [{ field: 'template.email.html' }] });
    expect(big.json.detail).toMatch(/template news version 1 \(locale en\) email.html renders to 307 bytes; provider account \S+ takes at most 200/);
    expect((await send('short')).status).toBe(202);
  });
});
