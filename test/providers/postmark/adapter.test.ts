/**
 * The Postmark adapter against its fake (test/providers/fakes/postmark.ts) over real HTTP:
 * the wire (token, stream by purpose, metadata), what the fake refuses, every class of answer
 * and fault, and the look-up by metadata that settles an `unknown`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Purpose } from '../../../src/domain/index.js';
import { createPostmarkAdapter } from '../../../src/providers/postmark/adapter.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../../../src/providers/provider.js';
import { emailOtpRequest, expectPrivate } from '../../helpers/email-adapter-fixtures.js';
import { startPostmarkFake, type PostmarkFake } from '../fakes/postmark.js';

const TOKEN = 'pm-server-canary-3f9e1c';
const DESTINATION = 'canary.wren+7f3a@example.test';

let fake: PostmarkFake;
const adapters: ProviderAdapter[] = [];

beforeEach(async () => {
  fake = await startPostmarkFake({
    serverToken: TOKEN,
    inactive: ['gone@example.test'],
    streams: [
      { id: 'outbound', type: 'Transactional' },
      { id: 'news', type: 'Broadcasts' },
    ],
  });
});

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
  await fake.close();
});

function build(over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): ProviderAdapter {
  const adapter = createPostmarkAdapter({
    id: 'postmark-email',
    kind: 'postmark',
    channel: 'email',
    base_url: fake.url,
    settings: { server_token: TOKEN, from: 'Herald <noreply@herald.test>', broadcast_stream: 'news', ...settings },
    rate_per_second: 10,
    burst: 10,
    ambiguity_policy: 'wait_for_evidence',
    timeout_ms: 5_000,
    ...over,
  });
  adapters.push(adapter);
  return adapter;
}

function request(over: Partial<SubmitRequest> = {}): SubmitRequest {
  return emailOtpRequest('postmark', DESTINATION, over);
}

describe('postmark adapter: the wire', () => {
  it("posts with the server token, JSON headers, metadata, the purpose as Tag and the worker's headers", async () => {
    const req = request({
      content: { subject: 'Code', text: 'Hi', html: '<p>Hi</p>', reply_to: 'Desk <desk@herald.test>', headers: { 'X-Entity-Ref-ID': 'abc' } },
    });
    const outcome = await build().submit(req);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: fake.messages[0]?.MessageID });
    const [sent] = fake.received;
    expect(sent?.token).toBe(TOKEN);
    expect(sent?.accept).toBe('application/json');
    expect(sent?.json).toEqual({
      From: 'Herald <noreply@herald.test>',
      To: DESTINATION,
      Subject: 'Code',
      TextBody: 'Hi',
      HtmlBody: '<p>Hi</p>',
      ReplyTo: 'Desk <desk@herald.test>',
      Headers: [{ Name: 'X-Entity-Ref-ID', Value: 'abc' }],
      Tag: 'otp',
      Metadata: { herald_reference: req.idempotencyKey },
      MessageStream: 'outbound',
    });
  });

  it('chooses the stream by purpose: marketing to the broadcast stream, the rest transactional', async () => {
    const adapter = build();
    const purposes: Purpose[] = ['otp', 'transactional', 'conversational', 'alert', 'marketing'];
    for (const purpose of purposes) await adapter.submit(request({ purpose }));
    expect(fake.messages.map((m) => [m.Tag, m.MessageStream])).toEqual([
      ['otp', 'outbound'],
      ['transactional', 'outbound'],
      ['conversational', 'outbound'],
      ['alert', 'outbound'],
      ['marketing', 'news'],
    ]);
  });

  it('declares look-up and no dedupe by key', () => {
    const adapter = build();
    expect(adapter.capabilities).toEqual({ lookup: true, dedupesByKey: false });
    expect(typeof adapter.lookup).toBe('function');
    const off = build({ capabilities: { lookup: false } });
    expect(off.lookup).toBeUndefined();
  });
});

describe('postmark adapter: what Postmark refuses', () => {
  it('a wrong token: 401 ErrorCode 10, permanent unauthorized', async () => {
    const outcome = await build({}, { server_token: 'wrong' }).submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'bad_or_missing_api_token' });
    expect(fake.received[0]?.answered).toBe(401);
    expect(fake.messages).toEqual([]);
    expectPrivate(outcome, [DESTINATION, TOKEN]);
  });

  it('an illegal recipient: 422 ErrorCode 300', async () => {
    expect(await build().submit(request({ destination: 'not an address' }))).toMatchObject({ kind: 'permanent', code: 'invalid_email_request' });
  });

  it('a sender with no signature or verified domain: 422 ErrorCode 400', async () => {
    expect(await build({}, { from: 'noreply@elsewhere.test' }).submit(request())).toMatchObject({
      kind: 'permanent',
      reason: 'unauthorized',
      code: 'sender_signature_not_found',
    });
  });

  it('an inactive recipient: 422 ErrorCode 406, permanent unsubscribed_at_provider', async () => {
    expect(await build().submit(request({ destination: 'gone@example.test' }))).toMatchObject({
      kind: 'permanent',
      reason: 'unsubscribed_at_provider',
      code: 'inactive_recipient',
    });
  });

  it('a stream the server does not have: refused (422)', async () => {
    expect(await build({}, { broadcast_stream: 'nope' }).submit(request({ purpose: 'marketing' }))).toMatchObject({ kind: 'permanent' });
    expect(fake.received[0]?.answered).toBe(422);
  });
});

describe('postmark adapter: answers and faults', () => {
  it('429: throttled, no hint invented', async () => {
    fake.script({ kind: 'throttled' });
    expect(await build().submit(request())).toMatchObject({ kind: 'throttled', code: 'rate_limit_exceeded', retryAfterMs: null });
  });

  it('503 planned outage: retryable; 405 out of credits: retryable', async () => {
    fake.script({ kind: 'unavailable' }, { kind: 'error_code', code: 405 });
    const adapter = build();
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'service_unavailable' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'not_allowed_to_send' });
    expect(fake.messages).toEqual([]);
  });

  it('500: unknown (the message may have been kept)', async () => {
    fake.script({ kind: 'server_error', created: true });
    expect(await build().submit(request())).toMatchObject({ kind: 'unknown', code: 'server_error' });
  });

  it('nothing listens: retryable; sendBy passed: retryable, nothing written', async () => {
    expect(await build().submit(request({ sendBy: Date.now() - 1 }))).toMatchObject({ kind: 'retryable', code: 'aborted_before_send' });
    await fake.refuse();
    expect(await build().submit(request())).toMatchObject({ kind: 'retryable', code: 'connect_failed' });
    expect(fake.received).toEqual([]);
  });

  it('no answer within the timeout, a reset after the write, a garbled answer: unknown', async () => {
    fake.script({ kind: 'hang' }, { kind: 'accept_then_reset' }, { kind: 'malformed', bytes: `HTTP/1.1 2OO ${DESTINATION} ${TOKEN}\r\n\r\n` });
    const adapter = build({ timeout_ms: 200 });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'unknown', code: 'timeout' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'unknown' });
    const garbled = await adapter.submit(request());
    expect(garbled).toMatchObject({ kind: 'unknown' });
    expectPrivate(garbled, [DESTINATION, TOKEN]);
  });
});

describe('postmark adapter: look-up by metadata', () => {
  it('a lost answer: the look-up finds the message by its reference, in whichever stream it went to', async () => {
    const adapter = build({ timeout_ms: 200 });
    const req = request({ purpose: 'marketing' });
    fake.script({ kind: 'accept_then_hang' });
    expect(await adapter.submit(req)).toMatchObject({ kind: 'unknown' });
    expect(await adapter.lookup!({ idempotencyKey: req.idempotencyKey, channel: 'email' })).toEqual({
      kind: 'found',
      providerMessageId: fake.messages[0]?.MessageID,
    });
    // One query per stream, each with count, offset, the stream and the metadata filter.
    const queries = fake.lookups.map((q) => Object.fromEntries(q));
    expect(queries).toEqual(
      expect.arrayContaining([
        { count: '10', offset: '0', messagestream: 'outbound', metadata_herald_reference: req.idempotencyKey },
        { count: '10', offset: '0', messagestream: 'news', metadata_herald_reference: req.idempotencyKey },
      ]),
    );
  });

  it('a 500 that lost the message: authoritatively not found', async () => {
    const adapter = build();
    const req = request();
    fake.script({ kind: 'server_error', created: false });
    expect(await adapter.submit(req)).toMatchObject({ kind: 'unknown' });
    expect(await adapter.lookup!({ idempotencyKey: req.idempotencyKey, channel: 'email' })).toEqual({ kind: 'not_found' });
  });

  it('another message with another reference is not this one', async () => {
    const adapter = build();
    await adapter.submit(request());
    expect(await adapter.lookup!({ idempotencyKey: 'hk_someoneElse', channel: 'email' })).toEqual({ kind: 'not_found' });
  });

  it('no authoritative answer from one stream: error, never not_found', async () => {
    const adapter = build({ timeout_ms: 200 });
    fake.scriptLookup({ kind: 'answer' }, { kind: 'error', status: 500 });
    expect(await adapter.lookup!({ idempotencyKey: 'hk_x', channel: 'email' })).toMatchObject({ kind: 'error', code: 'server_error' });
    fake.scriptLookup({ kind: 'hang' }, { kind: 'answer' });
    expect(await adapter.lookup!({ idempotencyKey: 'hk_x', channel: 'email' })).toMatchObject({ kind: 'error', code: 'timeout' });
    fake.scriptLookup({ kind: 'malformed_list' }, { kind: 'answer' });
    expect(await adapter.lookup!({ idempotencyKey: 'hk_x', channel: 'email' })).toMatchObject({ kind: 'error', code: 'malformed_response' });
  });

  it('a wrong token: error, not not_found', async () => {
    expect(await build({}, { server_token: 'wrong' }).lookup!({ idempotencyKey: 'hk_x', channel: 'email' })).toMatchObject({
      kind: 'error',
      code: 'provider_auth_failed',
    });
  });
});
