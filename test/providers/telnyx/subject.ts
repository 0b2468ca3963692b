/**
 * The Telnyx adapter (src/providers/telnyx/) as a conformance subject, against its fake
 * (test/providers/fakes/telnyx.ts), and its Ed25519 webhook verifier as a callback subject.
 */
import type { KeyObject } from 'node:crypto';
import type { Channel } from '../../../src/domain/index.js';
import { createTelnyxAdapter } from '../../../src/providers/telnyx/adapter.js';
import { telnyxIdempotencyKey } from '../../../src/providers/telnyx/build-request.js';
import { createTelnyxCallbackVerifier, TELNYX_TOLERANCE_MS } from '../../../src/providers/telnyx/callbacks.js';
import { decodePublicKey } from '../../../src/providers/telnyx/settings.js';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import type { AdapterSubject, ConformanceFake } from '../conformance/adapter-subject.js';
import type { CallbackVerifierSubject } from '../conformance/callback-subject.js';
import { signTelnyxWebhook, startTelnyxFake, telnyxKeyPair, telnyxWebhookBody } from '../fakes/telnyx.js';

export const TELNYX_API_KEY = 'KEYcanary0telnyx0b7e2f91c4d8';
export const TELNYX_FROM = '+15005550007';

/** A Telnyx account configured against `baseUrl`. */
export function telnyxAccount(baseUrl: string, over: Partial<ProviderAccountConfig> = {}, settings: Record<string, unknown> = {}): ProviderAccountConfig {
  return {
    id: 'conformance-telnyx',
    kind: 'telnyx',
    channel: 'sms',
    base_url: baseUrl,
    settings: { api_key: TELNYX_API_KEY, from: TELNYX_FROM, ...settings },
    rate_per_second: 100,
    burst: 100,
    ambiguity_policy: 'resend_same_key',
    capabilities: { lookup: false, dedupes_by_key: true },
    timeout_ms: 10_000,
    ...over,
  };
}

export const telnyxSubject: AdapterSubject = {
  name: 'telnyx',
  channels: ['sms'],
  destinations: { sms: '+15550197343' },
  // Telnyx's rate-limit header is x-ratelimit-reset (seconds until the window resets).
  throttleHints: { none: true, retry_after_seconds: true, retry_after_date: true, provider_header: true },
  idempotency: { carried: (key) => telnyxIdempotencyKey(key) },
  // 409 "a request with this key is already in progress".
  keyInProgress: true,
  credentials: [TELNYX_API_KEY],
  async start(channel: Channel): Promise<ConformanceFake> {
    if (channel !== 'sms') throw new Error('telnyx sends sms');
    const fake = await startTelnyxFake({ apiKey: TELNYX_API_KEY, numbers: [TELNYX_FROM] });
    return {
      adapter: ({ timeoutMs }) =>
        createTelnyxAdapter(telnyxAccount(fake.url, { timeout_ms: timeoutMs }, { public_key: fake.publicKey }), {
          callbackUrl: 'https://herald.test/v1/callbacks/conformance-telnyx',
        }),
      script: fake.script,
      received: fake.received,
      acceptedIds: fake.acceptedIds,
      release: fake.release,
      close: fake.close,
    };
  },
};

// The private half of every key pair the callback subject handed out, by public key.
const privateKeys = new Map<string, KeyObject>();

export const telnyxCallbackSubject: CallbackVerifierSubject = {
  name: 'telnyx (Ed25519)',
  newKey() {
    const { privateKey, publicKey } = telnyxKeyPair();
    privateKeys.set(publicKey, privateKey);
    return publicKey;
  },
  verifier: (keys) => createTelnyxCallbackVerifier(keys.map((k) => decodePublicKey(k)!)),
  deliver(event, { key, atMs }) {
    const rawBody = telnyxWebhookBody({
      eventId: event.eventId,
      eventType: event.status === 'sent' ? 'message.sent' : 'message.finalized',
      messageId: event.providerMessageId,
      to: event.destination,
      status: event.status === 'failed' ? 'delivery_failed' : event.status,
      occurredAt: new Date(event.occurredAt),
    });
    const privateKey = privateKeys.get(key);
    if (!privateKey) throw new Error('not a key this subject made');
    return { rawBody, headers: signTelnyxWebhook(privateKey, rawBody, Math.floor(atMs / 1000)), url: 'https://herald.test/v1/callbacks/conformance-telnyx' };
  },
  timestamp: { toleranceMs: TELNYX_TOLERANCE_MS },
};
