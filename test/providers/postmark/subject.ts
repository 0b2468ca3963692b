/**
 * The Postmark adapter (src/providers/postmark/) as a conformance subject, against its fake
 * (test/providers/fakes/postmark.ts) behind the fault proxy, and the postmark kind's webhook
 * authentication (Basic credentials in the URL) as a callback conformance subject.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Channel } from '../../../src/domain/index.js';
import { createPostmarkAdapter } from '../../../src/providers/postmark/adapter.js';
import { createPostmarkCallbackVerifier } from '../../../src/providers/postmark/callbacks.js';
import type { AdapterSubject, ConformanceFake } from '../conformance/adapter-subject.js';
import type { CallbackVerifierSubject } from '../conformance/callback-subject.js';
import { closeProxyAndFake, isTransportFault, scriptTransportFault, startHttpFaultProxy } from '../fakes/proxy-faults.js';
import { postmarkRecords, postmarkWebhook, startPostmarkFake } from '../fakes/postmark.js';

const SERVER_TOKEN = 'pm-canary-2b7d9e41-5c3a';
const WEBHOOK_PASSWORD = 'pm-webhook-canary-77c1';
const NO_HEADER = 'Postmark documents no Retry-After or rate-limit header on its 429';

export const postmarkSubject: AdapterSubject = {
  name: 'postmark',
  channels: ['email'],
  destinations: { email: 'canary.wren+7f3a@example.test' },
  throttleHints: { none: true, retry_after_seconds: { skip: NO_HEADER }, retry_after_date: { skip: NO_HEADER }, provider_header: { skip: NO_HEADER } },
  // No idempotency key: the reference travels as Metadata.herald_reference on every attempt,
  // which is what the look-up searches by.
  idempotency: { carried: (key) => key },
  keyInProgress: { skip: 'Postmark documents no idempotency key, so no key is ever in progress' },
  credentials: [SERVER_TOKEN, WEBHOOK_PASSWORD],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startPostmarkFake({ serverToken: SERVER_TOKEN });
    const proxy = await startHttpFaultProxy(fake.url);
    return {
      adapter: ({ timeoutMs }) =>
        createPostmarkAdapter({
          id: `conformance-postmark-${channel}`,
          kind: 'postmark',
          channel,
          base_url: proxy.url,
          settings: { server_token: SERVER_TOKEN, from: 'Herald <noreply@herald.test>', webhook_username: 'herald', webhook_password: WEBHOOK_PASSWORD },
          rate_per_second: 100,
          burst: 100,
          ambiguity_policy: 'wait_for_evidence',
          timeout_ms: timeoutMs,
        }),
      script: async (answer) => {
        if (isTransportFault(answer)) return scriptTransportFault(proxy, answer);
        switch (answer.kind) {
          case 'accept':
            return;
          case 'permanent':
            fake.script({ kind: 'permanent' });
            return;
          case 'retryable':
            // 503: a planned outage, documented as such; Postmark's 500 may hide a send (unknown).
            fake.script({ kind: 'unavailable' });
            return;
          case 'throttled':
            fake.script({ kind: 'throttled' });
            return;
        }
      },
      received: async () =>
        fake.received.map((r) => {
          const metadata = r.json?.Metadata as Record<string, unknown> | undefined;
          return { carriedKey: typeof metadata?.herald_reference === 'string' ? metadata.herald_reference : null };
        }),
      acceptedIds: async () => fake.messages.map((m) => m.MessageID),
      close: () => closeProxyAndFake(proxy, fake),
    };
  },
};

function pair(key: string): { username: string; password: string } {
  const colon = key.indexOf(':');
  return { username: key.slice(0, colon), password: key.slice(colon + 1) };
}

export const postmarkCallbackSubject: CallbackVerifierSubject = {
  name: 'postmark (Basic credentials in the URL)',
  // As an account lists it: the user and password of the webhook URL.
  newKey: () => `herald-${randomBytes(3).toString('hex')}:${randomBytes(12).toString('base64url')}`,
  verifier: (keys) => createPostmarkCallbackVerifier(keys.map(pair)),
  deliver(event, { key }) {
    // Postmark retries a webhook with the same body, and signs nothing, so `atMs` plays no part.
    // It reports no "sent": the sample's sent event goes as the record that precedes delivery,
    // a Transient bounce ("message delayed"), which has its own id.
    const at = new Date(event.occurredAt).toISOString();
    const bounceId = Number.parseInt(createHash('sha256').update(event.eventId).digest('hex').slice(0, 12), 16);
    const record =
      event.status === 'delivered'
        ? postmarkRecords.delivery(event.providerMessageId, event.reference, at)
        : {
            ...postmarkRecords.bounce(event.providerMessageId, event.reference, event.status === 'failed' ? 'SMTPApiError' : 'Transient', bounceId),
            BouncedAt: at,
          };
    return postmarkWebhook(record, pair(key));
  },
  timestamp: { skip: 'Postmark signs nothing, so there is no timestamp to be stale' },
  unsignedBody: { skip: 'Postmark signs no body: its webhooks carry only the Basic credentials of the URL, over HTTPS' },
};
