/**
 * Bearer API keys: every way of not presenting a valid key gets the same 401 (so the answer
 * does not tell a prober which check failed), public endpoints need no key, and one tenant's
 * key never reaches another tenant's notifications or deliveries.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { createHarness, otpBody, T0, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

type Method = 'GET' | 'POST';

async function call(method: Method, url: string, authorization?: string): Promise<LightMyRequestResponse> {
  return h.app.inject({
    method,
    url,
    headers: authorization === undefined ? {} : { authorization },
    ...(method === 'POST' ? { payload: otpBody() } : {}),
  });
}

/** Every way of failing to authenticate; none may be told apart from the others. */
const BAD_CREDENTIALS: Array<{ name: string; authorization: (validKey: string) => string | undefined }> = [
  { name: 'missing Authorization', authorization: () => undefined },
  { name: 'empty Authorization', authorization: () => '' },
  { name: 'Basic scheme', authorization: () => `Basic ${Buffer.from('user:pass').toString('base64')}` },
  { name: 'valid key under the Basic scheme', authorization: (k) => `Basic ${k}` },
  { name: 'valid key without a scheme', authorization: (k) => k },
  { name: 'Bearer with no key', authorization: () => 'Bearer ' },
  { name: 'unknown well-formed key', authorization: () => `Bearer ${generateApiKey()}` },
  { name: 'malformed key (spaces and punctuation)', authorization: () => 'Bearer not a key!!' },
  { name: 'malformed key (over 512 characters)', authorization: () => `Bearer ${'a'.repeat(513)}` },
  { name: 'valid key with a character appended', authorization: (k) => `Bearer ${k}x` },
  { name: 'valid key with its last character changed', authorization: (k) => `Bearer ${k.slice(0, -1)}${k.endsWith('A') ? 'B' : 'A'}` },
  { name: 'the stored hash instead of the key', authorization: (k) => `Bearer ${hashApiKey(k)}` },
];

const ROUTES: Array<[Method, string]> = [
  ['POST', '/v1/notifications'],
  ['GET', '/v1/notifications/ntf_01JD0000000000000000000000'],
  ['GET', '/v1/deliveries'],
  ['GET', '/v1/deliveries?state=ready'],
  ['GET', '/v1/deliveries/dlv_01JD0000000000000000000000'],
];

describe('requests without a valid API key', () => {
  it.each(ROUTES)('%s %s: every bad credential gets the same 401', async (method, url) => {
    const bodies = new Set<string>();
    for (const bad of BAD_CREDENTIALS) {
      const r = await call(method, url, bad.authorization(h.apiKey));
      expect(r.statusCode, bad.name).toBe(401);
      expect(r.headers['www-authenticate'], bad.name).toBe('Bearer');
      expect(r.headers['content-type'], bad.name).toMatch(/^application\/problem\+json/);
      const body = r.json();
      expect(body, bad.name).toMatchObject({ status: 401, code: 'unauthorized', title: 'Missing or invalid API key' });
      expect(typeof body.detail).toBe('string');
      expect(body.instance).toBe(url.split('?')[0]);
      const { instance: _instance, ...rest } = body;
      bodies.add(JSON.stringify(rest));
    }
    // One answer for every case: nothing says whether the key was missing, malformed or unknown.
    expect(bodies.size).toBe(1);
    const counts = await h.store.countByState();
    expect(counts.ready).toBe(0);
  });

  it('the 401 body is the same on every route apart from instance', async () => {
    const bodies = new Set<string>();
    for (const [method, url] of ROUTES) {
      const { instance: _instance, ...rest } = (await call(method, url)).json();
      bodies.add(JSON.stringify(rest));
    }
    expect(bodies.size).toBe(1);
  });

  it('auth is checked before the body: an unauthenticated malformed body is 401, not 400', async () => {
    const r = await h.app.inject({
      method: 'POST',
      url: '/v1/notifications',
      headers: { 'content-type': 'application/json', 'idempotency-key': '""' },
      payload: '{not json',
    });
    expect(r.statusCode).toBe(401);
    expect(r.json().code).toBe('unauthorized');
  });

  it('the valid key is accepted (the cases above can fail), and the scheme name is case-insensitive', async () => {
    expect((await call('GET', '/v1/deliveries', `Bearer ${h.apiKey}`)).statusCode).toBe(200);
    // RFC 9110 §11.1: the auth-scheme is a case-insensitive token.
    expect((await call('GET', '/v1/deliveries', `bearer ${h.apiKey}`)).statusCode).toBe(200);
    expect((await call('GET', '/v1/deliveries', `BEARER ${h.apiKey}`)).statusCode).toBe(200);
  });
});

