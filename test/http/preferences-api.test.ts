/**
 * The preferences API through app.inject: opt-outs (PUT/GET), the suppression list
 * (GET/POST/DELETE), and one-click unsubscribe (RFC 8058): POST records, GET only shows a
 * page, forged or edited tokens are refused with a stable code, and a token never reaches a
 * log line. The store behind them is covered on both drivers by the conformance suite.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { buildApp } from '../../src/http/app.js';
import { hashApiKey, generateApiKey } from '../../src/tenants/api-keys.js';
import { IntakeService } from '../../src/intake/intake-service.js';
import { UnsubscribeLinks } from '../../src/preferences/unsubscribe-links.js';
import { signUnsubscribeToken } from '../../src/preferences/unsubscribe-token.js';
import { createHarness, type Harness, silentLogger } from '../helpers/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: unknown, key = h.apiKey) =>
  h.app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

/** A second tenant with its own key, to check that nothing leaks across. */
async function otherTenantKey(): Promise<string> {
  await h.store.ensureTenant({ id: 'other', name: 'Other' }, h.clock.now());
  const key = generateApiKey();
  await h.store.createApiKey({ id: 'key_other', tenantId: 'other', keyHash: hashApiKey(key), label: 'other', now: h.clock.now() });
  return key;
}

/** A real link for user-1, as a worker would put in a marketing e-mail. */
async function link(recipientId = 'user-1'): Promise<string> {
  const links = new UnsubscribeLinks({ store: h.store, clock: h.clock, publicUrl: 'https://herald.example.test' });
  return new URL(await links.url({ tenantId: h.tenantId, recipientId, channel: 'email', purpose: 'marketing' })).pathname;
}

const oneClick = (url: string) =>
  h.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'List-Unsubscribe=One-Click' });

describe('PUT/GET /v1/recipients/:id/preferences', () => {
  it('replaces the opt-outs and lists them; an empty list clears them', async () => {
    const put = await call('PUT', '/v1/recipients/user-1/preferences', { opt_outs: [{ channel: 'sms', purpose: 'marketing' }, { purpose: 'conversational' }] });
    expect(put.statusCode).toBe(200);
    const at = new Date(h.clock.now()).toISOString();
    const expected = {
      recipient_id: 'user-1',
      opt_outs: [
        { channel: null, purpose: 'conversational', source: 'api', opted_out_at: at },
        { channel: 'sms', purpose: 'marketing', source: 'api', opted_out_at: at },
      ],
    };
    expect(put.json()).toEqual(expected);
    expect((await call('GET', '/v1/recipients/user-1/preferences')).json()).toEqual(expected);
    // Another tenant sees its own (empty) set for the same id.
    expect((await call('GET', '/v1/recipients/user-1/preferences', undefined, await otherTenantKey())).json().opt_outs).toEqual([]);
    expect((await call('PUT', '/v1/recipients/user-1/preferences', { opt_outs: [] })).json().opt_outs).toEqual([]);
  });

  it('refuses opting out of codes, receipts and alerts with purpose_not_optional, and unknown fields with validation_failed', async () => {
    for (const purpose of ['otp', 'transactional', 'alert']) {
      const r = await call('PUT', '/v1/recipients/user-1/preferences', {
        opt_outs: [
          { channel: 'email', purpose: 'marketing' },
          { channel: 'email', purpose },
        ],
      });
      expect(r.statusCode).toBe(422);
      expect(r.json()).toMatchObject({ code: 'purpose_not_optional', errors: [{ field: 'opt_outs[1].purpose' }] });
    }
    expect((await call('PUT', '/v1/recipients/user-1/preferences', { opt_outs: [{ channel: 'fax' }] })).json().code).toBe('validation_failed');
    expect((await call('PUT', '/v1/recipients/user-1/preferences', { opt_outs: [], all: true })).json().code).toBe('validation_failed');
    expect((await call('GET', '/v1/recipients/user-1/preferences')).json().opt_outs).toEqual([]);
    expect((await call('GET', '/v1/recipients/user-1/preferences', undefined, 'hld_sk_nope')).statusCode).toBe(401);
  });
});

