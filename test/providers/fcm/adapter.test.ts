/**
 * The FCM adapter against its fake (test/providers/fakes/fcm.ts), which verifies the service
 * account's JWT and the access token as Google does: token caching and refresh, the message FCM
 * receives (expiry from expiresAt, collapse identity, priority), and real answers classified.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Purpose } from '../../../src/domain/index.js';
import { accountIdempotencyKey, encodePushTarget } from '../../../src/domain/index.js';
import { createFcmAdapter, type FcmAdapter } from '../../../src/providers/fcm/adapter.js';
import { EAGER_REFRESH_MS } from '../../../src/providers/fcm/access-token.js';
import type { ProviderAccountConfig, SubmitRequest } from '../../../src/providers/provider.js';
import { pushCollapseId } from '../../../src/providers/push/identity.js';
import { pushOtpRequest, pushTestAccount } from '../../helpers/push-adapter-fixtures.js';
import { startFcmFake, type FcmFake } from '../fakes/fcm.js';

const TOKEN = 'fcm-registration-token-e7Qk2:APA91bH-canary';

let fake: FcmFake;
let adapter: FcmAdapter;
let clock: number;

afterEach(async () => {
  await adapter?.close();
  await fake?.close();
});

async function start(over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): Promise<void> {
  clock = Date.UTC(2026, 11, 1, 12, 0, 0);
  fake = await startFcmFake({ now: () => clock });
  adapter = createFcmAdapter(pushTestAccount('fcm', fake.url, { service_account: fake.serviceAccountJson, ...settings }, over), { now: () => clock });
}

function request(over: Partial<SubmitRequest> = {}): SubmitRequest {
  return pushOtpRequest('fcm', TOKEN, clock, over);
}

const lastMessage = (): any => fake.sends().at(-1)?.body?.message;

describe('FCM adapter: the message', () => {
  it('sends a notification message with the expiry, collapse identity and priority of the delivery, and is accepted with the message name', async () => {
    await start();
    const req = request({ expiresAt: clock + 600_500 });
    const outcome = await adapter.submit(req);
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: fake.accepted[0] });
    const collapse = pushCollapseId(req.idempotencyKey);
    expect(lastMessage()).toEqual({
      token: TOKEN,
      notification: { title: 'Sign-in code', body: 'Your code is 73190482' },
      android: { ttl: '600s', collapse_key: collapse, priority: 'HIGH', notification: { tag: collapse } },
      apns: {
        headers: {
          'apns-expiration': String(Math.floor(req.expiresAt / 1000)),
          'apns-collapse-id': collapse,
          'apns-priority': '10',
          'apns-push-type': 'alert',
        },
      },
      webpush: { headers: { TTL: '600', Urgency: 'high', Topic: collapse }, notification: { tag: collapse } },
    });
  });

  it('derives the lifetime from expiresAt on every attempt: a retry later carries less, never past it', async () => {
    await start();
    const req = request({ expiresAt: clock + 300_000 });
    fake.script({ kind: 'answer', name: 'unavailable' });
    expect((await adapter.submit(req)).kind).toBe('retryable');
    expect(lastMessage().android.ttl).toBe('300s');
    clock += 120_400;
    expect((await adapter.submit(req)).kind).toBe('accepted');
    // 179.6 s left: rounded down to 179, so FCM never holds it past expiresAt.
    expect(lastMessage().android.ttl).toBe('179s');
    expect(lastMessage().webpush.headers.TTL).toBe('179');
    expect(lastMessage().apns.headers['apns-expiration']).toBe(String(Math.floor(req.expiresAt / 1000)));
    // Nothing left: "now or never".
    clock = req.expiresAt + 1;
    await adapter.submit(req);
    expect(lastMessage().android.ttl).toBe('0s');
    expect(lastMessage().apns.headers['apns-expiration']).toBe('0');
  });

  it('keeps the collapse key of a delivery that moved to another account of its route and is sent there under that account’s key', async () => {
    await start({ id: 'fcm-a' });
    const other = createFcmAdapter(pushTestAccount('fcm', fake.url, { service_account: fake.serviceAccountJson }, { id: 'fcm-b' }), { now: () => clock });
    const first = request();
    await adapter.submit(first);
    await other.submit({ ...first, idempotencyKey: accountIdempotencyKey(first.idempotencyKey, 'fcm-b', 'fcm-a') });
    await other.close();
    const keys = fake.sends().map((s) => s.body.message.android.collapse_key);
    expect(keys).toEqual([pushCollapseId(first.idempotencyKey), pushCollapseId(first.idempotencyKey)]);
  });

  it('carries the same collapse key on every attempt of a delivery and another for another delivery', async () => {
    await start();
    const first = request();
    fake.script({ kind: 'answer', name: 'internal' });
    await adapter.submit(first);
    await adapter.submit(first);
    const second = request();
    await adapter.submit(second);
    const keys = fake.sends().map((s) => s.body.message.android.collapse_key);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(fake.sends().map((s) => s.body.message.android.notification.tag)).toEqual(keys);
  });

  it('sets priority by purpose: HIGH / 10 / high for otp and alert, NORMAL / 5 otherwise, low urgency for marketing on the web', async () => {
    await start();
    const seen: Record<string, unknown[]> = {};
    for (const purpose of ['otp', 'alert', 'transactional', 'conversational', 'marketing'] as Purpose[]) {
      await adapter.submit(request({ purpose }));
      const m = lastMessage();
      seen[purpose] = [m.android.priority, m.apns.headers['apns-priority'], m.webpush.headers.Urgency];
    }
    expect(seen).toEqual({
      otp: ['HIGH', '10', 'high'],
      alert: ['HIGH', '10', 'high'],
      transactional: ['NORMAL', '5', 'normal'],
      conversational: ['NORMAL', '5', 'normal'],
      marketing: ['NORMAL', '5', 'low'],
    });
  });

  it('data_only: a data message (strings), a background push on Apple devices, no notification block', async () => {
    await start({ capabilities: { lookup: false, dedupes_by_key: false }, ambiguity_policy: 'wait_for_evidence' }, { data_only: true });
    const req = request({ content: { text: 'Your code is 73190482' } });
    expect((await adapter.submit(req)).kind).toBe('accepted');
    const m = lastMessage();
    expect(m.notification).toBeUndefined();
    expect(m.data).toEqual({ body: 'Your code is 73190482', herald_collapse_id: pushCollapseId(req.idempotencyKey) });
    expect(m.android.notification).toBeUndefined();
    expect(m.apns).toMatchObject({ headers: { 'apns-push-type': 'background', 'apns-priority': '5' }, payload: { aps: { 'content-available': 1 } } });
  });

  it('takes a bare FCM token or an FCM target, and refuses another push service without sending', async () => {
    await start();
    expect((await adapter.submit(request({ destination: encodePushTarget({ type: 'fcm', token: TOKEN }) }))).kind).toBe('accepted');
    expect(lastMessage().token).toBe(TOKEN);
    const apns = encodePushTarget({ type: 'apns', token: 'a'.repeat(64), environment: 'production' });
    expect(await adapter.submit(request({ destination: apns }))).toMatchObject({
      kind: 'permanent',
      reason: 'invalid_destination',
      code: 'fcm_not_an_fcm_target',
    });
    expect(fake.sends()).toHaveLength(1);
  });
});

describe('FCM adapter: access tokens', () => {
  it('signs a JWT the token endpoint verifies, and makes one exchange for many concurrent sends', async () => {
    await start();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => adapter.submit(request())));
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(fake.tokenRequests).toBe(1);
    expect(fake.tokenRefusals).toEqual([]);
    expect(new Set(fake.sends().map((s) => s.authorization))).toEqual(new Set([`Bearer ${fake.tokensIssued[0]}`]));
  });

  it(`keeps the token until ${EAGER_REFRESH_MS / 60_000} minutes before it expires, then exchanges again`, async () => {
    await start();
    await adapter.submit(request());
    clock += 3_599_000 - EAGER_REFRESH_MS - 1_000;
    await adapter.submit(request());
    expect(fake.tokenRequests).toBe(1);
    clock += 2_000;
    await adapter.submit(request());
    expect(fake.tokenRequests).toBe(2);
    expect(fake.sends().at(-1)?.authorization).toBe(`Bearer ${fake.tokensIssued[1]}`);
  });

  it('on a 401 refreshes the token once and sends once more; FCM processed nothing the first time', async () => {
    await start();
    await adapter.submit(request());
    fake.revokeAccessTokens();
    const req = request();
    expect(await adapter.submit(req)).toMatchObject({ kind: 'accepted' });
    expect(fake.tokenRequests).toBe(2);
    const sends = fake.sends().slice(1);
    expect(sends).toHaveLength(2);
    expect(sends.map((s) => s.body.message.android.collapse_key)).toEqual([pushCollapseId(req.idempotencyKey), pushCollapseId(req.idempotencyKey)]);
    expect(fake.accepted).toHaveLength(2);
  });

  it('a second 401 is final: permanent unauthorized, after exactly one refresh', async () => {
    await start();
    const unauthenticated = {
      status: 401,
      body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' } },
    };
    fake.script({ kind: 'raw', answer: unauthenticated });
    fake.script({ kind: 'raw', answer: unauthenticated });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'fcm_unauthenticated' });
    expect(fake.tokenRequests).toBe(2);
    expect(fake.sends()).toHaveLength(2);
  });

  it("does not refresh on THIRD_PARTY_AUTH_ERROR: that 401 is about the project's APNs or Web Push key", async () => {
    await start();
    fake.script({ kind: 'answer', name: 'third_party_auth_error' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'fcm_third_party_auth_error' });
    expect(fake.tokenRequests).toBe(1);
    expect(fake.sends()).toHaveLength(1);
  });

  it('a key Google does not know is refused at the token endpoint: permanent unauthorized, nothing sent', async () => {
    await start();
    await adapter.close();
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const forged = JSON.stringify({ ...JSON.parse(fake.serviceAccountJson), private_key: other });
    adapter = createFcmAdapter(
      {
        id: 'fcm-forged',
        kind: 'fcm',
        channel: 'push',
        base_url: fake.url,
        settings: { service_account: forged },
        rate_per_second: 1,
        burst: 1,
        ambiguity_policy: 'wait_for_evidence',
        timeout_ms: 5_000,
      },
      { now: () => clock },
    );
    const outcome = await adapter.submit(request());
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'fcm_auth_failed' });
    expect(fake.tokenRefusals).toEqual(['assertion: ERR_JWS_SIGNATURE_VERIFICATION_FAILED']);
    expect(fake.sends()).toEqual([]);
    expect(JSON.stringify(outcome)).not.toContain('PRIVATE KEY');
  });

  it('an unavailable or silent token endpoint is retryable and nothing is sent', async () => {
    await start({ timeout_ms: 300 });
    fake.scriptToken({ kind: 'answer', status: 503, body: { error: 'internal_failure' }, headers: { 'retry-after': '4' } });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'fcm_token_unavailable', retryAfterMs: 4_000 });
    fake.scriptToken({ kind: 'hang' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'fcm_token_timeout' });
    expect(fake.sends()).toEqual([]);
  });
});

describe('FCM adapter: answers through the wire', () => {
  it('UNREGISTERED and a bad token are invalid destinations; a too-big message is not', async () => {
    await start();
    fake.script({ kind: 'answer', name: 'unregistered' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'invalid_destination', code: 'fcm_unregistered' });
    fake.script({ kind: 'answer', name: 'invalid_token' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'invalid_destination', code: 'fcm_bad_token' });
    // The fake refuses a payload over 4096 bytes as FCM does.
    expect(await adapter.submit(request({ content: { text: 'x'.repeat(5000) } }))).toMatchObject({
      kind: 'permanent',
      reason: 'content_rejected',
      code: 'fcm_invalid_argument',
    });
  });

  it("a device's quota throttles that delivery only; the project's pauses the account for at least a minute", async () => {
    await start();
    fake.script({ kind: 'answer', name: 'device_quota' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'throttled', scope: 'destination', retryAfterMs: null });
    fake.script({ kind: 'answer', name: 'project_quota', headers: { 'retry-after': '30' } });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'throttled', scope: 'account', retryAfterMs: 60_000 });
  });

  it('UNAVAILABLE honours Retry-After', async () => {
    await start();
    fake.script({ kind: 'answer', name: 'unavailable', headers: { 'retry-after': '17' } });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'retryable', code: 'fcm_unavailable', retryAfterMs: 17_000 });
  });

  it('a reset after the request was written is unknown; one while it was still being written is retryable', async () => {
    await start();
    fake.proxy.next({ kind: 'reset_after_write' });
    expect((await adapter.submit(request())).kind).toBe('unknown');
    fake.proxy.next({ kind: 'reset_while_writing', afterBytes: 64 * 1024 });
    expect((await adapter.submit(request({ content: { text: 'x'.repeat(16 * 1024 * 1024) } }))).kind).toBe('retryable');
  });
});
