/**
 * The FCM adapter (src/providers/fcm/) as a conformance subject, against its fake
 * (test/providers/fakes/fcm.ts): FCM behind the fault proxy, Google's token endpoint beside it.
 *
 * FCM takes no idempotency key. What every attempt of a delivery carries instead is its collapse
 * identity (`android.collapse_key`, and the same value as notification tag, `apns-collapse-id`
 * and Web Push `Topic`): the suite checks that one, which is what the kind's resend_same_key
 * default rests on (docs/providers/fcm.md).
 */
import type { Channel } from '../../../src/domain/index.js';
import { createFcmAdapter } from '../../../src/providers/fcm/adapter.js';
import { pushCollapseId } from '../../../src/providers/push/identity.js';
import type { AdapterSubject, ConformanceFake, ScriptedAnswer } from '../conformance/adapter-subject.js';
import { ACCESS_TOKEN_PREFIX, serviceAccountKeys, startFcmFake, type FcmFake } from '../fakes/fcm.js';
import { isTransportFault, scriptTransportFault } from '../fakes/proxy-faults.js';
import { pushTestAccount } from '../../helpers/push-adapter-fixtures.js';

function script(fake: FcmFake, answer: ScriptedAnswer): void {
  if (isTransportFault(answer)) return scriptTransportFault(fake.proxy, answer);
  switch (answer.kind) {
    case 'accept':
      return;
    case 'permanent':
      fake.script({ kind: 'answer', name: 'unregistered' });
      return;
    case 'retryable':
      fake.script({ kind: 'answer', name: 'unavailable' });
      return;
    case 'throttled':
      // FCM advises a minimum initial delay of 1 minute for the project's quota, which the
      // adapter applies as a floor; a throttle without any hint is the device's message rate.
      if (answer.hint === 'none') fake.script({ kind: 'answer', name: 'device_quota' });
      else {
        const retryAfter = answer.hint === 'retry_after_seconds' ? String(answer.seconds) : new Date(Date.now() + answer.seconds * 1000).toUTCString();
        fake.script({ kind: 'answer', name: 'project_quota', headers: { 'retry-after': retryAfter } });
      }
      return;
  }
}

export const fcmSubject: AdapterSubject = {
  name: 'fcm',
  channels: ['push'],
  destinations: { push: 'canary-fcm-token-q8v2c6:APA91bHcanary' },
  throttleHints: {
    none: true,
    retry_after_seconds: true,
    retry_after_date: true,
    provider_header: { skip: 'FCM sends no rate-limit header of its own; a 429 carries at most Retry-After' },
  },
  idempotency: { carried: (key) => pushCollapseId(key) },
  keyInProgress: { skip: 'FCM dedupes by collapse key on the device; the service holds no key in progress and has no such answer' },
  // The service account's private key, and every access token the fake issues.
  credentials: [serviceAccountKeys().privateKeyPem.split('\n')[1]!, ACCESS_TOKEN_PREFIX],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startFcmFake();
    return {
      adapter: ({ timeoutMs }) => {
        const settings = { service_account: fake.serviceAccountJson };
        return createFcmAdapter(pushTestAccount('fcm', fake.url, settings, { id: `conformance-fcm-${channel}`, channel, timeout_ms: timeoutMs }));
      },
      script: async (answer) => script(fake, answer),
      received: async () => fake.sends().map((s) => ({ carriedKey: (s.body?.message?.android?.collapse_key as string | undefined) ?? null })),
      acceptedIds: async () => [...fake.accepted],
      close: fake.close,
    };
  },
};
