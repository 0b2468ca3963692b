/**
 * The smtp provider kind: e-mail through any SMTP relay (a hosted submission service, the
 * company's Postfix, a cloud provider's SMTP endpoint). SMTP publishes no sending guidance of
 * its own, so the defaults below are Herald's, each with its reason (docs/providers/smtp.md).
 */
import type { ProviderKind } from '../kinds.js';
import { createSmtpAdapter } from './adapter.js';
import { smtpDoctor } from './doctor.js';
import { describeSmtpSettings, smtpSettingsProblems, smtpSettingsSchema } from './settings.js';

/**
 * 100 KiB of HTML: Gmail shows "[Message clipped]" past ~102 KB of HTML and hides the rest
 * (the footer, an unsubscribe link) behind a click; Herald refuses such a message at intake
 * rather than send one that displays cut off.
 */
export const SMTP_MAX_HTML_BYTES = 102_400;

export const smtpKind: ProviderKind = {
  kind: 'smtp',
  channels: ['email'],
  summary: 'e-mail through an SMTP relay (STARTTLS or TLS, AUTH, pooled connections)',
  defaults: {
    // RFC 5321 §4.5.3.2 asks for per-command timeouts of minutes (10 for the final reply)
    // between MTAs; a submission relay answers in well under a second, a content filter in
    // seconds. 20 s for the whole call leaves room for both and stays inside the default
    // 30 s worker lease (which must exceed timeout_ms by 1 s). Too short only costs an
    // `unknown`, never a duplicate.
    timeout_ms: 20_000,
    // Modest: relays meter senders (Amazon SES starts at 1 message/s in its sandbox); raise
    // it to what your relay allows.
    rate_per_second: 10,
    burst: 10,
    // No look-up and no callbacks: an `unknown` SMTP send (the final reply lost after the
    // body was sent) is never settled by evidence. Waiting keeps it out of the way of a
    // resend until the evidence window closes and a person decides (review queue). A
    // one-time code is useful for minutes and the person can ask for another (a new
    // generation): `user_resend` says `unresolved` at once instead of after the window.
    ambiguity_policy: 'wait_for_evidence',
    ambiguity_policies: { otp: 'user_resend' },
    capabilities: { lookup: false, dedupes_by_key: false },
    max_html_bytes: SMTP_MAX_HTML_BYTES,
  },
  settingsSchema: smtpSettingsSchema,
  check: smtpSettingsProblems,
  createAdapter: (account) => createSmtpAdapter(account),
  // SMTP has no delivery callbacks (DSNs, bounce mail to the envelope sender, are out of scope).
  createCallbackVerifier: () => null,
  describe: describeSmtpSettings,
  doctor: smtpDoctor,
};
