/**
 * The APNs adapter (src/providers/apns/) as a conformance subject, against its fake
 * (test/providers/fakes/apns.ts): HTTP/2 over TLS, which the fault proxy cannot frame, so the fake
 * injects the faults itself (RST_STREAM while the body is written, a TCP reset after it, a hang,
 * bytes that are not TLS, a closed port).
 *
 * APNs takes no idempotency key; every attempt of a delivery carries the same `apns-collapse-id`
 * (and `apns-id`), which the suite checks: it is what the kind's resend_same_key default rests on
 * (docs/providers/apns.md).
 */
import type { Channel } from '../../../src/domain/index.js';
import { encodePushTarget } from '../../../src/domain/index.js';
import { createApnsAdapter } from '../../../src/providers/apns/adapter.js';
import { pushCollapseId } from '../../../src/providers/push/identity.js';
import type { AdapterSubject, ConformanceFake, ScriptedAnswer } from '../conformance/adapter-subject.js';
import { apnsSigningKeys, startApnsFake, type ApnsFake } from '../fakes/apns.js';
import { pushTestAccount } from '../../helpers/push-adapter-fixtures.js';

const KEY_ID = 'ABC123DEFG';
const NO_RETRY_AFTER = { skip: 'APNs documents no Retry-After and no rate-limit header: a 429 says only its reason' } as const;

function script(fake: ApnsFake, answer: ScriptedAnswer): void {
  switch (answer.kind) {
    case 'accept':
      return;
    case 'permanent':
      return fake.script({ kind: 'answer', reason: 'Unregistered' });
    case 'retryable':
      return fake.script({ kind: 'answer', reason: 'ServiceUnavailable' });
    case 'throttled':
      return fake.script({ kind: 'answer', reason: 'TooManyRequests' });
    case 'refuse_connection':
      return fake.refuse();
    case 'reset_while_writing':
      return fake.script({ kind: 'rst_while_writing' });
    case 'reset_after_write':
      return fake.script({ kind: 'reset_connection' });
    case 'hang':
      return fake.script({ kind: 'hang' });
    case 'malformed_answer':
      return fake.script({ kind: 'garbage', canaries: answer.canaries });
    case 'slow_answer':
      return fake.script({ kind: 'slow', delayMs: answer.delayMs });
  }
}

export const apnsSubject: AdapterSubject = {
  name: 'apns',
  channels: ['push'],
  destinations: { push: encodePushTarget({ type: 'apns', token: 'ca1a2b3c'.repeat(8), environment: 'production' }) },
  throttleHints: { none: true, retry_after_seconds: NO_RETRY_AFTER, retry_after_date: NO_RETRY_AFTER, provider_header: NO_RETRY_AFTER },
  idempotency: { carried: (key) => pushCollapseId(key) },
  keyInProgress: { skip: 'APNs dedupes by apns-collapse-id on the device; the service holds no key in progress and has no such answer' },
  // The .p8 key, and every provider token's signed header (the same for all of them).
  credentials: [apnsSigningKeys().pem.split('\n')[1]!, Buffer.from(JSON.stringify({ alg: 'ES256', kid: KEY_ID })).toString('base64url')],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startApnsFake();
    return {
      adapter: ({ timeoutMs }) => {
        const settings = { key_id: fake.keyId, team_id: fake.teamId, topic: fake.topic, signing_key: fake.signingKeyPem, ca_file: fake.caFile };
        return createApnsAdapter(pushTestAccount('apns', fake.url, settings, { id: `conformance-apns-${channel}`, channel, timeout_ms: timeoutMs }));
      },
      script: async (answer) => script(fake, answer),
      received: async () => fake.requests.map((r) => ({ carriedKey: r.headers['apns-collapse-id'] ?? null })),
      acceptedIds: async () => [...fake.accepted],
      close: fake.close,
    };
  },
};