describe('/v1/suppressions', () => {
  it('adds a manual entry (201, then 200), lists it, lifts it (404 once gone), per tenant', async () => {
    const add = await call('POST', '/v1/suppressions', { channel: 'email', destination: 'ada@example.com' });
    expect(add.statusCode).toBe(201);
    expect(add.json()).toEqual({
      channel: 'email',
      destination: 'ada@example.com',
      reason: 'manual',
      source_delivery_id: null,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect((await call('POST', '/v1/suppressions', { channel: 'email', destination: 'ada@example.com' })).statusCode).toBe(200);
    expect((await call('GET', '/v1/suppressions')).json().items).toEqual([add.json()]);
    const other = await otherTenantKey();
    expect((await call('GET', '/v1/suppressions', undefined, other)).json().items).toEqual([]);
    expect((await call('DELETE', '/v1/suppressions', { channel: 'email', destination: 'ada@example.com' }, other)).json().code).toBe('not_found');
    expect((await call('DELETE', '/v1/suppressions', { channel: 'email', destination: 'ada@example.com' })).json()).toEqual({ removed: true });
    const again = await call('DELETE', '/v1/suppressions', { channel: 'email', destination: 'ada@example.com' });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('not_found');
  });

  it('validates the address for its channel', async () => {
    for (const bad of [
      { channel: 'email', destination: 'ada@' },
      { channel: 'sms', destination: '555-0100' },
      { channel: 'push', destination: 'a b' },
      { channel: 'fax', destination: 'x' },
    ]) {
      const r = await call('POST', '/v1/suppressions', bad);
      expect(r.statusCode, JSON.stringify(bad)).toBe(400);
      expect(r.json().code).toBe('validation_failed');
    }
    expect((await call('POST', '/v1/suppressions', { channel: 'sms', destination: '+14155550123' })).statusCode).toBe(201);
  });
});

describe('one-click unsubscribe /v1/unsubscribe/:token', () => {
  it('POST records the opt-out named by the token (once), without an API key', async () => {
    const url = await link();
    const r = await oneClick(url);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    const after = (await call('GET', '/v1/recipients/user-1/preferences')).json().opt_outs;
    expect(after).toEqual([{ channel: 'email', purpose: 'marketing', source: 'one_click', opted_out_at: new Date(h.clock.now()).toISOString() }]);
    // A repeat (mail clients retry) changes nothing; a multipart body is accepted too.
    h.clock.advance(60_000);
    const multipart = await h.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
    });
    expect(multipart.statusCode).toBe(200);
    expect((await call('GET', '/v1/recipients/user-1/preferences')).json().opt_outs).toEqual(after);
  });

  it('GET shows a confirmation page that posts back, and changes nothing (link scanners prefetch)', async () => {
    const url = await link();
    const r = await h.app.inject({ method: 'GET', url });
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('<form method="post" action="">');
    expect(r.body).toContain('name="List-Unsubscribe" value="One-Click"');
    expect(r.body).not.toContain('user-1');
    expect((await call('GET', '/v1/recipients/user-1/preferences')).json().opt_outs).toEqual([]);
  });

  it('refuses forged, edited and malformed tokens with unsubscribe_link_invalid, recording nothing', async () => {
    const url = await link();
    const token = url.split('/').pop()!;
    const [payload, sig] = token.split('.') as [string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    // Another recipient's id, re-encoded, under the old signature.
    const otherPayload = Buffer.from(JSON.stringify(['u1', h.tenantId, 'user-2', 'email', 'marketing'])).toString('base64url');
    const forged = [
      `${flip(payload, 3)}.${sig}`,
      `${payload}.${flip(sig, 0)}`,
      `${payload}.${flip(sig, 42)}`,
      `${otherPayload}.${sig}`,
      signUnsubscribeToken(Buffer.alloc(32, 7), { tenantId: h.tenantId, recipientId: 'user-1', channel: 'email', purpose: 'marketing' }),
      payload,
      'not-a-token',
      `${payload}.${sig}.extra`,
    ];
    for (const t of forged) {
      for (const method of ['POST', 'GET'] as const) {
        const r = method === 'POST' ? await oneClick(`/v1/unsubscribe/${t}`) : await h.app.inject({ method, url: `/v1/unsubscribe/${t}` });
        expect(r.statusCode, `${method} ${t}`).toBe(404);
        expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(r.json()).toMatchObject({ code: 'unsubscribe_link_invalid', instance: '/v1/unsubscribe/{token}' });
      }
    }
    for (const id of ['user-1', 'user-2']) expect((await call('GET', `/v1/recipients/${id}/preferences`)).json().opt_outs).toEqual([]);
  });

  it('never writes the token to a log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const logger = pino({ level: 'trace' }, sink);
    const app = await buildApp({
      store: h.store,
      intake: new IntakeService({ store: h.store, accounts: h.config.provider_accounts, clock: h.clock, logger: silentLogger }),
      replay: new ReplayService({ store: h.store, clock: h.clock }),
      clock: h.clock,
      logger,
    });
    try {
      const url = await link();
      const token = url.split('/').pop()!;
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(200);
      expect(
        (await app.inject({ method: 'POST', url, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } }))
          .statusCode,
      ).toBe(200);
      expect((await app.inject({ method: 'POST', url: `/v1/unsubscribe/${token.slice(0, -1)}x` })).statusCode).toBe(404);
      const out = lines.join('');
      expect(out).toContain('/v1/unsubscribe/[token]');
      expect(out).not.toContain(token.split('.')[0]!);
      expect(out).not.toContain(token.split('.')[1]!.slice(0, 20));
    } finally {
      await app.close();
    }
  });

  it('is published in OpenAPI without security; the authenticated routes with it', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/v1/unsubscribe/{token}'].post.security).toEqual([]);
    expect(doc.paths['/v1/unsubscribe/{token}'].get.security).toEqual([]);
    expect(doc.paths['/v1/recipients/{id}/preferences'].put.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(doc.paths['/v1/recipients/{id}/preferences'].get).toBeDefined();
    for (const m of ['get', 'post', 'delete']) expect(doc.paths['/v1/suppressions'][m], m).toBeDefined();
  });
});
