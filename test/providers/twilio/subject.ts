/**
 * The Twilio adapter (src/providers/twilio/) as a conformance subject, against its fake
 * (test/providers/fakes/twilio.ts), and its status-callback verifier as a callback subject,
 * signed with the official `twilio` package exactly as Twilio signs.
 */
import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import type { Channel } from '../../../src/domain/index.js';
import { createTwilioAdapter } from '../../../src/providers/twilio/adapter.js';
import { statusCallbackUrl } from '../../../src/providers/twilio/build-request.js';
import { createTwilioCallbackVerifier } from '../../../src/providers/twilio/callbacks.js';
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import type { AdapterSubject, ConformanceFake } from '../conformance/adapter-subject.js';
import type { CallbackVerifierSubject } from '../conformance/callback-subject.js';
import { startTwilioFake } from '../fakes/twilio.js';

export const TWILIO_ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';
export const TWILIO_AUTH_TOKEN = 'canary-twilio-token-6d1f0a9b3c2e';
export const TWILIO_FROM = '+15005550006';

/** A Twilio account configured against `baseUrl`. */
export function twilioAccount(baseUrl: string, over: Partial<ProviderAccountConfig> = {}): ProviderAccountConfig {
  return {
    id: 'conformance-twilio',
    kind: 'twilio',
    channel: 'sms',
    base_url: baseUrl,
    settings: { account_sid: TWILIO_ACCOUNT_SID, auth_token: TWILIO_AUTH_TOKEN, from: TWILIO_FROM },
    rate_per_second: 100,
    burst: 100,
    ambiguity_policy: 'wait_for_evidence',
    timeout_ms: 10_000,
    ...over,
  };
}

export const twilioSubject: AdapterSubject = {
  name: 'twilio',
  channels: ['sms'],
  destinations: { sms: '+15550197342' },
  throttleHints: {
    none: true,
    retry_after_seconds: true,
    retry_after_date: true,
    provider_header: { skip: 'Twilio sends no rate-limit header that says when to come back (Twilio-Concurrent-Requests is a count)' },
  },
  idempotency: { skip: "Twilio's Messages API takes no idempotency key (unknowns wait for the signed status callback)" },
  keyInProgress: { skip: "Twilio's Messages API takes no idempotency key" },
  credentials: [TWILIO_AUTH_TOKEN],
  async start(channel: Channel): Promise<ConformanceFake> {
    if (channel !== 'sms') throw new Error('twilio sends sms');
    const fake = await startTwilioFake({ accountSid: TWILIO_ACCOUNT_SID, authToken: TWILIO_AUTH_TOKEN, numbers: [TWILIO_FROM] });
    return {
      adapter: ({ timeoutMs }) =>
        createTwilioAdapter(twilioAccount(fake.url, { timeout_ms: timeoutMs }), { callbackUrl: 'https://herald.test/v1/callbacks/conformance-twilio' }),
      script: fake.script,
      received: fake.received,
      acceptedIds: fake.acceptedIds,
      close: fake.close,
    };
  },
};

export const twilioCallbackSubject: CallbackVerifierSubject = {
  name: 'twilio (X-Twilio-Signature)',
  newKey: () => randomBytes(16).toString('hex'),
  verifier: (keys) => createTwilioCallbackVerifier(keys),
  deliver(event, { key }) {
    // Twilio retries a callback with the same parameters; nothing in it depends on when it is sent.
    const url = statusCallbackUrl('https://herald.test/v1/callbacks/conformance-twilio', event.reference);
    const params: Record<string, string> = {
      AccountSid: TWILIO_ACCOUNT_SID,
      ApiVersion: '2010-04-01',
      From: TWILIO_FROM,
      MessageSid: event.providerMessageId,
      MessageStatus: event.status,
      SmsSid: event.providerMessageId,
      SmsStatus: event.status,
      To: event.destination,
      ...(event.status === 'failed' ? { ErrorCode: '30003' } : {}),
    };
    return {
      rawBody: Buffer.from(new URLSearchParams(params).toString()),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(key, url, params) },
      url,
    };
  },
  timestamp: { skip: "Twilio's HMAC-SHA1 signs no timestamp; a replay repeats a derived event id, which dedupes" },
};
