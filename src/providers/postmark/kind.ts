/** The postmark provider kind: e-mail through Postmark's HTTP API (docs/providers/postmark.md). */
import { settle } from '../../schema/setting.js';
import { credentialSource } from '../credentials.js';
import type { ProviderKind } from '../kinds.js';
import { createPostmarkAdapter } from './adapter.js';
import { createPostmarkCallbackVerifier } from './callbacks.js';
import { postmarkDoctor } from './doctor.js';
import { POSTMARK_API_URL, postmarkProblems, postmarkSettingsSchema, readPostmarkSettings } from './settings.js';

export const postmarkKind: ProviderKind = {
  kind: 'postmark',
  channels: ['email'],
  summary: "Postmark's e-mail API (message streams by purpose, look-up by metadata, Basic-auth webhooks)",
  defaults: {
    // Postmark publishes no timeout; 10 s is Herald's, and a timeout is unknown, never failed.
    timeout_ms: 10_000,
    // Postmark publishes no numeric API limit, only a 429 for rates "that exceed acceptable use"
    // (https://postmarkapp.com/developer/api/overview). 10/s (36,000 an hour) is Herald's
    // choice: far above what one transactional server usually sends, low enough not to look
    // like abuse; raise it for campaigns. A 429 pauses the account through the shared limiter.
    rate_per_second: 10,
    burst: 10,
    // The look-up by metadata settles an unknown; this policy applies only if lookup is turned
    // off. No idempotency key: resend_same_key is refused.
    ambiguity_policy: 'wait_for_evidence',
    capabilities: { lookup: true, dedupes_by_key: false },
  },
  settingsSchema: postmarkSettingsSchema,
  check: postmarkProblems,
  createAdapter: createPostmarkAdapter,
  createCallbackVerifier(account) {
    const webhook = readPostmarkSettings(account).webhook;
    return webhook === null ? null : createPostmarkCallbackVerifier(webhook);
  },
  describe(account) {
    const s = settle(postmarkSettingsSchema, account.settings);
    return {
      base_url: account.base_url ?? POSTMARK_API_URL,
      from: s.from,
      ...(s.reply_to === null ? {} : { reply_to: s.reply_to }),
      transactional_stream: s.transactional_stream,
      broadcast_stream: s.broadcast_stream,
      callbacks: credentialSource(account.settings, 'webhook_username') !== null && credentialSource(account.settings, 'webhook_password') !== null,
    };
  },
  doctor: postmarkDoctor,
};
