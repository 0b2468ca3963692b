/**
 * The APNs adapter against its fake (test/providers/fakes/apns.ts): a real HTTP/2 server over TLS
 * that verifies the provider token with jose against the public half of the test's key and checks
 * every header. Provider-token reuse and its 20-minute floor, connection reuse and GOAWAY, the
 * HTTP/2 faults before and after the body, and APNs's answers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encodePushTarget, type Purpose } from '../../../src/domain/index.js';
import { apnsOrigin, createApnsAdapter, type ApnsAdapter } from '../../../src/providers/apns/adapter.js';
import { TOKEN_MIN_LIFETIME_MS, TOKEN_REFRESH_AFTER_MS } from '../../../src/providers/apns/provider-token.js';
import type { ProviderAccountConfig, SubmitRequest } from '../../../src/providers/provider.js';
import { pushCollapseId, pushDeliveryUuid } from '../../../src/providers/push/identity.js';
import { pushOtpRequest, pushTestAccount } from '../../helpers/push-adapter-fixtures.js';
import { startApnsFake, type ApnsFake } from '../fakes/apns.js';

const DEVICE = 'c0ffee00'.repeat(8);
const MINUTE = 60_000;

let fake: ApnsFake;
let adapter: ApnsAdapter;
const extra: ApnsAdapter[] = [];
let clock: number;

afterEach(async () => {
  await Promise.all([adapter, ...extra.splice(0)].filter(Boolean).map((a) => a.close()));
  await fake?.close();
});

function account(over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): ProviderAccountConfig {
  const keys = { key_id: fake.keyId, team_id: fake.teamId, topic: fake.topic, signing_key: fake.signingKeyPem, ca_file: fake.caFile };
  return pushTestAccount('apns', fake.url, { ...keys, ...settings }, over);
}

async function start(over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): Promise<void> {
  clock = Date.UTC(2026, 11, 1, 12, 0, 0);
  fake = await startApnsFake({ now: () => clock });
  adapter = createApnsAdapter(account(over, settings), { now: () => clock });
}

function request(over: Partial<SubmitRequest> = {}): SubmitRequest {
  return pushOtpRequest('apns', encodePushTarget({ type: 'apns', token: DEVICE, environment: 'production' }), clock, over);
}

const last = () => fake.requests.at(-1)!;

describe('APNs adapter: the request', () => {
  it('sends an alert with every header APNs checks, and is accepted with APNs’s id', async () => {
    await start();
    const req = request({ expiresAt: clock + 600_700 });
    const outcome = await adapter.submit(req);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: fake.accepted[0] });
    expect(fake.refusals).toEqual([]);
    const seen = last();
    expect(seen.path).toBe(`/3/device/${DEVICE}`);
    expect(seen.headers).toMatchObject({
      'apns-topic': fake.topic,
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-expiration': String(Math.floor(req.expiresAt / 1000)),
      'apns-collapse-id': pushCollapseId(req.idempotencyKey),
      'apns-id': pushDeliveryUuid(req.idempotencyKey),
    });
    expect(seen.payload).toEqual({ aps: { alert: { title: 'Sign-in code', body: 'Your code is 73190482' } } });
  });

  it('keeps apns-id and apns-collapse-id across the attempts of a delivery, and changes both for another', async () => {
    await start();
    const first = request();
    fake.script({ kind: 'answer', reason: 'ServiceUnavailable' });
    expect((await adapter.submit(first)).kind).toBe('retryable');
    expect((await adapter.submit(first)).kind).toBe('accepted');
    await adapter.submit(request());
    const [a, b, c] = fake.requests.map((r) => [r.headers['apns-id'], r.headers['apns-collapse-id']]);
    expect(a).toEqual(b);
    expect(c![0]).not.toBe(a![0]);
    expect(c![1]).not.toBe(a![1]);
  });

  it('apns-expiration is expiresAt’s second on every attempt, and 0 (once, not stored) when nothing is left', async () => {
    await start();
    const req = request({ expiresAt: clock + 90_999 });
    await adapter.submit(req);
    expect(last().headers['apns-expiration']).toBe(String(Math.floor(req.expiresAt / 1000)));
    clock = req.expiresAt + 5;
    await adapter.submit(req);
    expect(last().headers['apns-expiration']).toBe('0');
  });

  it('priority 10 for otp and alert, 5 otherwise', async () => {
    await start();
    const priorities: Record<string, string | undefined> = {};
    for (const purpose of ['otp', 'alert', 'transactional', 'conversational', 'marketing'] as Purpose[]) {
      await adapter.submit(request({ purpose }));
      priorities[purpose] = last().headers['apns-priority'];
    }
    expect(priorities).toEqual({ otp: '10', alert: '10', transactional: '5', conversational: '5', marketing: '5' });
  });

  it('data_only: a background push (content-available, priority 5) that APNs accepts', async () => {
    await start({ capabilities: { lookup: false, dedupes_by_key: false }, ambiguity_policy: 'wait_for_evidence' }, { data_only: true });
    const req = request();
    expect((await adapter.submit(req)).kind).toBe('accepted');
    expect(last().headers).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5' });
    expect(last().payload).toEqual({
      aps: { 'content-available': 1 },
      title: 'Sign-in code',
      body: 'Your code is 73190482',
      herald_collapse_id: pushCollapseId(req.idempotencyKey),
    });
  });

  it('refuses a target of another push service without sending; picks the host by the target’s environment', async () => {
    await start();
    expect(await adapter.submit(request({ destination: 'an-fcm-token' }))).toMatchObject({
      kind: 'permanent',
      reason: 'invalid_destination',
      code: 'apns_not_an_apns_target',
    });
    expect(fake.requests).toEqual([]);
    const plain = { ...account(), base_url: undefined };
    expect(apnsOrigin(plain, 'production')).toBe('https://api.push.apple.com');
    expect(apnsOrigin(plain, 'sandbox')).toBe('https://api.sandbox.push.apple.com');
    expect(apnsOrigin(account(), 'sandbox')).toBe(new URL(fake.url).origin);
  });
});

describe('APNs adapter: provider tokens and the connection', () => {
  it('one token and one connection for many sends', async () => {
    await start();
    const outcomes = await Promise.all(Array.from({ length: 25 }, () => adapter.submit(request())));
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(adapter.tokens.generated).toBe(1);
    expect(fake.tokensAccepted).toHaveLength(1);
    expect(fake.connections()).toBe(1);
    expect(adapter.sessions.opened).toBe(1);
  });

  it(`replaces the token after ${TOKEN_REFRESH_AFTER_MS / MINUTE} minutes, before APNs would call it expired`, async () => {
    await start();
    await adapter.submit(request());
    clock += TOKEN_REFRESH_AFTER_MS - 1;
    await adapter.submit(request());
    expect(adapter.tokens.generated).toBe(1);
    clock += 1;
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(adapter.tokens.generated).toBe(2);
    expect(fake.tokensAccepted).toHaveLength(2);
  });

  it('on ExpiredProviderToken regenerates only a token at least 20 minutes old, and then sends once more', async () => {
    await start();
    await adapter.submit(request());
    // 5 minutes old: a new token would earn TooManyProviderTokenUpdates; the 403 stands.
    clock += 5 * MINUTE;
    fake.script({ kind: 'answer', reason: 'ExpiredProviderToken' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'apns_provider_token_expired' });
    expect(adapter.tokens.generated).toBe(1);
    expect(fake.requests).toHaveLength(2);
    // 21 minutes old: regenerated, and the same notification sent once more on the new token.
    clock += TOKEN_MIN_LIFETIME_MS - 4 * MINUTE;
    fake.script({ kind: 'answer', reason: 'ExpiredProviderToken' });
    const req = request();
    expect((await adapter.submit(req)).kind).toBe('accepted');
    expect(adapter.tokens.generated).toBe(2);
    const [refused, resent] = fake.requests.slice(-2);
    expect(resent!.headers['apns-id']).toBe(refused!.headers['apns-id']);
    expect(resent!.jwt).not.toBe(refused!.jwt);
    expect(fake.refusals).toEqual([]);
  });

  it('the fake holds APNs’s own rule: a second key user that mints a new token within 20 minutes is throttled, for the whole account', async () => {
    await start();
    await adapter.submit(request());
    const other = createApnsAdapter(account({ id: 'apns-other' }), { now: () => clock });
    extra.push(other);
    clock += 10 * MINUTE;
    expect(await other.submit(request())).toMatchObject({ kind: 'throttled', scope: 'account', code: 'apns_too_many_token_updates' });
  });

  it('a token the fake cannot verify (another key) is refused: permanent unauthorized', async () => {
    await start();
    const { generateKeyPairSync } = await import('node:crypto');
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const forged = createApnsAdapter(account({ id: 'apns-forged' }, { signing_key: otherKey }), { now: () => clock });
    extra.push(forged);
    const outcome = await forged.submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'apns_auth_failed' });
    expect(fake.refusals).toEqual(['provider token: ERR_JWS_SIGNATURE_VERIFICATION_FAILED']);
    expect(JSON.stringify(outcome)).not.toContain('bearer');
  });
});

describe('APNs adapter: answers and HTTP/2 faults', () => {
  it('dead and wrong device tokens are invalid destinations with distinct codes', async () => {
    await start();
    fake.script({ kind: 'answer', reason: 'Unregistered' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'invalid_destination', code: 'apns_unregistered' });
    fake.script({ kind: 'answer', reason: 'DeviceTokenNotForTopic' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'invalid_destination', code: 'apns_bad_token' });
    // The fake refuses a malformed token as APNs does.
    const bad = encodePushTarget({ type: 'apns', token: '0'.repeat(64), environment: 'sandbox' });
    expect(await adapter.submit(request({ destination: bad }))).toMatchObject({ code: 'apns_bad_token' });
  });

  it('too many requests for one device throttles that delivery only', async () => {
    await start();
    fake.script({ kind: 'answer', reason: 'TooManyRequests' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'throttled', scope: 'destination', retryAfterMs: null });
  });

  it('a payload over 4 KB is refused by APNs as content, not as a bad device', async () => {
    await start();
    expect(await adapter.submit(request({ content: { text: 'x'.repeat(5000) } }))).toMatchObject({
      kind: 'permanent',
      reason: 'content_rejected',
      code: 'apns_payload_too_large',
    });
  });

  it('RST_STREAM before the body was complete: retryable, and APNs never saw a request', async () => {
    await start();
    fake.script({ kind: 'rst_while_writing' });
    expect((await adapter.submit(request({ content: { text: 'x'.repeat(16 * 1024 * 1024) } }))).kind).toBe('retryable');
    expect(fake.requests).toEqual([]);
  });

  it('RST_STREAM after the body: unknown; REFUSED_STREAM after the body: retryable ("not processed")', async () => {
    await start();
    fake.script({ kind: 'rst_after_body' });
    expect((await adapter.submit(request())).kind).toBe('unknown');
    fake.script({ kind: 'refused_stream' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'apns_refused_stream' });
    expect(fake.requests).toHaveLength(2);
  });

  it('a connection reset after the body, or bytes that are not TLS: unknown, and the next send reconnects', async () => {
    await start();
    fake.script({ kind: 'reset_connection' });
    expect((await adapter.submit(request())).kind).toBe('unknown');
    fake.script({ kind: 'garbage', canaries: ['Your code is 73190482'] });
    const garbled = await adapter.submit(request());
    expect(garbled.kind).toBe('unknown');
    expect(JSON.stringify(garbled)).not.toContain('73190482');
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(fake.connections()).toBe(3);
  });

  it('GOAWAY: the streams it covers finish, those above it are refused (retryable), and the next send opens a new session', async () => {
    await start();
    fake.script({ kind: 'goaway_then_accept' });
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(fake.connections()).toBe(2);

    fake.script({ kind: 'hold_until_goaway' });
    const held = adapter.submit(request());
    await expect.poll(() => fake.requests.length).toBe(3);
    const above = await adapter.submit(request());
    expect(above).toMatchObject({ kind: 'retryable', code: 'apns_refused_stream' });
    expect((await held).kind).toBe('accepted');
    expect((await adapter.submit(request())).kind).toBe('accepted');
    expect(fake.connections()).toBe(3);
  });

  it('no answer within timeout_ms: unknown; nothing listening: retryable; sendBy passed: retryable and nothing sent', async () => {
    // Room for the TLS and HTTP/2 handshake on a loaded machine (200 ms was not, under CI load).
    await start({ timeout_ms: 1_000 });
    fake.script({ kind: 'hang' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'unknown', code: 'timeout' });
    expect((await adapter.submit(request({ sendBy: Date.now() - 1 }))).kind).toBe('retryable');
    expect(fake.requests).toHaveLength(1);
    const fresh = createApnsAdapter(account({ id: 'apns-fresh', timeout_ms: 2_000 }), { now: () => clock });
    extra.push(fresh);
    fake.refuse();
    expect(await fresh.submit(request())).toMatchObject({ kind: 'retryable', code: 'connect_failed' });
  });
});
