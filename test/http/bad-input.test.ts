/**
 * Every malformed POST /v1/notifications gets a 4xx RFC 9457 problem document with a stable
 * code naming the bad field, and nothing is written: no notification, no delivery, and the
 * Idempotency-Key it carried stays free for the corrected request.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandboxAccounts } from '../../src/config/config.js';
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js';
import { MAX_TTL_SECONDS } from '../../src/intake/notification-request.js';
import { createHarness, otpBody, T0, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

interface RawRequest {
  /** A JS value is sent as JSON; a string is sent verbatim. */
  payload?: unknown;
  contentType?: string | null;
  headers?: Record<string, string>;
}

async function post(req: RawRequest): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${h.apiKey}`, ...req.headers };
  if (req.contentType) headers['content-type'] = req.contentType;
  const payload = req.payload === undefined || typeof req.payload === 'string' ? req.payload : JSON.stringify(req.payload);
  return h.app.inject({
    method: 'POST',
    url: '/v1/notifications',
    headers,
    ...(payload === undefined ? {} : { payload: payload }),
  });
}

/** Asserts an RFC 9457 problem document with this status and code; returns its body. */
function expectProblem(r: LightMyRequestResponse, status: number, code: ErrorCode): any {
  expect(r.statusCode, r.body).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = r.json();
  expect(body).toMatchObject({ type: expect.stringContaining(code), title: ERROR_CODES[code].title, status, code });
  expect(typeof body.detail).toBe('string');
  expect(body.detail.length).toBeGreaterThan(0);
  return body;
}

async function expectNothingStored(): Promise<void> {
  const counts = await h.store.countByState();
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
  const list = await h.get('/v1/deliveries');
  expect(list.status).toBe(200);
  expect(list.json.items).toEqual([]);
}

const without = (key: string, over: Record<string, unknown> = {}) => {
  const b: Record<string, unknown> = otpBody(over);
  delete b[key];
  return b;
};

interface Case {
  name: string;
  req: RawRequest;
  status: number;
  code: ErrorCode;
  /** The field errors[] must name; omitted for errors about the whole body. */
  field?: string;
}

const json = 'application/json';
const emailOnly = (email: string) => otpBody({ channels: ['email'], recipient: { id: 'user-1', email } });
const smsOnly = (phone: unknown) => otpBody({ recipient: { id: 'user-1', phone } });

const CASES: Case[] = [
  { name: 'phone without +country code', req: { payload: smsOnly('4155550123') }, status: 400, code: 'validation_failed', field: 'recipient.phone' },
  { name: 'phone too short', req: { payload: smsOnly('+1415') }, status: 400, code: 'validation_failed', field: 'recipient.phone' },
  {
    name: 'phone with a nonexistent country code',
    req: { payload: smsOnly('+999999999999') },
    status: 400,
    code: 'validation_failed',
    field: 'recipient.phone',
  },
  {
    // Valid by the country's general pattern (the default metadata's rule until issue 24), in no range its plan assigns.
    name: 'phone in an unassigned range',
    req: { payload: smsOnly('+37123011426') },
    status: 400,
    code: 'validation_failed',
    field: 'recipient.phone',
  },
  { name: 'phone with letters', req: { payload: smsOnly('+1415555CALL') }, status: 400, code: 'validation_failed', field: 'recipient.phone' },
  { name: 'phone as a number', req: { payload: smsOnly(14155550123) }, status: 400, code: 'validation_failed', field: 'recipient.phone' },
  { name: 'email with nothing after @', req: { payload: emailOnly('ada@') }, status: 400, code: 'validation_failed', field: 'recipient.email' },
  { name: 'email without @', req: { payload: emailOnly('ada') }, status: 400, code: 'validation_failed', field: 'recipient.email' },
  { name: 'email with a dotless domain', req: { payload: emailOnly('ada@example') }, status: 400, code: 'validation_failed', field: 'recipient.email' },
  { name: 'unknown channel', req: { payload: otpBody({ channels: ['fax'] }) }, status: 400, code: 'validation_failed', field: 'channels[0]' },
  { name: 'empty channels', req: { payload: otpBody({ channels: [] }) }, status: 400, code: 'validation_failed', field: 'channels' },
  { name: 'duplicate channels', req: { payload: otpBody({ channels: ['sms', 'sms'] }) }, status: 400, code: 'validation_failed', field: 'channels' },
  { name: 'channels as a string', req: { payload: otpBody({ channels: 'sms' }) }, status: 400, code: 'validation_failed', field: 'channels' },
  { name: 'unknown purpose', req: { payload: otpBody({ purpose: 'newsletter' }) }, status: 400, code: 'validation_failed', field: 'purpose' },
  { name: 'missing purpose', req: { payload: without('purpose') }, status: 400, code: 'validation_failed', field: 'purpose' },
  { name: 'missing recipient', req: { payload: without('recipient') }, status: 400, code: 'validation_failed', field: 'recipient' },
  {
    name: 'missing recipient.id',
    req: { payload: otpBody({ recipient: { phone: '+14155550123' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'recipient.id',
  },
  {
    name: 'expires_at in the past',
    req: { payload: without('ttl_seconds', { expires_at: new Date(T0 - 1).toISOString() }) },
    status: 400,
    code: 'validation_failed',
    field: 'expires_at',
  },
  {
    name: 'expires_at exactly now',
    req: { payload: without('ttl_seconds', { expires_at: new Date(T0).toISOString() }) },
    status: 400,
    code: 'validation_failed',
    field: 'expires_at',
  },
  {
    // The SMS channel needs 1 s to arrive (src/domain/arrival.ts): a code valid for 900 ms could never be sent.
    name: 'expires_at sooner than the channel can arrive',
    req: { payload: without('ttl_seconds', { expires_at: new Date(T0 + 900).toISOString() }) },
    status: 422,
    code: 'expires_before_arrival',
    field: 'expires_at',
  },
  {
    name: 'ttl_seconds no longer than the channel needs to arrive',
    req: { payload: otpBody({ ttl_seconds: 1 }) },
    status: 422,
    code: 'expires_before_arrival',
    field: 'ttl_seconds',
  },
  {
    name: 'expires_at more than 30 days ahead',
    req: { payload: without('ttl_seconds', { expires_at: new Date(T0 + MAX_TTL_SECONDS * 1000 + 1000).toISOString() }) },
    status: 400,
    code: 'validation_failed',
    field: 'expires_at',
  },
  {
    name: 'expires_at not a date-time',
    req: { payload: without('ttl_seconds', { expires_at: 'tomorrow' }) },
    status: 400,
    code: 'validation_failed',
    field: 'expires_at',
  },
  {
    name: 'expires_at and ttl_seconds both',
    req: { payload: otpBody({ expires_at: new Date(T0 + 60_000).toISOString(), ttl_seconds: 60 }) },
    status: 400,
    code: 'validation_failed',
    field: 'expires_at',
  },
  { name: 'ttl_seconds 0', req: { payload: otpBody({ ttl_seconds: 0 }) }, status: 400, code: 'validation_failed', field: 'ttl_seconds' },
  {
    name: 'ttl_seconds above 30 days',
    req: { payload: otpBody({ ttl_seconds: MAX_TTL_SECONDS + 1 }) },
    status: 400,
    code: 'validation_failed',
    field: 'ttl_seconds',
  },
  { name: 'ttl_seconds fractional', req: { payload: otpBody({ ttl_seconds: 1.5 }) }, status: 400, code: 'validation_failed', field: 'ttl_seconds' },
  { name: 'ttl_seconds as a string', req: { payload: otpBody({ ttl_seconds: '300' }) }, status: 400, code: 'validation_failed', field: 'ttl_seconds' },
  {
    name: 'generation as a string (no coercion)',
    req: { payload: otpBody({ group: { key: 'login-1', generation: '2' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'group.generation',
  },
  {
    name: 'generation 0',
    req: { payload: otpBody({ group: { key: 'login-1', generation: 0 } }) },
    status: 400,
    code: 'validation_failed',
    field: 'group.generation',
  },
  {
    name: 'body over 256 KiB',
    req: { payload: otpBody({ content: { text: 'x'.repeat(256 * 1024), subject: 's' } }) },
    status: 413,
    code: 'payload_too_large',
  },
  { name: 'invalid JSON', req: { payload: '{"recipient": {"id": "user-1"', contentType: json }, status: 400, code: 'invalid_json' },
  { name: 'trailing garbage after JSON', req: { payload: `${JSON.stringify(otpBody())}}`, contentType: json }, status: 400, code: 'invalid_json' },
  {
    name: 'Content-Length shorter than the body',
    req: { payload: JSON.stringify(otpBody()), contentType: json, headers: { 'content-length': '10' } },
    status: 400,
    code: 'invalid_json',
  },
  { name: 'empty JSON body', req: { payload: '', contentType: json }, status: 400, code: 'invalid_json' },
  { name: 'no body at all', req: {}, status: 400, code: 'validation_failed', field: '(body)' },
  { name: 'JSON array instead of object', req: { payload: '[]', contentType: json }, status: 400, code: 'validation_failed', field: '(body)' },
  { name: 'JSON null', req: { payload: 'null', contentType: json }, status: 400, code: 'validation_failed', field: '(body)' },
  { name: 'text/plain body', req: { payload: JSON.stringify(otpBody()), contentType: 'text/plain' }, status: 415, code: 'unsupported_media_type' },
  { name: 'form-encoded body', req: { payload: 'purpose=otp', contentType: 'application/x-www-form-urlencoded' }, status: 415, code: 'unsupported_media_type' },
  { name: 'unknown top-level field', req: { payload: otpBody({ priority: 'high' }) }, status: 400, code: 'validation_failed', field: 'priority' },
  {
    name: 'unknown nested field',
    req: { payload: otpBody({ recipient: { id: 'user-1', phone: '+14155550123', nickname: 'ada' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'recipient.nickname',
  },
  {
    name: 'unknown field in content',
    req: { payload: otpBody({ content: { text: 'hi', footer: 'bye' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'content.footer',
  },
  {
    name: 'email channel without recipient.email',
    req: { payload: otpBody({ channels: ['email'], recipient: { id: 'user-1', phone: '+14155550123' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'recipient.email',
  },
  {
    name: 'sms channel without recipient.phone',
    req: { payload: otpBody({ recipient: { id: 'user-1', email: 'ada@example.com' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'recipient.phone',
  },
  {
    name: 'push channel without recipient.push_token',
    req: { payload: otpBody({ channels: ['push'] }) },
    status: 400,
    code: 'validation_failed',
    field: 'recipient.push_token',
  },
  {
    name: 'email channel without content.subject',
    req: { payload: otpBody({ channels: ['email'], content: { text: 'Your code is 123456' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'content.subject',
  },
  {
    name: 'content.from that is not a mailbox',
    req: { payload: otpBody({ channels: ['email'], content: { subject: 'Hi', text: 'Hi', from: 'Ada ada@example.com' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'content.from',
  },
  {
    name: 'content.from with a header break in it',
    req: { payload: otpBody({ channels: ['email'], content: { subject: 'Hi', text: 'Hi', from: 'Ada <ada@example.com>\r\nBcc: x@example.com' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'content.from',
  },
  {
    name: 'content.reply_to that is not an address',
    req: { payload: otpBody({ channels: ['email'], content: { subject: 'Hi', text: 'Hi', reply_to: 'support' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'content.reply_to',
  },
  {
    name: 'content.reply_to without the email channel',
    req: { payload: otpBody({ content: { text: 'Code 123456', reply_to: 'support@example.com' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'content.reply_to',
  },
  {
    name: 'provider_accounts for a channel not in channels',
    req: { payload: otpBody({ provider_accounts: { email: 'sandbox-email' } }) },
    status: 400,
    code: 'validation_failed',
    field: 'provider_accounts.email',
  },
  {
    name: 'provider_accounts naming no account',
    req: { payload: otpBody({ provider_accounts: { sms: 'sms-nowhere' } }) },
    status: 422,
    code: 'no_provider_account',
    field: 'provider_accounts.sms',
  },
  {
    name: 'provider_accounts naming an account of another channel',
    req: { payload: otpBody({ provider_accounts: { sms: 'sandbox-email' } }) },
    status: 422,
    code: 'no_provider_account',
    field: 'provider_accounts.sms',
  },
  { name: 'missing content', req: { payload: without('content') }, status: 400, code: 'validation_failed', field: 'content' },
  { name: 'content without text', req: { payload: otpBody({ content: { subject: 'Hi' } }) }, status: 400, code: 'validation_failed', field: 'content.text' },
  {
    name: 'a template the tenant does not have',
    req: { payload: without('content', { template: { id: 'otp-code', version: 1, data: { code: '123456' } } }) },
    status: 422,
    code: 'template_unknown',
    field: 'template.id',
  },
  {
    name: 'a template and content together',
    req: { payload: otpBody({ template: { id: 'otp-code', data: {} } }) },
    status: 400,
    code: 'validation_failed',
    field: 'template',
  },
  {
    name: 'metadata over 16 KiB',
    req: { payload: otpBody({ metadata: { blob: 'x'.repeat(17 * 1024) } }) },
    status: 400,
    code: 'validation_failed',
    field: 'metadata',
  },
  {
    name: 'metadata with more than 50 properties',
    req: { payload: otpBody({ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }) },
    status: 400,
    code: 'validation_failed',
    field: 'metadata',
  },
];

describe('POST /v1/notifications refuses malformed requests', () => {
  it.each(CASES)('$name → $status $code', async (c) => {
    const key = 'bad-input-key';
    const r = await post({
      contentType: c.req.payload === undefined || typeof c.req.payload === 'string' ? null : json,
      ...c.req,
      headers: { ...c.req.headers, 'idempotency-key': key },
    });
    const problem = expectProblem(r, c.status, c.code);
    if (c.field !== undefined) {
      expect(problem.errors.map((e: { field: string }) => e.field)).toContain(c.field);
      for (const e of problem.errors) expect(typeof e.message).toBe('string');
    }
    await expectNothingStored();

    // The refusal did not take the key: the corrected request with the same key is processed.
    const ok = await h.send(otpBody(), { 'idempotency-key': key });
    expect(ok.status).toBe(202);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a well-formed request at the boundaries is accepted (the cases above can fail)', async () => {
    const r = await h.send(
      otpBody({
        channels: ['sms', 'email'],
        ttl_seconds: MAX_TTL_SECONDS,
        group: { key: 'login-1', generation: 2147483647 },
        metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])),
      }),
    );
    expect(r.status).toBe(202);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const counts = await h.store.countByState();
    expect(counts.ready).toBe(2);
  });

  it('a body just under 256 KiB is not refused for its size', async () => {
    // 196 608 characters of html (its maxLength): well inside the 256 KiB body limit.
    const r = await h.send(otpBody({ channels: ['email'], content: { subject: 'Hi', text: 'Hi', html: 'x'.repeat(196_608) } }));
    expect(r.status).toBe(202);
  });
});

describe("an e-mail over its account's HTML limit", () => {
  it('is 422 content_too_large naming the part, the limit and the account; nothing is stored, the key stays free', async () => {
    await h.close();
    h = await createHarness({ account: (a) => (a.channel === 'email' ? { ...a, max_html_bytes: 2048 } : a) });
    // 2,049 bytes: one over (the multi-byte character counts as its UTF-8 bytes, not as one).
    const html = `<p>${'x'.repeat(2040)}é</p>`;
    expect(Buffer.byteLength(html)).toBe(2049);
    const r = await post({
      payload: otpBody({ channels: ['email'], content: { subject: 'Hi', text: 'Hi', html } }),
      contentType: json,
      headers: { 'idempotency-key': 'k-html' },
    });
    const problem = expectProblem(r, 422, 'content_too_large');
    expect(problem.errors).toEqual([{ field: 'content.html', message: expect.stringContaining('2048 bytes') }]);
    expect(problem.detail).toContain('sandbox-email');
    await expectNothingStored();
    const ok = await h.send(otpBody({ channels: ['email'], content: { subject: 'Hi', text: 'Hi', html: html.slice(0, -5) + '</p>' } }), {
      'idempotency-key': 'k-html',
    });
    expect(ok.status).toBe(202);
  });

  it('accepts from and reply_to mailboxes with display names, and stores them with the content', async () => {
    const r = await h.send(
      otpBody({
        channels: ['email'],
        content: { subject: 'Hi', text: 'Hi', from: '"Ada, Countess" <ada@example.com>', reply_to: 'Support <help@example.com>' },
      }),
    );
    expect(r.status).toBe(202);
    const [claimed] = await h.store.claimBatch({ providerAccount: 'sandbox-email', workerId: 'w-test', now: h.clock.now(), leaseMs: 30_000, limit: 10 });
    expect(claimed!.content).toMatchObject({ from: '"Ada, Countess" <ada@example.com>', reply_to: 'Support <help@example.com>' });
  });
});

describe('a channel without a provider account', () => {
  it('is 422 no_provider_account naming the channel, and nothing is stored', async () => {
    await h.close();
    // Only e-mail and SMS accounts: push has nowhere to go.
    const accounts = sandboxAccounts('http://127.0.0.1:9').filter((a) => a.channel !== 'push');
    h = await createHarness({ intake: { accounts } });
    const r = await post({
      payload: otpBody({ channels: ['sms', 'push'], recipient: { id: 'user-1', phone: '+14155550123', push_token: 'tok-1' } }),
      contentType: json,
      headers: { 'idempotency-key': 'k-push' },
    });
    const problem = expectProblem(r, 422, 'no_provider_account');
    expect(problem.errors).toEqual([{ field: 'channels', message: expect.stringContaining('push') }]);
    await expectNothingStored();
    // The key is still free.
    expect((await h.send(otpBody(), { 'idempotency-key': 'k-push' })).status).toBe(202);
  });
});
