/** The resend provider kind: e-mail through Resend's HTTP API (docs/providers/resend.md). */
import { settle } from '../../schema/setting.js';
import { resolveCallbackSecrets } from '../callback-secrets.js';
import type { ProviderKind } from '../kinds.js';
import { createResendAdapter } from './adapter.js';
import { createResendCallbackVerifier } from './callbacks.js';
import { resendDoctor } from './doctor.js';
import { RESEND_API_URL, resendProblems, resendSettingsSchema } from './settings.js';

export const resendKind: ProviderKind = {
  kind: 'resend',
  channels: ['email'],
  summary: "Resend's e-mail API (Idempotency-Key, Svix-signed webhooks)",
  defaults: {
    // Resend publishes no timeout; 10 s is Herald's, and a timeout is unknown, never failed.
    timeout_ms: 10_000,
    // "The default maximum rate limit is 2 requests per second per team", across all its API
    // keys (https://resend.com/docs/api-reference/rate-limit). Burst 2: no more than a second's worth at once.
    rate_per_second: 2,
    burst: 2,
    // Resend keeps an Idempotency-Key for 24 h and answers a repeat with the original answer
    // without sending (https://resend.com/docs/dashboard/emails/idempotency-keys), and it has
    // no look-up by Herald's reference: resending with the same key is how an unknown settles.
    ambiguity_policy: 'resend_same_key',
    capabilities: { lookup: false, dedupes_by_key: true },
  },
  settingsSchema: resendSettingsSchema,
  check: resendProblems,
  createAdapter: createResendAdapter,
  createCallbackVerifier(account) {
    const secrets = resolveCallbackSecrets(account);
    return secrets ? createResendCallbackVerifier(secrets) : null;
  },
  describe(account) {
    const s = settle(resendSettingsSchema, account.settings);
    return {
      base_url: account.base_url ?? RESEND_API_URL,
      from: s.from,
      ...(s.reply_to === null ? {} : { reply_to: s.reply_to }),
      callbacks: (account.callback_secrets?.length ?? 0) > 0 || account.callback_secret_env !== undefined,
    };
  },
  doctor: resendDoctor,
};
