/**
 * The Twilio adapter against its fake over real HTTP: what goes on the wire (Basic auth, the
 * form fields, ValidityPeriod from expiresAt, the StatusCallback URL with the delivery's key),
 * what Twilio's refusals become, the status callbacks the fake signs, the settings checked at
 * load, and `herald doctor`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../../src/config/config.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest, SyncCallbackVerifier } from '../../../src/providers/provider.js';
import { createTwilioAdapter } from '../../../src/providers/twilio/adapter.js';
import { twilioKind } from '../../../src/providers/twilio/kind.js';
import { startTwilioFake, type TwilioFake } from '../fakes/twilio.js';
import { TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM, twilioAccount } from './subject.js';

const CALLBACK_URL = 'https://herald.example.com/v1/callbacks/twilio-sms';
const API_KEY = { sid: 'SK0123456789abcdef0123456789abcdef', secret: 'canary-api-key-secret-4b1d' };
const SERVICE = 'MG0123456789abcdef0123456789abcdef';

let fake: TwilioFake;
const adapters: ProviderAdapter[] = [];

beforeEach(async () => {
  fake = await startTwilioFake({
    accountSid: TWILIO_ACCOUNT_SID,
    authToken: TWILIO_AUTH_TOKEN,
    apiKey: API_KEY,
    numbers: [TWILIO_FROM],
    messagingServices: [SERVICE],
  });
});
afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
  await fake.close();
});

function adapter(over: Partial<ProviderAccountConfig> = {}, callbackUrl: string | null = CALLBACK_URL): ProviderAdapter {
  const a = createTwilioAdapter(twilioAccount(fake.url, over), { callbackUrl });
  adapters.push(a);
  return a;
}

let n = 0;
function request(over: Partial<SubmitRequest> = {}): SubmitRequest {
  n += 1;
  const expiresAt = Date.now() + 300_000;
  return {
    deliveryId: `dlv-${n}`,
    idempotencyKey: `hk_twilio-test-${n}`,
    channel: 'sms',
    purpose: 'otp',
    destination: '+15550100001',
    content: { text: 'Your code is 123456' },
    expiresAt,
    sendBy: expiresAt,
    ...over,
  };
}

describe('what goes on the wire', () => {
  it('a form POST with Basic auth, To, Body, From, ValidityPeriod from expiresAt, and the StatusCallback with the key', async () => {
    const req = request({ expiresAt: Date.now() + 300_000 });
    const outcome = await adapter({ timeout_ms: 10_000 }).submit(req);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: fake.messages[0]!.sid });
    const [message] = fake.messages;
    expect(message!.user).toBe(TWILIO_ACCOUNT_SID);
    expect(message!.params).toMatchObject({ To: '+15550100001', Body: 'Your code is 123456', From: TWILIO_FROM });
    expect(message!.params.MessagingServiceSid).toBeUndefined();
    // 300 s left, less the 10 s the request may take to arrive, rounded down: never after expiry.
    const validity = Number(message!.params.ValidityPeriod);
    expect(validity).toBeLessThanOrEqual(290);
    expect(validity).toBeGreaterThanOrEqual(285);
    expect(message!.params.StatusCallback).toBe(`${CALLBACK_URL}?ref=${req.idempotencyKey}`);
  });

  it('ValidityPeriod is capped at 36,000 s for a message that lives longer', async () => {
    await adapter().submit(request({ expiresAt: Date.now() + 3 * 86_400_000 }));
    expect(fake.messages[0]!.params.ValidityPeriod).toBe('36000');
  });

  it('less than Twilio’s 1 s minimum left: nothing is sent, retryable (the next attempt falls after expiry)', async () => {
    const outcome = await adapter({ timeout_ms: 2_000 }).submit(request({ expiresAt: Date.now() + 2_500 }));
    expect(outcome).toMatchObject({ kind: 'retryable', code: 'expires_too_soon' });
    expect(await fake.received()).toEqual([]);
  });

  it('no public URL: no StatusCallback', async () => {
    await adapter({}, null).submit(request());
    expect(fake.messages[0]!.params.StatusCallback).toBeUndefined();
  });

  it('a Messaging Service picks the sender: MessagingServiceSid, no From', async () => {
    const outcome = await adapter({ settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: TWILIO_AUTH_TOKEN, messaging_service_sid: SERVICE } }).submit(
      request(),
    );
    expect(outcome.kind).toBe('accepted');
    expect(fake.messages[0]!.params).toMatchObject({ MessagingServiceSid: SERVICE });
    expect(fake.messages[0]!.params.From).toBeUndefined();
  });

  it('an API key authenticates as its SID; without an Auth Token there is nothing to verify callbacks with, so no StatusCallback', async () => {
    const a = adapter({
      settings: { account_sid: TWILIO_ACCOUNT_SID, auth: 'api_key', api_key_sid: API_KEY.sid, api_key_secret: API_KEY.secret, from: TWILIO_FROM },
    });
    expect((await a.submit(request())).kind).toBe('accepted');
    expect(fake.messages[0]!.user).toBe(API_KEY.sid);
    expect(fake.messages[0]!.params.StatusCallback).toBeUndefined();
    expect(a.callbacks).toBeUndefined();
  });

  it('the same delivery sent twice is two messages: Twilio has no key (why unknowns wait for evidence)', async () => {
    const a = adapter();
    const req = request();
    await a.submit(req);
    await a.submit(req);
    expect(fake.messages).toHaveLength(2);
    expect(a.capabilities).toEqual({ lookup: false, dedupesByKey: false });
    expect('lookup' in a).toBe(false);
  });
});

describe('what Twilio refuses', () => {
  it('a wrong Auth Token: 401 20003, permanent unauthorized', async () => {
    const outcome = await adapter({ settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: 'not-the-token', from: TWILIO_FROM } }).submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'twilio_20003_authentication' });
  });

  it('a number that is not E.164: 21211, permanent invalid_destination, the number not quoted', async () => {
    const outcome = await adapter().submit(request({ destination: '5550100001' }));
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'invalid_destination' });
    expect(JSON.stringify(outcome)).not.toContain('5550100001');
  });

  it('a From the account does not own: 21606, permanent', async () => {
    const outcome = await adapter({ settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: TWILIO_AUTH_TOKEN, from: '+15005550009' } }).submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', code: 'twilio_21606_invalid_from' });
  });

  it('a body over 1,600 characters: 21617, content_rejected', async () => {
    const outcome = await adapter().submit(request({ content: { text: 'x'.repeat(1601) } }));
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'content_rejected' });
  });
});

describe('status callbacks', () => {
  it('a signed callback verifies and carries the message SID, the status and the delivery key from the URL', async () => {
    const a = adapter();
    const req = request();
    const sent = await a.submit(req);
    const sid = fake.messages[0]!.sid;
    expect(sent).toEqual({ kind: 'accepted', providerMessageId: sid });
    const parse = (a.callbacks as SyncCallbackVerifier).verify(fake.statusCallback(sid, 'delivered'), Date.now());
    expect(parse).toEqual({
      ok: true,
      events: [{ eventId: `${sid}:delivered`, status: 'delivered', providerMessageId: sid, reference: req.idempotencyKey, occurredAt: null, suppress: null }],
    });
  });

  it('statuses map onto the lattice; the error code is part of the event id', async () => {
    const a = adapter();
    await a.submit(request());
    const sid = fake.messages[0]!.sid;
    const status = (s: string, errorCode?: string) => {
      const parse = (a.callbacks as SyncCallbackVerifier).verify(fake.statusCallback(sid, s, errorCode === undefined ? {} : { errorCode }), Date.now());
      return parse.ok ? parse.events.map((e) => [e.status, e.eventId]) : parse;
    };
    expect(status('sending')).toEqual([['accepted', `${sid}:sending`]]);
    expect(status('sent')).toEqual([['sent', `${sid}:sent`]]);
    expect(status('undelivered', '30003')).toEqual([['failed', `${sid}:undelivered:30003`]]);
    expect(status('failed', '30008')).toEqual([['failed', `${sid}:failed:30008`]]);
    expect(status('read')).toEqual([['read', `${sid}:read`]]);
    expect(status('partially_delivered')).toEqual([]);
  });

  it('tampered, signed with another token, unsigned, or posted to another URL: 401', async () => {
    const a = adapter();
    await a.submit(request());
    const sid = fake.messages[0]!.sid;
    const good = fake.statusCallback(sid, 'delivered');
    const tampered = { ...good, rawBody: Buffer.from(good.rawBody.toString().replace('delivered', 'undelivered')) };
    expect((a.callbacks as SyncCallbackVerifier).verify(tampered, Date.now())).toMatchObject({ ok: false, status: 401 });
    expect((a.callbacks as SyncCallbackVerifier).verify(fake.statusCallback(sid, 'delivered', { authToken: 'another-token' }), Date.now())).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(
      (a.callbacks as SyncCallbackVerifier).verify({ ...good, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, Date.now()),
    ).toMatchObject({ ok: false, status: 401 });
    // The ref is signed with the URL: pointing a callback at another delivery breaks it.
    expect((a.callbacks as SyncCallbackVerifier).verify({ ...good, url: good.url.replace(/ref=[^&]+/, 'ref=hk_other') }, Date.now())).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('a replay is the same event id (the store dedupes it); a previous Auth Token listed in callback_secrets still verifies', async () => {
    const a = adapter({ callback_secrets: ['old-auth-token'] });
    await a.submit(request());
    const sid = fake.messages[0]!.sid;
    const first = (a.callbacks as SyncCallbackVerifier).verify(fake.statusCallback(sid, 'delivered'), Date.now());
    const again = (a.callbacks as SyncCallbackVerifier).verify(fake.statusCallback(sid, 'delivered'), Date.now() + 86_400_000);
    expect(again).toEqual(first);
    expect((a.callbacks as SyncCallbackVerifier).verify(fake.statusCallback(sid, 'delivered', { authToken: 'old-auth-token' }), Date.now()).ok).toBe(true);
  });
});

describe('settings, checked at load', () => {
  const load = (settings: Record<string, unknown>, over: Record<string, unknown> = {}) =>
    resolveConfig({ provider_accounts: [{ id: 'twilio-sms', kind: 'twilio', channel: 'sms', settings, ...over }] });

  it('the smallest account loads with the kind’s defaults', () => {
    const cfg = load({ account_sid: TWILIO_ACCOUNT_SID, auth_token: 'a-token', from: TWILIO_FROM });
    const [account] = cfg.provider_accounts;
    expect(account).toMatchObject({
      kind: 'twilio',
      rate_per_second: 1,
      burst: 1,
      ambiguity_policy: 'wait_for_evidence',
      capabilities: { lookup: false, dedupes_by_key: false },
    });
  });

  it.each([
    [{ account_sid: 'AC123', auth_token: 't', from: TWILIO_FROM }, 'account_sid'],
    [{ account_sid: TWILIO_ACCOUNT_SID, auth_token: 't', from: '+0123' }, 'settings.from'],
    [{ account_sid: TWILIO_ACCOUNT_SID, auth_token: 't', from: 'Twelve chars' }, 'settings.from'],
    [{ account_sid: TWILIO_ACCOUNT_SID, auth_token: 't' }, 'settings.from'],
    [{ account_sid: TWILIO_ACCOUNT_SID, from: TWILIO_FROM }, 'settings.auth_token'],
    [{ account_sid: TWILIO_ACCOUNT_SID, auth: 'api_key', api_key_secret: 's', from: TWILIO_FROM }, 'settings.api_key_sid'],
    [{ account_sid: TWILIO_ACCOUNT_SID, auth_token: 't', from: TWILIO_FROM, sender: 'x' }, 'sender'],
  ])('refuses %j naming %s', (settings, field) => {
    expect(() => load(settings)).toThrow(ConfigError);
    try {
      load(settings);
    } catch (err) {
      expect(`${(err as ConfigError).message} ${(err as ConfigError & { field?: string }).field ?? ''}`).toContain(field);
    }
  });

  it('refuses a declared dedupe by key or look-up, which Twilio does not have', () => {
    expect(() => load({ account_sid: TWILIO_ACCOUNT_SID, auth_token: 't', from: TWILIO_FROM }, { capabilities: { dedupes_by_key: true } })).toThrow(
      /idempotency key/,
    );
  });

  it('accepts an alphanumeric sender ID; describe shows no secret', () => {
    const cfg = load({ account_sid: TWILIO_ACCOUNT_SID, auth_token: 'canary-secret-token', from: 'Herald' });
    const shown = JSON.stringify(twilioKind.describe(cfg.provider_accounts[0]!));
    expect(shown).toContain('Herald');
    expect(shown).not.toContain('canary-secret-token');
  });
});

describe('herald doctor', () => {
  it('credentials accepted, account active, sender owned', async () => {
    const checks = await twilioKind.doctor(twilioAccount(fake.url), AbortSignal.timeout(5_000));
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['endpoint answers', true],
      ['credentials accepted', true],
      ['account active', true],
      ['sender owned', true],
    ]);
    expect(fake.messages).toEqual([]);
  });

  it('a wrong token, or a number the account does not own, is a failed finding', async () => {
    const wrong = await twilioKind.doctor(
      twilioAccount(fake.url, { settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: 'nope', from: TWILIO_FROM } }),
      AbortSignal.timeout(5_000),
    );
    expect(wrong.find((c) => c.name === 'credentials accepted')?.ok).toBe(false);
    const notOurs = await twilioKind.doctor(
      twilioAccount(fake.url, { settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: TWILIO_AUTH_TOKEN, from: '+15005550009' } }),
      AbortSignal.timeout(5_000),
    );
    expect(notOurs.find((c) => c.name === 'sender owned')?.ok).toBe(false);
    expect(JSON.stringify([wrong, notOurs])).not.toContain(TWILIO_AUTH_TOKEN);
  });
});
