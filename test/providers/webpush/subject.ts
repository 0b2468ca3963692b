/**
 * The Web Push adapter (src/providers/webpush/) as a conformance subject, against its fake push
 * service (test/providers/fakes/webpush.ts) behind the fault proxy, with one subscription made as
 * a browser makes it.
 *
 * Web Push takes no idempotency key; every attempt of a delivery carries the same `Topic`, which
 * the suite checks: it is what the kind's resend_same_key default rests on
 * (docs/providers/webpush.md). The adapter refuses a payload over RFC 8291's 3993 octets before
 * encrypting it, so the many-megabyte reset-while-writing scenario does not apply.
 */
import webpush from 'web-push';
import type { Channel } from '../../../src/domain/index.js';
import { encodePushTarget } from '../../../src/domain/index.js';
import { pushCollapseId } from '../../../src/providers/push/identity.js';
import { createWebPushAdapter } from '../../../src/providers/webpush/adapter.js';
import type { AdapterSubject, ConformanceFake, ScriptedAnswer } from '../conformance/adapter-subject.js';
import { browserSubscription, startWebPushFake, type WebPushFake } from '../fakes/webpush.js';
import { isTransportFault, scriptTransportFault } from '../fakes/proxy-faults.js';
import { pushTestAccount } from '../../helpers/push-adapter-fixtures.js';

const VAPID = webpush.generateVAPIDKeys();
const BROWSER = browserSubscription();

function script(fake: WebPushFake, answer: ScriptedAnswer): void {
  if (isTransportFault(answer)) return scriptTransportFault(fake.proxy, answer);
  switch (answer.kind) {
    case 'accept':
      return;
    case 'permanent':
      return fake.script({ kind: 'answer', name: 'gone' });
    case 'retryable':
      return fake.script({ kind: 'answer', name: 'server_error' });
    case 'throttled':
      if (answer.hint === 'none') return fake.script({ kind: 'answer', name: 'rate_limited_no_hint' });
      return fake.script({
        kind: 'answer',
        name: 'rate_limited',
        headers: { 'retry-after': answer.hint === 'retry_after_seconds' ? String(answer.seconds) : new Date(Date.now() + answer.seconds * 1000).toUTCString() },
      });
  }
}

export const webPushSubject: AdapterSubject = {
  name: 'webpush',
  channels: ['push'],
  destinations: { push: encodePushTarget(BROWSER.target) },
  throttleHints: {
    none: true,
    retry_after_seconds: true,
    retry_after_date: true,
    provider_header: { skip: 'push services send no rate-limit header of their own; RFC 8030 §8.4 names Retry-After only' },
  },
  idempotency: { carried: (key) => pushCollapseId(key) },
  keyInProgress: { skip: 'push services replace by Topic on delivery; none holds a key in progress or has such an answer' },
  largeRequests: { skip: 'the adapter refuses a payload over 3993 octets (RFC 8291 §4) before encrypting it: nothing of many megabytes is ever written' },
  // The VAPID private key, and the subscriber's auth secret.
  credentials: [VAPID.privateKey, BROWSER.target.keys.auth],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startWebPushFake({ vapidPublicKey: VAPID.publicKey, subscribers: [BROWSER.subscriber] });
    return {
      adapter: ({ timeoutMs }) => {
        const settings = { vapid_subject: 'mailto:ops@herald.example', vapid_public_key: VAPID.publicKey, vapid_private_key: VAPID.privateKey };
        return createWebPushAdapter(pushTestAccount('webpush', fake.url, settings, { id: `conformance-webpush-${channel}`, channel, timeout_ms: timeoutMs }));
      },
      script: async (answer) => script(fake, answer),
      received: async () => fake.received().map((r) => ({ carriedKey: r.headers.topic ?? null })),
      acceptedIds: async () => fake.delivered.map((d) => d.location),
      close: fake.close,
    };
  },
};
