/**
 * Regressions the fuzz suite (test/fuzz/) found: a path the router cannot decode, or a path
 * parameter past maxParamLength, answered Fastify's own `{statusCode, error}` JSON instead of a
 * problem document; a NUL character (U+0000) in a path parameter, a query value or a body string
 * reached PostgreSQL, which cannot store it, and answered 500. Now: 400 `invalid_url`, 414
 * `uri_too_long`, 400 `validation_failed` naming the field, nothing written, on both drivers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/signing/standard-webhooks.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

describe.each(DRIVERS)('URL and NUL refusals (%s)', (driver) => {
  let h: Harness;
  afterEach(async () => h?.close());

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    h.app.inject({ method, url, headers: { authorization: `Bearer ${h.apiKey}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('a broken percent-encoding is 400 invalid_url and an overlong parameter 414 uri_too_long, as problem documents', async () => {
    h = await createHarness({ driver });
    for (const url of ['/v1/notifications/%zz', '/v1/recipients/%/preferences', '/%ff%fe', '/mobile/v1/%']) {
      const r = await call('GET', url);
      expect(r.statusCode, url).toBe(400);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(r.json()).toMatchObject({ code: 'invalid_url', status: 400 });
    }
    const long = await call('GET', `/v1/notifications/${'x'.repeat(1601)}`);
    expect(long.statusCode).toBe(414);
    expect(long.json()).toMatchObject({ code: 'uri_too_long', status: 414 });
    // 1,600 is still a parameter the routes look at (unsubscribe tokens run to ~1,200).
    expect((await call('GET', `/v1/notifications/${'x'.repeat(1600)}`)).json().code).toBe('not_found');
  });

  it('NUL in a path parameter, a query value or a body string is 400 naming the field, and nothing is stored', async () => {
    h = await createHarness({ driver });
    const sent = await h.send(otpBody());
    expect(sent.status).toBe(202);
    const path = await call('POST', '/v1/notifications/%00/reports', { kind: 'not_received' });
    expect(path.statusCode).toBe(400);
    expect(path.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'path.id' }] });
    const query = await call('GET', '/v1/deliveries?q=a%00b');
    expect(query.statusCode).toBe(400);
    expect(query.json().errors[0].field).toBe('query.q');
    const body = await h.send(otpBody({ recipient: { id: 'user\u0000x', phone: '+14155550123' } }));
    expect(body.status).toBe(400);
    expect(body.json.errors[0]).toEqual({ field: 'recipient.id', message: 'must not contain the NUL character (U+0000)' });
    const key = await h.send({ ...otpBody(), metadata: { 'k\u0000': 'v' } });
    expect(key.status).toBe(400);
    expect(key.json.errors[0].field).toBe('metadata.k\u0000');
    const list = await h.get('/v1/deliveries');
    expect(list.json.items).toHaveLength(1);
  });

  it('a signed callback with NUL in a field is 400 callback_malformed (not a 503 the provider would retry for ever), nothing recorded', async () => {
    h = await createHarness({ driver, callbacks: true });
    const email = h.config.provider_accounts.find((a) => a.id === 'sandbox-email')!;
    for (const field of ['provider_message_id', 'reference']) {
      const data: Record<string, unknown> = { event_id: `evt_${field}`, provider_message_id: 'p1', reference: 'r1', channel: 'email', status: 'delivered' };
      data[field] = 'a\u0000b';
      const body = Buffer.from(JSON.stringify({ type: 'message.delivered', timestamp: new Date(h.clock.now()).toISOString(), data }));
      const headers = { 'content-type': 'application/json', ...signWebhook(email.callback_secrets!, `evt_${field}`, h.clock.now(), body) };
      const r = await h.app.inject({ method: 'POST', url: '/v1/callbacks/sandbox-email', headers, payload: body });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().code).toBe('callback_malformed');
    }
    const clean = Buffer.from(
      JSON.stringify({
        type: 'message.delivered',
        timestamp: new Date(h.clock.now()).toISOString(),
        data: { event_id: 'evt_provider_message_id', provider_message_id: 'p1', reference: 'r1', channel: 'email', status: 'delivered' },
      }),
    );
    const ok = await h.app.inject({
      method: 'POST',
      url: '/v1/callbacks/sandbox-email',
      headers: { 'content-type': 'application/json', ...signWebhook(email.callback_secrets!, 'evt_provider_message_id', h.clock.now(), clean) },
      payload: clean,
    });
    // The refused event's id was not recorded: the clean one with the same id is new.
    expect(ok.json()).toEqual({ received: 1, duplicates: 0 });
  });

  it('an audience row with NUL in a column is a line error (400 audience_invalid), not a 500', async () => {
    h = await createHarness({ driver });
    for (const [type, body, line] of [
      ['application/x-ndjson', '{"id":"ok","email":"a@example.com"}\n{"id":"a\\u0000b","email":"b@example.com"}\n', 2],
      ['text/csv', 'id,email\na\u0000b,a@example.com\n', 2],
    ] as const) {
      const r = await h.app.inject({
        method: 'POST',
        url: '/v1/audiences',
        headers: { authorization: `Bearer ${h.apiKey}`, 'content-type': type },
        payload: body,
      });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json()).toMatchObject({ code: 'audience_invalid', detail: expect.stringContaining(`line ${line} has the NUL character (U+0000) in id`) });
    }
  });
});
