/**
 * The Web Push adapter against its fake push service (test/providers/fakes/webpush.ts), which
 * verifies the VAPID JWT with the VAPID public key and decrypts each payload with the
 * subscriber's private key, as the browser would.
 */
import { afterEach, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { encodePushTarget, type Purpose } from '../../../src/domain/index.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../../../src/providers/provider.js';
import { pushCollapseId } from '../../../src/providers/push/identity.js';
import { createWebPushAdapter } from '../../../src/providers/webpush/adapter.js';
import { pushOtpRequest, pushTestAccount } from '../../helpers/push-adapter-fixtures.js';
import { PUSH_ORIGIN, startWebPushFake, type WebPushFake } from '../fakes/webpush.js';

const VAPID = webpush.generateVAPIDKeys();
const SUBJECT = 'mailto:ops@herald.example';

let fake: WebPushFake;
let adapter: ProviderAdapter;
let clock: number;

afterEach(async () => {
  await adapter?.close();
  await fake?.close();
});

function account(over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): ProviderAccountConfig {
  const vapid = { vapid_subject: SUBJECT, vapid_public_key: VAPID.publicKey, vapid_private_key: VAPID.privateKey };
  return pushTestAccount('webpush', fake.url, { ...vapid, ...settings }, over);
}

async function start(over: Partial<ProviderAccountConfig> = {}): Promise<void> {
  clock = Date.now();
  fake = await startWebPushFake({ vapidPublicKey: VAPID.publicKey, now: () => clock });
  adapter = createWebPushAdapter(account(over), { now: () => clock });
}

function request(over: Partial<SubmitRequest> = {}): SubmitRequest {
  return pushOtpRequest('webpush', encodePushTarget(fake.subscribe()), clock, over);
}

describe('Web Push adapter', () => {
  it('encrypts for the subscriber and signs with VAPID: the browser reads exactly what was sent, and the push message resource is the id', async () => {
    await start();
    const req = request({ expiresAt: clock + 600_900 });
    const outcome = await adapter.submit(req);
    expect(fake.refusals).toEqual([]);
    const [push] = fake.delivered;
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: push!.location });
    const topic = pushCollapseId(req.idempotencyKey);
    expect(JSON.parse(push!.plaintext!)).toEqual({ title: 'Sign-in code', body: 'Your code is 73190482', tag: topic });
    expect(push!.headers).toMatchObject({ ttl: '600', urgency: 'high', topic, 'content-encoding': 'aes128gcm' });
    // The audience is the endpoint's own origin, not base_url's; exp within 24 h.
    expect(push!.vapid.aud).toBe(PUSH_ORIGIN);
    expect(push!.vapid.sub).toBe(SUBJECT);
    expect((push!.vapid.exp as number) * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
  });

  it('TTL from expiresAt on every attempt (rounded down), Topic the same across attempts and different across deliveries', async () => {
    await start();
    const req = request({ expiresAt: clock + 300_000 });
    fake.script({ kind: 'answer', name: 'server_error' });
    expect((await adapter.submit(req)).kind).toBe('retryable');
    clock += 100_500;
    expect((await adapter.submit(req)).kind).toBe('accepted');
    const other = request();
    await adapter.submit(other);
    const seen = fake.received().map((r) => [r.headers.ttl, r.headers.topic]);
    expect(seen[0]).toEqual(['300', pushCollapseId(req.idempotencyKey)]);
    expect(seen[1]).toEqual(['199', pushCollapseId(req.idempotencyKey)]);
    expect(seen[2]![1]).toBe(pushCollapseId(other.idempotencyKey));
    expect(seen[2]![1]).not.toBe(seen[0]![1]);
    clock = req.expiresAt + 1;
    await adapter.submit(req);
    expect(fake.received().at(-1)?.headers.ttl).toBe('0');
  });

  it('Urgency by purpose', async () => {
    await start();
    const urgency: Record<string, string | undefined> = {};
    for (const purpose of ['otp', 'alert', 'transactional', 'conversational', 'marketing'] as Purpose[]) {
      await adapter.submit(request({ purpose }));
      urgency[purpose] = fake.received().at(-1)?.headers.urgency;
    }
    expect(urgency).toEqual({ otp: 'high', alert: 'high', transactional: 'normal', conversational: 'normal', marketing: 'low' });
  });

  it('an unsubscribed or unknown subscription is a dead destination', async () => {
    await start();
    const sub = fake.subscribe();
    fake.unsubscribe(sub);
    expect(await adapter.submit(request({ destination: encodePushTarget(sub) }))).toMatchObject({
      kind: 'permanent',
      reason: 'invalid_destination',
      code: 'webpush_unregistered',
    });
    const unknown = { ...fake.subscribe(), endpoint: `${PUSH_ORIGIN}/wpush/v2/nobody` };
    expect(await adapter.submit(request({ destination: encodePushTarget(unknown) }))).toMatchObject({ code: 'webpush_unregistered' });
  });

  it('a payload over RFC 8291’s 3993 octets is refused before encrypting (nothing sent); one at the limit goes', async () => {
    await start();
    const overhead = Buffer.byteLength(JSON.stringify({ body: '', tag: pushCollapseId('hk_x') }));
    const atLimit = request({ content: { text: 'x'.repeat(3993 - overhead) } });
    expect((await adapter.submit(atLimit)).kind).toBe('accepted');
    expect(JSON.parse(fake.delivered[0]!.plaintext!).body).toHaveLength(3993 - overhead);
    const over = await adapter.submit(request({ content: { text: 'x'.repeat(3994 - overhead) } }));
    expect(over).toMatchObject({ kind: 'permanent', reason: 'content_rejected', code: 'webpush_payload_too_large' });
    expect(fake.received()).toHaveLength(1);
  });

  it('a 429 waits for this subscription only, with its Retry-After', async () => {
    await start();
    fake.script({ kind: 'answer', name: 'rate_limited' });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'throttled', scope: 'destination', retryAfterMs: 120_000 });
  });

  it('VAPID keys the subscription was not made with are refused (403), as is a subscription whose keys cannot encrypt', async () => {
    await start();
    await adapter.close();
    const other = webpush.generateVAPIDKeys();
    adapter = createWebPushAdapter(account({}, { vapid_public_key: other.publicKey, vapid_private_key: other.privateKey }), { now: () => clock });
    expect(await adapter.submit(request())).toMatchObject({ kind: 'permanent', reason: 'unauthorized', code: 'webpush_vapid_rejected' });
    expect(fake.refusals).toEqual(['vapid key is not the subscription’s']);
    const broken = { ...fake.subscribe(), keys: { p256dh: 'AAAA', auth: 'BBBB' } };
    expect(await adapter.submit(request({ destination: encodePushTarget(broken) }))).toMatchObject({
      kind: 'permanent',
      reason: 'invalid_destination',
      code: 'webpush_bad_token',
    });
  });

  it('refuses a target of another push service without sending', async () => {
    await start();
    expect(await adapter.submit(request({ destination: 'an-fcm-token' }))).toMatchObject({ kind: 'permanent', code: 'webpush_not_a_subscription' });
    expect(fake.received()).toEqual([]);
  });

  it('transport: a reset after the request was written is unknown; a refused connection retryable; sendBy passed sends nothing', async () => {
    await start();
    fake.proxy.next({ kind: 'reset_after_write' });
    expect((await adapter.submit(request())).kind).toBe('unknown');
    expect((await adapter.submit(request({ sendBy: Date.now() - 1 }))).kind).toBe('retryable');
    expect(fake.received()).toHaveLength(1);
  });
});
