/**
 * The Resend adapter (src/providers/resend/) as a conformance subject, against its fake
 * (test/providers/fakes/resend.ts) behind the fault proxy, and the resend kind's callback
 * verifier (Svix-signed webhooks) as a callback conformance subject.
 */
import type { Channel } from '../../../src/domain/index.js';
import { createResendAdapter } from '../../../src/providers/resend/adapter.js';
import { createResendCallbackVerifier } from '../../../src/providers/resend/callbacks.js';
import { generateWebhookSecret, WEBHOOK_TOLERANCE_MS } from '../../../src/signing/standard-webhooks.js';
import type { AdapterSubject, ConformanceFake, ThrottleHint } from '../conformance/adapter-subject.js';
import type { CallbackVerifierSubject } from '../conformance/callback-subject.js';
import { closeProxyAndFake, isTransportFault, scriptTransportFault, startHttpFaultProxy } from '../fakes/proxy-faults.js';
import { resendWebhook, startResendFake, type ResendThrottleHint } from '../fakes/resend.js';

const API_KEY = 're_canary_5f1e0c77d2a94b3e';
const CALLBACK_SECRET = `whsec_${Buffer.from('canary-resend-callback-secret-32').toString('base64')}`;
const HINTS: Record<ThrottleHint, ResendThrottleHint> = {
  none: 'none',
  retry_after_seconds: 'retry_after_seconds',
  retry_after_date: 'retry_after_date',
  // Resend's own: ratelimit-reset (delta-seconds, IETF RateLimit draft) without retry-after.
  provider_header: 'ratelimit_headers',
};

export const resendSubject: AdapterSubject = {
  name: 'resend',
  channels: ['email'],
  destinations: { email: 'canary.wren+7f3a@example.test' },
  // Resend sends retry-after in seconds; the date form and ratelimit-reset alone are read too.
  throttleHints: { none: true, retry_after_seconds: true, retry_after_date: true, provider_header: true },
  // Idempotency-Key: <key>, verbatim.
  idempotency: { carried: (key) => key },
  // 409 concurrent_idempotent_requests: "safe to retry this request later".
  keyInProgress: true,
  credentials: [API_KEY, CALLBACK_SECRET],
  async start(channel: Channel): Promise<ConformanceFake> {
    const fake = await startResendFake({ apiKey: API_KEY });
    const proxy = await startHttpFaultProxy(fake.url);
    return {
      adapter: ({ timeoutMs }) =>
        createResendAdapter({
          id: `conformance-resend-${channel}`,
          kind: 'resend',
          channel,
          base_url: proxy.url,
          settings: { api_key: API_KEY, from: 'Herald <noreply@herald.test>' },
          callback_secrets: [CALLBACK_SECRET],
          rate_per_second: 100,
          burst: 100,
          ambiguity_policy: 'resend_same_key',
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
            fake.script({ kind: 'server_error' });
            return;
          case 'throttled':
            fake.script({ kind: 'throttled', hint: HINTS[answer.hint], seconds: answer.seconds });
            return;
          case 'accept_held':
            fake.script({ kind: 'held' });
            return;
        }
      },
      release: async () => fake.release(),
      received: async () => fake.received.map((r) => ({ carriedKey: r.idempotencyKey })),
      acceptedIds: async () => fake.emails.map((e) => e.id),
      close: () => closeProxyAndFake(proxy, fake),
    };
  },
};

const EVENT_TYPES = { sent: 'email.sent', delivered: 'email.delivered', failed: 'email.failed' } as const;

export const resendCallbackSubject: CallbackVerifierSubject = {
  name: 'resend (Svix)',
  newKey: generateWebhookSecret,
  verifier: (keys) => createResendCallbackVerifier(keys),
  deliver(event, { key, atMs }) {
    // Svix retries an event under the same svix-id and body, signed again at the attempt's time.
    return resendWebhook(
      { type: EVENT_TYPES[event.status], emailId: event.providerMessageId, reference: event.reference, createdAt: new Date(event.occurredAt).toISOString() },
      { secrets: [key], svixId: event.eventId, atMs },
    );
  },
  timestamp: { toleranceMs: WEBHOOK_TOLERANCE_MS },
};
