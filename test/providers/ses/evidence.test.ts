/**
 * An SES account end to end through a whole Herald (test/helpers/harness.ts) on both drivers:
 * the worker sends through the SigV4-verifying SES fake, SNS notifications signed with the
 * test's certificates come in at POST /v1/callbacks/<account>, and the evidence applier moves
 * the delivery downstream. A Delivery makes it `delivered`, a Permanent Bounce suppresses the
 * address, a forged notification is 401 and changes nothing, a repeated one is a duplicate,
 * and a lost send answer is settled by the Send event's reference tag.
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import { createSesCallbackVerifier } from '../../../src/providers/ses/callbacks.js';
import { createHarness, DRIVERS, type Harness } from '../../helpers/harness.js';
import { startSesFake, type SesFake } from '../fakes/ses.js';
import { sesEvent, startSnsFake, type SnsFake, type TestCertificate } from '../fakes/sns.js';

const REGION = 'eu-west-1';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:herald-ses-events';
const KEY_ID = 'AKIAHERALDE2E0000001';
const SECRET = 'herald-e2e-secret-access-key-000000000000';

const emailBody = (i: number) => ({
  recipient: { id: `user-${i}`, email: `user${i}@example.com` },
  purpose: 'transactional',
  channels: ['email'],
  content: { subject: 'Receipt', text: `Receipt ${i}` },
  ttl_seconds: 3600,
});

let sns: SnsFake;
let cert: TestCertificate;
let forger: TestCertificate;

beforeAll(async () => {
  sns = await startSnsFake();
  cert = await sns.certificate(REGION);
  // A key pair the forger holds, its certificate on no SNS host.
  forger = await sns.certificate(REGION, { serve: false });
});
afterAll(async () => {
  await sns.close();
});

describe.each(DRIVERS)('SES evidence through SNS on %s', (driver) => {
  let h: Harness;
  let ses: SesFake;
  afterEach(async () => {
    await h?.close();
    await ses?.close();
  });

  const start = async () => {
    ses = await startSesFake({ region: REGION, accessKeyId: KEY_ID, secretAccessKey: SECRET, configurationSets: ['herald'] });
    const sesAccount = (a: ProviderAccountConfig): ProviderAccountConfig => ({
      id: a.id,
      kind: 'ses',
      channel: 'email',
      base_url: ses.url,
      settings: {
        region: REGION,
        from: 'Herald <no-reply@example.com>',
        configuration_set: 'herald',
        sns_topic_arns: [TOPIC],
        access_key_id: KEY_ID,
        secret_access_key: SECRET,
      },
      rate_per_second: 100,
      burst: 100,
      ambiguity_policy: 'wait_for_evidence',
      timeout_ms: 2_000,
      capabilities: { lookup: false, dedupes_by_key: false },
    });
    h = await createHarness({
      driver,
      account: (a) => (a.channel === 'email' ? sesAccount(a) : a),
      callbackVerifier: (a) => (a.kind === 'ses' ? createSesCallbackVerifier({ topicArns: [TOPIC], fetch: sns.fetch }) : null),
    });
  };

  const deliveryOf = async (notificationId: string) => (await h.get(`/v1/notifications/${notificationId}`)).json.deliveries[0];
  const post = async (body: Buffer) => {
    const r = await h.app.inject({
      method: 'POST',
      url: '/v1/callbacks/sandbox-email',
      headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
      payload: body,
    });
    return { status: r.statusCode, json: r.json() };
  };
  const notification = (message: string, over: { certificate?: TestCertificate; signingCertUrl?: string; messageId?: string } = {}) =>
    sns.message({
      topicArn: TOPIC,
      message,
      timestampMs: h.clock.now(),
      certificate: over.certificate ?? cert,
      ...(over.signingCertUrl ? { signingCertUrl: over.signingCertUrl } : {}),
      ...(over.messageId ? { messageId: over.messageId } : {}),
    });
  const suppressions = async () => (await h.get('/v1/suppressions')).json.items as Array<{ destination: string; reason: string }>;

  it('a Delivery notification moves the delivery downstream to delivered; its repeat is a duplicate', async () => {
    await start();
    const sent = await h.send(emailBody(1));
    await h.worker.drain();
    const d = await deliveryOf(sent.json.id);
    expect(d).toMatchObject({ state: 'accepted', provider_message_id: ses.acceptedIds()[0], downstream_status: 'accepted' });
    expect(ses.sends()[0]!.carriedKey).toBe(d.idempotency_key);
    const body = notification(
      sesEvent(
        'Delivery',
        { messageId: d.provider_message_id, reference: d.idempotency_key, destination: 'user1@example.com' },
        { timestamp: new Date(h.clock.now()).toISOString() },
      ),
      { messageId: 'sns-delivery-1' },
    );
    expect(await post(body)).toEqual({ status: 200, json: { received: 1, duplicates: 0 } });
    expect(await post(body)).toEqual({ status: 200, json: { received: 0, duplicates: 1 } });
    await h.evidence.runOnce();
    expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });
  });

  it('a Permanent Bounce makes it bounced and suppresses the address; a Transient one suppresses nothing', async () => {
    await start();
    const hard = await h.send(emailBody(2));
    const soft = await h.send(emailBody(3));
    await h.worker.drain();
    const dh = await deliveryOf(hard.json.id);
    const ds = await deliveryOf(soft.json.id);
    expect(
      (
        await post(
          notification(
            sesEvent('Bounce', { messageId: dh.provider_message_id, reference: dh.idempotency_key }, { bounceType: 'Permanent', bounceSubType: 'General' }),
          ),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await post(
          notification(
            sesEvent('Bounce', { messageId: ds.provider_message_id, reference: ds.idempotency_key }, { bounceType: 'Transient', bounceSubType: 'MailboxFull' }),
          ),
        )
      ).status,
    ).toBe(200);
    await h.evidence.runOnce();
    expect(await deliveryOf(hard.json.id)).toMatchObject({ downstream_status: 'bounced' });
    expect(await deliveryOf(soft.json.id)).toMatchObject({ downstream_status: 'bounced' });
    expect((await suppressions()).map((s) => [s.destination, s.reason])).toEqual([['user2@example.com', 'bounced']]);
  });

  it('a forged notification answers 401 and changes nothing', async () => {
    await start();
    const sent = await h.send(emailBody(4));
    await h.worker.drain();
    const d = await deliveryOf(sent.json.id);
    const bounce = sesEvent('Bounce', { messageId: d.provider_message_id, reference: d.idempotency_key }, { bounceType: 'Permanent' });
    // Signed with the forger's key but naming the real SNS certificate; and a certificate on the forger's own host.
    const forged = await post(notification(bounce, { certificate: forger, signingCertUrl: cert.url }));
    expect(forged).toMatchObject({ status: 401, json: { code: 'callback_signature_invalid' } });
    const ownHost = await post(notification(bounce, { certificate: forger, signingCertUrl: `https://forger.example/SimpleNotificationService-0.pem` }));
    expect(ownHost.status).toBe(401);
    const tampered = Buffer.from(
      notification(sesEvent('Delivery', { messageId: d.provider_message_id }), {})
        .toString()
        .replace('Delivery', 'Bounce'),
    );
    expect((await post(tampered)).status).toBe(401);
    expect(await h.store.evidence.listPendingEvidence(10)).toEqual([]);
    await h.evidence.runOnce();
    expect(await deliveryOf(sent.json.id)).toMatchObject({ state: 'accepted', downstream_status: 'accepted' });
    expect(await suppressions()).toEqual([]);
  });

  it('a lost send answer (unknown) is settled by the Send event’s reference tag, without a resend', async () => {
    await start();
    ses.script({ kind: 'reset_after_write' });
    const sent = await h.send(emailBody(5));
    await h.worker.drain();
    const d0 = await deliveryOf(sent.json.id);
    expect(d0).toMatchObject({ state: 'unknown', provider_message_id: null });
    // SES did get it: the event names SES's MessageId, which Herald never saw, and Herald's reference.
    const event = sesEvent('Send', { messageId: '010001lost-message-id-000000', reference: d0.idempotency_key });
    expect(await post(notification(event))).toEqual({ status: 200, json: { received: 1, duplicates: 0 } });
    await h.evidence.runOnce();
    const d = await deliveryOf(sent.json.id);
    expect(d).toMatchObject({ state: 'accepted', downstream_status: 'sent' });
    expect(d.attempts[0]).toMatchObject({ outcome: 'unknown', resolution: 'callback' });
    expect(ses.sends()).toHaveLength(1);
  });

  it('a subscription confirmation through the route is confirmed at SNS and records nothing', async () => {
    await start();
    const before = sns.confirmations.length;
    const body = sns.message({
      type: 'SubscriptionConfirmation',
      topicArn: TOPIC,
      message: 'You have chosen to subscribe.',
      timestampMs: h.clock.now(),
      certificate: cert,
    });
    expect(await post(body)).toEqual({ status: 200, json: { received: 0, duplicates: 0 } });
    expect(sns.confirmations.length).toBe(before + 1);
  });
});
