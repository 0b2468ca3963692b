/** The twilio provider kind: SMS through Twilio Programmable Messaging (docs/providers/twilio.md). */
import { settle } from '../../schema/setting.js';
import type { ProviderKind } from '../kinds.js';
import { createTwilioAdapter, twilioCallbackVerifier, twilioInboundReceiver } from './adapter.js';
import { twilioDoctor } from './doctor.js';
import { readTwilioSettings, TWILIO_API_URL, twilioProblems, twilioSettingsSchema } from './settings.js';

export const twilioKind: ProviderKind = {
  kind: 'twilio',
  channels: ['sms'],
  summary: 'Twilio Programmable Messaging (SMS; ValidityPeriod from expiry; signed status callbacks)',
  defaults: {
    // Twilio publishes no client timeout; 10 s is Herald's, and a timeout is unknown, never failed.
    timeout_ms: 10_000,
    // "A US long code number can send one message segment per second" (errors 30001/21611);
    // toll-free ~3, short codes 100+. Above it Twilio queues, and an OTP waits: 1/s is the
    // conservative default for one long code. Set yours (docs/providers/twilio.md).
    rate_per_second: 1,
    burst: 1,
    // No idempotency key and no look-up by Herald's reference: an unknown waits for the signed
    // status callback, whose URL carries the delivery's key.
    ambiguity_policy: 'wait_for_evidence',
    capabilities: { lookup: false, dedupes_by_key: false },
  },
  settingsSchema: twilioSettingsSchema,
  check: twilioProblems,
  createAdapter: createTwilioAdapter,
  createCallbackVerifier: (account) => twilioCallbackVerifier(account, readTwilioSettings(account)),
  createInboundReceiver: (account) => twilioInboundReceiver(account, readTwilioSettings(account)),
  describe(account) {
    const s = settle(twilioSettingsSchema, account.settings);
    return {
      base_url: account.base_url ?? TWILIO_API_URL,
      account_sid: s.account_sid,
      auth: s.auth,
      ...(s.api_key_sid === null ? {} : { api_key_sid: s.api_key_sid }),
      ...(s.from === null ? {} : { from: s.from }),
      ...(s.messaging_service_sid === null ? {} : { messaging_service_sid: s.messaging_service_sid }),
    };
  },
  doctor: twilioDoctor,
};
