/**
 * The webhook endpoint API through app.inject(): register (secret shown once), read (never the
 * secret), rotate, enable, delete; tenant isolation; every SSRF case of the baseline refused
 * with `webhook_url_refused`, loopback accepted only when the configuration allows it; the
 * routes in /openapi.json; and one message end to end from intake to a verified receiver.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { verifyWebhook } from '../../src/signing/standard-webhooks.js';
import { createHarness, otpBody, type Harness } from '../helpers/harness.js';
import { REFUSED_URLS } from './fixtures.js';
import { LOOPBACK, relayAndSendOnce, startReceiver, type Receiver } from './receiver.js';

let h: Harness;
let receiver: Receiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
  await h.close();
});

async function call(method: 'GET' | 'DELETE' | 'POST', url: string, body?: unknown, key = h.apiKey) {
  const r = await h.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(body === undefined ? {} : { payload: body as object }) });
  return { status: r.statusCode, json: r.body ? r.json() : null };
}

describe('POST /v1/webhooks and friends', () => {
  it('registers, shows the secret once, reads, rotates, enables and deletes', async () => {
    h = await createHarness({ webhookAllowNetworks: LOOPBACK });
    const created = await call('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      event_types: ['delivery.accepted', 'notification.created'],
      description: 'orders',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^whe_[0-9A-Z]{26}$/),
      url: 'http://127.0.0.1:9/hooks',
      description: 'orders',
      event_types: ['delivery.accepted', 'notification.created'],
      status: 'active',
      disabled_reason: null,
      previous_secret_expires_at: null,
      failures: { consecutive: 0, failing_since: null, next_attempt_at: null, last: null },
      messages: { pending: 0, delivered: 0 },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const id = created.json.id as string;
    const secret = created.json.secret as string;

    const one = await call('GET', `/v1/webhooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.json).not.toHaveProperty('secret');
    const { secret: _, ...withoutSecret } = created.json;
    expect(one.json).toEqual(withoutSecret);
    const list = await call('GET', '/v1/webhooks');
    expect(list.json.items.map((e: { id: string }) => e.id)).toEqual([id]);
    expect(JSON.stringify(list.json)).not.toContain(secret.slice(6));

    const rotated = await call('POST', `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(secret);
    expect(rotated.json.previous_secret_expires_at).toBe(new Date(h.clock.now() + 24 * 3_600_000).toISOString());

    expect((await call('POST', `/v1/webhooks/${id}/enable`)).json).toMatchObject({ id, status: 'active' });
    expect((await call('DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
    expect((await call('GET', `/v1/webhooks/${id}`)).json).toMatchObject({ status: 404, code: 'not_found' });
    expect((await call('DELETE', `/v1/webhooks/${id}`)).status).toBe(404);
  });

  it('stores `*` alone when the list names it', async () => {
    h = await createHarness({ webhookAllowNetworks: LOOPBACK });
    const r = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/', event_types: ['delivery.accepted', '*'] });
    expect(r.json.event_types).toEqual(['*']);
  });

  it('refuses bad bodies with validation_failed', async () => {
    h = await createHarness({ webhookAllowNetworks: LOOPBACK });
    for (const body of [
      { url: 'http://127.0.0.1:9/', event_types: ['delivery.exploded'] },
      { url: 'http://127.0.0.1:9/', event_types: [] },
      { url: 'http://127.0.0.1:9/' },
      { url: 'http://127.0.0.1:9/', event_types: ['*'], secret: 'whsec_mine' },
      { url: 'http://127.0.0.1:9/', event_types: ['*', '*'] },
    ]) {
      expect((await call('POST', '/v1/webhooks', body)).json, JSON.stringify(body)).toMatchObject({ status: 400, code: 'validation_failed' });
    }
  });

  it("keeps tenants apart: another tenant's endpoint is not found", async () => {
    h = await createHarness({ webhookAllowNetworks: LOOPBACK });
    const id = (await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/', event_types: ['*'] })).json.id as string;
    await h.store.ensureTenant({ id: 'other', name: 'Other' }, h.clock.now());
    const otherKey = generateApiKey();
    await h.store.createApiKey({ id: 'key_other', tenantId: 'other', keyHash: hashApiKey(otherKey), label: 'x', now: h.clock.now() });
    for (const [method, url] of [
      ['GET', `/v1/webhooks/${id}`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['POST', `/v1/webhooks/${id}/enable`],
      ['GET', '/v1/webhooks/whe_nonsense'],
    ] as const) {
      expect((await call(method, url, undefined, otherKey)).status, `${method} ${url}`).toBe(404);
    }
    expect((await call('GET', '/v1/webhooks', undefined, otherKey)).json).toEqual({ items: [] });
    expect((await call('GET', `/v1/webhooks/${id}`)).status).toBe(200);
  });
});

describe('SSRF refusals at registration', () => {
  it.each(REFUSED_URLS)('refuses %s with webhook_url_refused', async (url) => {
    h = await createHarness();
    const r = await call('POST', '/v1/webhooks', { url, event_types: ['*'] });
    if (url.length > 2048) {
      // Over the schema's limit: refused before the URL is even looked at.
      expect(r.json).toMatchObject({ status: 400, code: 'validation_failed', errors: [{ field: 'url' }] });
    } else {
      expect(r.status).toBe(422);
      expect(r.json).toMatchObject({ code: 'webhook_url_refused', errors: [{ field: 'url', message: expect.any(String) }] });
    }
    expect((await call('GET', '/v1/webhooks')).json.items).toEqual([]);
  });

  it('accepts a loopback URL only when the configuration allows loopback', async () => {
    h = await createHarness({ webhookAllowNetworks: LOOPBACK });
    expect((await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:8080/hooks', event_types: ['*'] })).status).toBe(201);
    expect((await call('POST', '/v1/webhooks', { url: 'http://localhost:8080/hooks', event_types: ['*'] })).status).toBe(201);
    expect((await call('POST', '/v1/webhooks', { url: 'http://10.0.0.1/hooks', event_types: ['*'] })).json.code).toBe('webhook_url_refused');
  });
});

it('publishes the routes in /openapi.json', async () => {
  h = await createHarness();
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  expect(doc.paths['/v1/webhooks'].post.requestBody.content['application/json'].schema).toMatchObject({
    additionalProperties: false,
    required: ['url', 'event_types'],
  });
  expect(doc.paths['/v1/webhooks'].get).toBeDefined();
  expect(doc.paths['/v1/webhooks/{id}'].get).toBeDefined();
  expect(doc.paths['/v1/webhooks/{id}'].delete).toBeDefined();
  expect(doc.paths['/v1/webhooks/{id}/rotate-secret'].post).toBeDefined();
  expect(doc.paths['/v1/webhooks/{id}/enable'].post).toBeDefined();
  expect(Object.keys(doc.paths['/v1/webhooks'].post.responses)).toEqual(expect.arrayContaining(['400', '401', '422']));
});

it('end to end: a notification sent through the API reaches a registered endpoint, signed, in order', async () => {
  h = await createHarness({ webhookAllowNetworks: LOOPBACK });
  receiver = await startReceiver();
  const created = await call('POST', '/v1/webhooks', { url: receiver.url, event_types: ['*'] });
  const secret = created.json.secret as string;
  const verified: boolean[] = [];
  receiver.respond = (r) => (verified.push(verifyWebhook([secret], r.headers, r.body, h.clock.now()).ok), { status: 200 });
  const sent = await h.send(otpBody());
  expect(sent.status).toBe(202);
  await h.worker.drain();
  await relayAndSendOnce(h.store, h.clock);
  const types = receiver.delivered.map((r) => JSON.parse(r.body).type);
  expect(types[0]).toBe('notification.created');
  expect(types).toContain('delivery.accepted');
  expect(receiver.delivered.every((r) => JSON.parse(r.body).data.notification_id === sent.json.id)).toBe(true);
  expect(verified.every(Boolean)).toBe(true);
  const one = await call('GET', `/v1/webhooks/${created.json.id}`);
  expect(one.json.messages).toEqual({ pending: 0, delivered: types.length });
  expect(one.json.last_success_at).toBe(new Date(h.clock.now()).toISOString());
});
