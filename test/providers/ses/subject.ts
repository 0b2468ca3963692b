/**
 * The SES adapter (src/providers/ses/) as a conformance subject: the SigV4-verifying SES fake
 * (test/providers/fakes/ses.ts) behind the fault proxy. Definite answers come from the fake in
 * SES's format (400 MessageRejected quoting the address, 503 ServiceUnavailable, 429
 * TooManyRequestsException); transport faults from the proxy. And the SES kind's SNS verifier
 * as a callback subject: a "key" is a signing certificate (PEM) made by the test, served at its
 * own sns.<region>.amazonaws.com URL by an in-memory way out that knows only the listed ones.
 */
import type { Channel } from '../../../src/domain/index.js';
import { createSesAdapter } from '../../../src/providers/ses/adapter.js';
import { createSesCallbackVerifier, SNS_MAX_AGE_MS } from '../../../src/providers/ses/callbacks.js';
import type { SnsFetch } from '../../../src/providers/ses/sns-certificates.js';
import type { AdapterSubject, ConformanceFake, ScriptedAnswer } from '../conformance/adapter-subject.js';
import type { CallbackVerifierSubject } from '../conformance/callback-subject.js';
import { closeProxyAndFake, isTransportFault, scriptTransportFault, startHttpFaultProxy } from '../fakes/proxy-faults.js';
import { startSesFake } from '../fakes/ses.js';
import { makeTestCertificate, sesEvent, signSnsMessage, type TestCertificate } from '../fakes/sns.js';

const REGION = 'eu-west-1';
const KEY_ID = 'AKIACANARY5F1E0C77D2';
const SECRET = 'canary-secret-access-key-a94b3e-7f3a-q8v2c6';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:herald-conformance';
const NO_HINT = { skip: 'SES sends no Retry-After and no rate-limit headers (SES Developer Guide, manage-sending-quotas-errors)' };

export const sesSubject: AdapterSubject = {
  name: 'ses',
  channels: ['email'],
  destinations: { email: 'canary.wren+7f3a@example.test' },
  throttleHints: { none: true, retry_after_seconds: NO_HINT, retry_after_date: NO_HINT, provider_header: NO_HINT },
  // SES has no idempotency key; Herald's key travels verbatim as the message tag herald_reference.
  idempotency: { carried: (key) => key },
  keyInProgress: { skip: 'SendEmail has no idempotency key, so no key is ever in progress' },
  credentials: [KEY_ID, SECRET],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startSesFake({ region: REGION, accessKeyId: KEY_ID, secretAccessKey: SECRET });
    const proxy = await startHttpFaultProxy(fake.url);
    const script = async (answer: ScriptedAnswer): Promise<void> => {
      if (isTransportFault(answer)) return scriptTransportFault(proxy, answer);
      switch (answer.kind) {
        case 'accept':
          return;
        case 'permanent':
        case 'retryable':
          fake.script({ kind: answer.kind });
          return;
        case 'throttled':
          if (answer.hint !== 'none') throw new Error(`SES sends no ${answer.hint}`);
          fake.script({ kind: 'throttled' });
          return;
      }
    };
    return {
      adapter: ({ timeoutMs }) =>
        createSesAdapter({
          id: `conformance-ses-${channel}`,
          kind: 'ses',
          channel,
          base_url: proxy.url,
          settings: { region: REGION, from: 'Herald <no-reply@example.com>', access_key_id: KEY_ID, secret_access_key: SECRET },
          rate_per_second: 100,
          burst: 100,
          ambiguity_policy: 'wait_for_evidence',
          timeout_ms: timeoutMs,
        }),
      script,
      received: async () => fake.sends().map((r) => ({ carriedKey: r.carriedKey })),
      acceptedIds: async () => fake.acceptedIds(),
      close: () => closeProxyAndFake(proxy, fake),
    };
  },
};

// Certificates take an RSA key each: made once, handed out by newKey().
const CERTIFICATES: TestCertificate[] = await Promise.all(Array.from({ length: 4 }, () => makeTestCertificate(REGION)));
let handedOut = 0;

const SES_EVENT = { sent: 'Send', delivered: 'Delivery', failed: 'Reject' } as const;

export const sesCallbackSubject: CallbackVerifierSubject = {
  name: 'ses (SNS X.509 signatures)',
  newKey() {
    const certificate = CERTIFICATES[handedOut++ % CERTIFICATES.length]!;
    return certificate.pem;
  },
  verifier(keys) {
    // What SNS would serve: only the listed certificates, each at its own URL.
    const served = new Map(CERTIFICATES.filter((c) => keys.includes(c.pem)).map((c) => [c.url, c.pem] as const));
    const fetch: SnsFetch = async (url) => {
      const pem = served.get(url.href);
      return pem === undefined ? { status: 404, body: '' } : { status: 200, body: pem };
    };
    return createSesCallbackVerifier({ topicArns: [TOPIC], fetch });
  },
  deliver(event, { key, atMs }) {
    const certificate = CERTIFICATES.find((c) => c.pem === key);
    if (!certificate) throw new Error('not a key this subject made');
    const message = sesEvent(SES_EVENT[event.status], { messageId: event.providerMessageId, reference: event.reference, destination: event.destination });
    // SNS's MessageId is the event id, the same on every delivery of one event.
    const rawBody = signSnsMessage({ topicArn: TOPIC, message, messageId: event.eventId, timestampMs: atMs, certificate });
    return {
      rawBody,
      headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
      url: 'https://herald.test/v1/callbacks/conformance-ses',
    };
  },
  timestamp: { toleranceMs: SNS_MAX_AGE_MS },
};
