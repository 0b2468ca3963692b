/**
 * The SES kind's SNS verifier against SNS messages signed by the test with certificates it
 * made, served at AWS URLs through an injected way out (test/providers/fakes/sns.ts). What is
 * checked: a valid notification of either SignatureVersion verifies and parses; a tampered
 * message, another certificate, an unknown topic, a stale message and every certificate URL
 * that is not the topic's SNS host are 401, and nothing is fetched for a URL the rule refuses;
 * subscription confirmations are confirmed once, through an SNS URL only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackParse, CallbackRequest } from '../../../src/providers/provider.js';
import { createSesCallbackVerifier, SNS_MAX_AGE_MS } from '../../../src/providers/ses/callbacks.js';
import { fetchFromSns } from '../../../src/providers/ses/sns-certificates.js';
import { sesEvent, startSnsFake, type SnsFake, type TestCertificate } from '../fakes/sns.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:herald-ses-events';
const OTHER_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:someone-else';

let sns: SnsFake;
let cert: TestCertificate;
let otherCert: TestCertificate;

beforeAll(async () => {
  sns = await startSnsFake();
  cert = await sns.certificate('eu-west-1');
  otherCert = await sns.certificate('eu-west-1');
});
afterAll(async () => {
  await sns.close();
});

function request(rawBody: Buffer): CallbackRequest {
  return {
    rawBody,
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
    url: 'https://herald.test/v1/callbacks/ses',
  };
}

function verifier(topics: string[] = [TOPIC]) {
  return createSesCallbackVerifier({ topicArns: topics, fetch: sns.fetch });
}

const delivery = sesEvent(
  'Delivery',
  { messageId: 'ses-msg-1', reference: 'hk_ref1' },
  { timestamp: '2025-01-15T11:59:30.000Z', recipients: ['ada@example.com'], smtpResponse: '250 ok' },
);

function expectRefused(parse: CallbackParse, detail?: RegExp): void {
  expect(parse).toMatchObject({ ok: false, status: 401, code: 'callback_signature_invalid' });
  if (detail && !parse.ok) expect(parse.detail).toMatch(detail);
}

describe('SNS notifications', () => {
  for (const version of ['1', '2'] as const) {
    it(`a valid notification with SignatureVersion ${version} parses to its SES event`, async () => {
      const body = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW - 1_000, version, certificate: cert, messageId: `sns-${version}` });
      expect(await verifier().verify(request(body), NOW)).toEqual({
        ok: true,
        events: [
          {
            eventId: `sns-${version}`,
            status: 'delivered',
            providerMessageId: 'ses-msg-1',
            reference: 'hk_ref1',
            occurredAt: Date.parse('2025-01-15T11:59:30.000Z'),
            suppress: null,
          },
        ],
      });
    });
  }

  it('a Subject, when SNS sends one, is part of what is signed', async () => {
    const body = sns.message({ topicArn: TOPIC, message: delivery, subject: 'Amazon SES Email Event Notification', timestampMs: NOW, certificate: cert });
    expect((await verifier().verify(request(body), NOW)).ok).toBe(true);
    const edited = Buffer.from(body.toString().replace('Amazon SES Email Event Notification', 'Amazon SES Email Event NotificatioN'));
    expectRefused(await verifier().verify(request(edited), NOW), /Signature/);
  });

  it('a tampered message is refused', async () => {
    const body = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: cert });
    const tampered = Buffer.from(body.toString().replace('ses-msg-1', 'ses-msg-9'));
    expectRefused(await verifier().verify(request(tampered), NOW), /Signature does not verify/);
    const bounced = Buffer.from(body.toString().replace('\\"eventType\\":\\"Delivery\\"', '\\"eventType\\":\\"Bounce\\"'));
    expect(bounced.equals(body)).toBe(false);
    expectRefused(await verifier().verify(request(bounced), NOW));
  });

  it('signed with another key than the certificate at SigningCertURL: refused', async () => {
    const body = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: otherCert, signingCertUrl: cert.url });
    expectRefused(await verifier().verify(request(body), NOW), /Signature does not verify/);
  });

  it('a topic the account does not list: refused before anything is fetched', async () => {
    const before = sns.fetched.length;
    const body = sns.message({ topicArn: OTHER_TOPIC, message: delivery, timestampMs: NOW, certificate: cert });
    expectRefused(await verifier().verify(request(body), NOW), /TopicArn/);
    expect(sns.fetched.length).toBe(before);
  });

  it('older than SNS retries, or from the future: refused', async () => {
    const stale = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW - SNS_MAX_AGE_MS - 60_000, certificate: cert });
    expectRefused(await verifier().verify(request(stale), NOW), /older/);
    const late = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW - SNS_MAX_AGE_MS + 60_000, certificate: cert });
    expect((await verifier().verify(request(late), NOW)).ok).toBe(true);
    const future = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW + 60 * 60_000, certificate: cert });
    expectRefused(await verifier().verify(request(future), NOW), /future/);
  });

  it('a repeated delivery of one message parses to the same event id (the store dedupes on it)', async () => {
    const body = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: cert, messageId: 'sns-replayed' });
    const v = verifier();
    const first = await v.verify(request(body), NOW);
    const again = await v.verify(request(body), NOW + 20_000);
    expect(first.ok && again.ok && first.events[0]?.eventId === 'sns-replayed' && again.events[0]?.eventId === 'sns-replayed').toBe(true);
  });

  it('one certificate fetch serves many messages, concurrent ones included', async () => {
    const fresh = await sns.certificate('eu-west-1');
    const v = verifier();
    const bodies = Array.from({ length: 5 }, (_, i) =>
      sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: fresh, messageId: `sns-c${i}` }),
    );
    const results = await Promise.all(bodies.map((b) => v.verify(request(b), NOW)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(sns.fetched.filter((u) => u === fresh.url)).toHaveLength(1);
  });

  it('a certificate that is not valid now, or not there: refused; SNS unreachable: 503 so SNS retries', async () => {
    const expired = await sns.certificate('eu-west-1', { validFrom: Date.UTC(2020, 0, 1), validTo: Date.UTC(2021, 0, 1) });
    expectRefused(
      await verifier().verify(request(sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: expired })), NOW),
      /not valid now/,
    );
    const unserved = await sns.certificate('eu-west-1', { serve: false });
    expectRefused(
      await verifier().verify(request(sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: unserved })), NOW),
      /HTTP 404/,
    );
    const offline = await startSnsFake();
    try {
      const c = await offline.certificate('eu-west-1');
      offline.goOffline();
      const parse = await createSesCallbackVerifier({ topicArns: [TOPIC], fetch: offline.fetch }).verify(
        request(offline.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: c })),
        NOW,
      );
      expect(parse).toMatchObject({ ok: false, status: 503, code: 'service_unavailable' });
    } finally {
      await offline.close();
    }
  });

  it('bodies that are not SNS messages: refused, naming the field and never a value', async () => {
    const v = verifier();
    expectRefused(await v.verify(request(Buffer.from('not json')), NOW), /not JSON/);
    expectRefused(await v.verify(request(Buffer.from('{"Type":"Notification"}')), NOW), /missing/);
    const body = JSON.parse(sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: cert }).toString());
    expectRefused(await v.verify(request(Buffer.from(JSON.stringify({ ...body, SignatureVersion: '3' }))), NOW), /SignatureVersion/);
    expectRefused(await v.verify(request(Buffer.from(JSON.stringify({ ...body, Type: 'Publish' }))), NOW), /Type/);
    const parse = await v.verify(request(Buffer.from(JSON.stringify({ ...body, Signature: 'AAAA' }))), NOW);
    expectRefused(parse);
    expect(JSON.stringify(parse)).not.toContain('ses-msg-1');
  });

  it('a signed notification whose Message is not an SES event is 400', async () => {
    const body = sns.message({ topicArn: TOPIC, message: 'hello', timestampMs: NOW, certificate: cert });
    expect(await verifier().verify(request(body), NOW)).toMatchObject({ ok: false, status: 400, code: 'callback_malformed' });
  });
});

describe('SigningCertURL must be the topic’s own SNS host', () => {
  const path = () => new URL(cert.url).pathname;
  const cases: Array<[string, () => string]> = [
    ['a non-AWS host', () => `https://127.0.0.1${path()}`],
    ['http', () => `http://sns.eu-west-1.amazonaws.com${path()}`],
    ['a look-alike suffix', () => `https://sns.eu-west-1.amazonaws.com.evil.test${path()}`],
    ['a look-alike prefix', () => `https://evil-sns.eu-west-1.amazonaws.com${path()}`],
    ['the host in the path', () => `https://evil.test/sns.eu-west-1.amazonaws.com${path()}`],
    ['userinfo before the host', () => `https://sns.eu-west-1.amazonaws.com@evil.test${path()}`],
    ['userinfo on the host', () => `https://user@sns.eu-west-1.amazonaws.com${path()}`],
    ['an explicit port 443', () => `https://sns.eu-west-1.amazonaws.com:443${path()}`],
    ['another port', () => `https://sns.eu-west-1.amazonaws.com:8443${path()}`],
    ['another region than the topic', () => `https://sns.us-east-1.amazonaws.com${path()}`],
    ['an S3-style host', () => `https://sns.s3-eu-west-1.amazonaws.com${path()}`],
    ['another path', () => 'https://sns.eu-west-1.amazonaws.com/certs/key.pem'],
    ['not a .pem', () => `https://sns.eu-west-1.amazonaws.com${path().replace('.pem', '.crt')}`],
    ['a query string', () => `https://sns.eu-west-1.amazonaws.com${path()}?x=1`],
    ['a trailing dot on the host', () => `https://sns.eu-west-1.amazonaws.com.${path()}`],
  ];
  for (const [name, url] of cases) {
    it(`${name}: refused, nothing fetched`, async () => {
      const before = sns.fetched.length;
      const body = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: cert, signingCertUrl: url() });
      expectRefused(await verifier().verify(request(body), NOW), /SigningCertURL/);
      expect(sns.fetched.length).toBe(before);
    });
  }

  it('the production way out (no injected fetch) refuses a non-AWS host before any I/O', async () => {
    const production = createSesCallbackVerifier({ topicArns: [TOPIC] });
    const body = sns.message({ topicArn: TOPIC, message: delivery, timestampMs: NOW, certificate: cert, signingCertUrl: `https://127.0.0.1${path()}` });
    expectRefused(await production.verify(request(body), NOW), /SigningCertURL/);
    await expect(fetchFromSns(new URL(`http://sns.eu-west-1.amazonaws.com${path()}`), AbortSignal.timeout(1_000))).rejects.toThrow(/https only/);
  });
});

describe('subscription confirmation', () => {
  const confirmation = (over: Partial<Parameters<SnsFake['message']>[0]> = {}) =>
    sns.message({
      type: 'SubscriptionConfirmation',
      topicArn: TOPIC,
      message: `You have chosen to subscribe to the topic ${TOPIC}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
      timestampMs: NOW,
      certificate: cert,
      ...over,
    });

  it('is confirmed by one GET of its https SNS SubscribeURL, however often SNS repeats it', async () => {
    const v = verifier();
    const body = confirmation({ messageId: 'sub-1', token: 'tok-1' });
    const before = sns.confirmations.length;
    const [a, b] = await Promise.all([v.verify(request(body), NOW), v.verify(request(body), NOW)]);
    expect(a).toEqual({ ok: true, events: [] });
    expect(b).toEqual({ ok: true, events: [] });
    expect(await v.verify(request(body), NOW + 20_000)).toEqual({ ok: true, events: [] });
    const made = sns.confirmations.slice(before);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^https:\/\/sns\.eu-west-1\.amazonaws\.com\/\?Action=ConfirmSubscription&TopicArn=.*&Token=tok-1$/);
  });

  it('a SubscribeURL that is not SNS’s, or confirms another topic, is never fetched', async () => {
    const before = [sns.fetched.length, sns.confirmations.length];
    for (const subscribeUrl of [
      'https://evil.test/?Action=ConfirmSubscription',
      `http://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=t`,
      `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${OTHER_TOPIC}&Token=t`,
      `https://sns.eu-west-1.amazonaws.com/?Action=Subscribe&TopicArn=${TOPIC}&Token=t`,
      `https://sns.eu-west-1.amazonaws.com@127.0.0.1/?Action=ConfirmSubscription&TopicArn=${TOPIC}&Token=t`,
    ]) {
      const parse = await verifier().verify(request(confirmation({ subscribeUrl })), NOW);
      expect(parse).toMatchObject({ ok: false, status: 400, code: 'callback_malformed' });
    }
    // Only the certificate was fetched (once, it is cached per verifier), never a SubscribeURL.
    expect(sns.confirmations.length).toBe(before[1]);
    expect(sns.fetched.slice(before[0]).every((u) => u === cert.url)).toBe(true);
  });

  it('a forged confirmation is refused and confirms nothing', async () => {
    const before = sns.confirmations.length;
    const body = confirmation({ certificate: otherCert, signingCertUrl: cert.url });
    expectRefused(await verifier().verify(request(body), NOW));
    expect(sns.confirmations.length).toBe(before);
  });

  it('a confirmation SNS does not accept right now is 503, and the next delivery confirms it', async () => {
    const v = verifier();
    const body = confirmation({ messageId: 'sub-retry' });
    sns.nextConfirmationStatus(500);
    expect(await v.verify(request(body), NOW)).toMatchObject({ ok: false, status: 503 });
    expect(await v.verify(request(body), NOW + 20_000)).toEqual({ ok: true, events: [] });
  });

  it('an UnsubscribeConfirmation is acknowledged and followed nowhere', async () => {
    const before = sns.confirmations.length;
    const body = sns.message({
      type: 'UnsubscribeConfirmation',
      topicArn: TOPIC,
      message: 'You have chosen to deactivate subscription.',
      timestampMs: NOW,
      certificate: cert,
    });
    expect(await verifier().verify(request(body), NOW)).toEqual({ ok: true, events: [] });
    expect(sns.confirmations.length).toBe(before);
  });
});
