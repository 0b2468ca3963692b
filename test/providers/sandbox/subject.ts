/**
 * The sandbox adapter (src/providers/sandbox/) as a conformance subject, against its fake
 * (test/providers/fakes/sandbox.ts), and the sandbox kind's callback verifier as a callback
 * conformance subject, signing exactly what the sandbox posts.
 */
import type { Channel } from '../../../src/domain/index.js';
import { createSandboxAdapter } from '../../../src/providers/sandbox/adapter.js';
import { createSandboxCallbackVerifier } from '../../../src/providers/sandbox/callbacks.js';
import { callbackEventBody } from '../../../src/sandbox/index.js';
import { generateWebhookSecret, signWebhook, WEBHOOK_TOLERANCE_MS } from '../../../src/signing/standard-webhooks.js';
import type { AdapterSubject, ConformanceFake } from '../conformance/adapter-subject.js';
import type { CallbackVerifierSubject } from '../conformance/callback-subject.js';
import { startSandboxFake } from '../fakes/sandbox.js';

const API_KEY = 'sk_canary_5f1e0c77d2a94b3e';
const CALLBACK_SECRET = `whsec_${Buffer.from('canary-callback-secret-32-bytes!').toString('base64')}`;

export const sandboxSubject: AdapterSubject = {
  name: 'sandbox',
  channels: ['email', 'sms', 'push'],
  destinations: {
    email: 'canary.wren+7f3a@example.test',
    sms: '+15550197341',
    push: 'canary-push-token-q8v2c6',
  },
  // The sandbox's rate_limit fault scripts each (`throttle_headers`); its "own" header set is
  // the quota's, Resend's RateLimit-* beside Retry-After.
  throttleHints: { none: true, retry_after_seconds: true, retry_after_date: true, provider_header: true },
  // The sandbox reads `Idempotency-Key: <key>` (Resend's header), the key verbatim.
  idempotency: { carried: (key) => key },
  keyInProgress: { skip: 'the sandbox does not dedupe by key' },
  credentials: [API_KEY, CALLBACK_SECRET],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startSandboxFake({ apiKey: API_KEY });
    return {
      adapter: ({ timeoutMs }) =>
        createSandboxAdapter({
          id: `conformance-sandbox-${channel}`,
          kind: 'sandbox',
          channel,
          base_url: fake.url,
          api_key: API_KEY,
          callback_secrets: [CALLBACK_SECRET],
          rate_per_second: 100,
          burst: 100,
          ambiguity_policy: 'wait_for_evidence',
          timeout_ms: timeoutMs,
        }),
      script: fake.script,
      received: fake.received,
      acceptedIds: fake.acceptedIds,
      close: fake.close,
    };
  },
};

export const sandboxCallbackSubject: CallbackVerifierSubject = {
  name: 'sandbox (Standard Webhooks)',
  newKey: generateWebhookSecret,
  verifier: (keys) => createSandboxCallbackVerifier(keys),
  deliver(event, { key, atMs }) {
    // The sandbox's callbacks carry no destination; a retry re-signs the same bytes.
    const rawBody = callbackEventBody({
      eventId: event.eventId,
      occurredAt: new Date(event.occurredAt),
      providerMessageId: event.providerMessageId,
      reference: event.reference,
      channel: event.channel,
      status: event.status,
    });
    const headers = signWebhook([key], event.eventId, atMs, rawBody);
    return {
      rawBody,
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'herald-sandbox-callbacks' },
      url: 'https://herald.test/v1/callbacks/conformance-sandbox',
    };
  },
  timestamp: { toleranceMs: WEBHOOK_TOLERANCE_MS },
};
