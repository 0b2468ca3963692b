/**
 * The Amazon SES kind (API v2): e-mail through SendEmail, evidence through SES event
 * publishing to SNS. docs/providers/ses.md gives the setup and the source of every default.
 */
import type { ProviderAccountConfig } from '../provider.js';
import type { AccountProblem, ProviderKind } from '../kinds.js';
import { createSesAdapter } from './adapter.js';
import { createSesCallbackVerifier } from './callbacks.js';
import { sesDoctor } from './doctor.js';
import { readSesSettings, sesAccountProblems, sesSettingsSchema } from './settings.js';

function callbackVerifier(account: ProviderAccountConfig) {
  const { topicArns } = readSesSettings(account);
  return topicArns.length === 0 ? null : createSesCallbackVerifier({ topicArns });
}

export const sesKind: ProviderKind = {
  kind: 'ses',
  channels: ['email'],
  summary: 'Amazon SES (API v2 SendEmail, SigV4), with delivery events through SNS',
  defaults: {
    // SES publishes no request timeout; a SendEmail answers in well under a second, and a
    // timeout is `unknown`, so a short one only manufactures ambiguity.
    timeout_ms: 10_000,
    // The SES sandbox's rate (1 message/s), the lowest any account has: production quotas are
    // per account and region, so each account sets its own from GetAccount's MaxSendRate
    // (herald doctor shows it).
    rate_per_second: 1,
    burst: 1,
    // SendEmail has no idempotency key and SES no look-up: an unknown waits for the SNS events.
    ambiguity_policy: 'wait_for_evidence',
    capabilities: { lookup: false, dedupes_by_key: false },
  },
  settingsSchema: sesSettingsSchema,
  check(account, env) {
    const problems: AccountProblem[] = sesAccountProblems(account, env);
    if (account.capabilities?.lookup === true)
      problems.push({ field: 'capabilities.lookup', message: 'cannot be true for ses: SES has no look-up by reference' });
    if (account.capabilities?.dedupes_by_key === true)
      problems.push({ field: 'capabilities.dedupes_by_key', message: 'cannot be true for ses: SendEmail has no idempotency key' });
    if (account.ambiguity_policy === 'resend_same_key') {
      problems.push({
        field: 'ambiguity_policy',
        message: 'cannot be resend_same_key for ses: SendEmail has no idempotency key, so a resend may deliver twice',
      });
    }
    return problems;
  },
  createAdapter: (account) => createSesAdapter(account, { callbacks: callbackVerifier(account) }),
  createCallbackVerifier: callbackVerifier,
  describe(account) {
    const s = readSesSettings(account);
    return {
      region: s.region,
      endpoint: s.endpoint.origin,
      from: s.from,
      ...(s.replyTo === null ? {} : { reply_to: s.replyTo }),
      ...(s.configurationSet === null ? {} : { configuration_set: s.configurationSet }),
      sns_topic_arns: [...s.topicArns],
    };
  },
  doctor: sesDoctor,
};