describe('public endpoints', () => {
  it('/healthz needs no key', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/healthz' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'ok' });
  });

  it('/openapi.json needs no key', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(r.statusCode).toBe(200);
    expect(r.json().openapi).toBe('3.1.0');
  });

  it('a wrong key on a public endpoint does not turn it into a 401', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/healthz', headers: { authorization: 'Bearer nope' } });
    expect(r.statusCode).toBe(200);
  });
});

describe('tenants are isolated', () => {
  async function secondTenant(): Promise<string> {
    await h.store.ensureTenant({ id: 'acme', name: 'Acme' }, T0);
    const key = generateApiKey();
    await h.store.createApiKey({ id: 'key_acme', tenantId: 'acme', keyHash: hashApiKey(key), label: 'acme', now: T0 });
    // Both tenants send through the same accounts (docs/tenants.md: an assigned account is its tenants' only).
    for (const a of h.config.provider_accounts) for (const t of [h.tenantId, 'acme']) await h.store.tenants.assignAccount(t, a.id, T0);
    return key;
  }

  const as = (key: string, url: string) => h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  it("a second tenant's key cannot read the first tenant's notification or delivery", async () => {
    const acmeKey = await secondTenant();
    const created = await h.send(otpBody());
    expect(created.status).toBe(202);
    const ntfId: string = created.json.id;
    const dlvId: string = created.json.deliveries[0].id;

    // The owner sees both.
    expect((await h.get(`/v1/notifications/${ntfId}`)).status).toBe(200);
    expect((await h.get(`/v1/deliveries/${dlvId}`)).status).toBe(200);

    // The other tenant gets the same 404 as for an id that does not exist at all.
    const foreign = await as(acmeKey, `/v1/notifications/${ntfId}`);
    const missing = await as(acmeKey, '/v1/notifications/ntf_01JD0000000000000000000000');
    expect(foreign.statusCode).toBe(404);
    expect(foreign.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(foreign.json()).toMatchObject({ code: 'not_found', status: 404 });
    expect(missing.json()).toMatchObject({ code: 'not_found', status: 404 });
    expect(foreign.body).not.toContain('default');

    const foreignDelivery = await as(acmeKey, `/v1/deliveries/${dlvId}`);
    expect(foreignDelivery.statusCode).toBe(404);
    expect(foreignDelivery.json().code).toBe('not_found');
  });

  it("a second tenant's delivery list does not include the first tenant's deliveries, with or without filters", async () => {
    const acmeKey = await secondTenant();
    expect((await h.send(otpBody())).status).toBe(202);
    expect((await h.send(otpBody({ channels: ['email'], purpose: 'transactional' }))).status).toBe(202);

    for (const q of ['', '?state=ready', '?channel=sms', '?purpose=otp', '?limit=200']) {
      const r = await as(acmeKey, `/v1/deliveries${q}`);
      expect(r.statusCode, q).toBe(200);
      expect(r.json(), q).toEqual({ items: [], next_cursor: null });
    }

    // And the other way round: acme's own notification is not in the first tenant's list.
    const acmeCreated = await h.app.inject({
      method: 'POST',
      url: '/v1/notifications',
      headers: { authorization: `Bearer ${acmeKey}` },
      payload: otpBody(),
    });
    expect(acmeCreated.statusCode).toBe(202);
    const acmeDelivery: string = acmeCreated.json().deliveries[0].id;
    const mine = await h.get('/v1/deliveries');
    expect(mine.json.items).toHaveLength(2);
    expect(mine.json.items.map((d: { id: string }) => d.id)).not.toContain(acmeDelivery);
    const acmeList = await as(acmeKey, '/v1/deliveries');
    expect(acmeList.json().items.map((d: { id: string }) => d.id)).toEqual([acmeDelivery]);
  });
});
