/** The telnyx provider kind: SMS through Telnyx Messaging (docs/providers/telnyx.md). */
import { settle } from '../../schema/setting.js';
import type { ProviderKind } from '../kinds.js';
import { createTelnyxAdapter, telnyxCallbackVerifier } from './adapter.js';
import { telnyxDoctor } from './doctor.js';
import { readTelnyxSettings, TELNYX_API_URL, telnyxProblems, telnyxSettingsSchema } from './settings.js';

export const telnyxKind: ProviderKind = {
  kind: 'telnyx',
  channels: ['sms'],
  summary: 'Telnyx Messaging (SMS; Idempotency-Key; Ed25519-signed webhooks)',
  defaults: {
    // Telnyx publishes no client timeout; 10 s is Herald's, and a timeout is unknown, never failed.
    timeout_ms: 10_000,
    // Telnyx's defaults: account 50 msg/s, long code far less (its rate-limit guide; 10DLC
    // throughput is set per campaign), toll-free 20, short code 1,000. Above a sender's rate
    // Telnyx queues, and an OTP waits: 1/s is the conservative default. Set yours.
    rate_per_second: 1,
    burst: 1,
    // Telnyx's idempotency page says to send Idempotency-Key only where an endpoint's reference
    // declares it, and neither the reference for POST /v2/messages nor the SDK generated from it
    // does: that the messages endpoint dedupes is not shown, so a lost answer is not resent
    // blindly (docs/providers/telnyx.md, "Default ambiguity policy"). An operator who has
    // Telnyx's word for it declares dedupes_by_key and chooses resend_same_key.
    ambiguity_policy: 'wait_for_evidence',
    capabilities: { lookup: false, dedupes_by_key: false },
  },
  settingsSchema: telnyxSettingsSchema,
  check: telnyxProblems,
  createAdapter: createTelnyxAdapter,
  createCallbackVerifier: (account) => telnyxCallbackVerifier(readTelnyxSettings(account)),
  describe(account) {
    const s = settle(telnyxSettingsSchema, account.settings);
    return {
      base_url: account.base_url ?? TELNYX_API_URL,
      ...(s.from === null ? {} : { from: s.from }),
      ...(s.messaging_profile_id === null ? {} : { messaging_profile_id: s.messaging_profile_id }),
      webhooks_verified: s.public_key !== null,
    };
  },
  doctor: telnyxDoctor,
};
