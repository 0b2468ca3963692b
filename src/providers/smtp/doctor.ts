/**
 * `herald doctor` for an smtp account: opens one session the way a send does (connect,
 * greeting, EHLO, STARTTLS or implicit TLS, AUTH) and says which step failed, then QUITs.
 * No MAIL FROM is ever sent, so nothing can be delivered. What it cannot tell: whether the
 * relay will accept this sender or these recipients (most relays decide that at MAIL FROM,
 * RCPT TO or the end of data).
 */
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { classifyFailure, type SmtpStep } from './classify.js';
import { readSmtpSettings, type SmtpSettings } from './settings.js';
import { openSession } from './smtp-session.js';

interface Step {
  name: string;
  /** The session steps this check covers: a failure at one of them fails this check. */
  covers: readonly SmtpStep[];
  passed(settings: SmtpSettings): string;
}

const STEPS: readonly Step[] = [
  { name: 'server answers', covers: ['queue', 'connect', 'greeting', 'ehlo'], passed: (s) => `${s.host}:${s.port} answered the greeting and EHLO` },
  {
    name: 'TLS',
    covers: ['starttls'],
    passed: (s) =>
      s.security === 'none'
        ? 'security is none: the session is not encrypted'
        : s.security === 'tls'
          ? 'implicit TLS; the certificate verified'
          : 'STARTTLS upgraded the session; the certificate verified',
  },
  {
    name: 'credentials accepted (AUTH)',
    covers: ['auth'],
    passed: (s) => (s.auth === null ? 'no credentials configured: the relay is used without AUTH' : 'AUTH succeeded'),
  },
];

/** Probes the account's relay without sending; each finding says which step failed and what the server answered. */
export async function smtpDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  let settings: SmtpSettings;
  try {
    settings = readSmtpSettings(account);
  } catch (err) {
    return [{ name: 'settings readable', ok: false, detail: err instanceof Error ? err.message : 'the settings cannot be read' }];
  }
  const opened = await openSession(settings, { until: Date.now() + account.timeout_ms, signal });
  if (opened.ok) {
    opened.session.connection.quit();
    return STEPS.map((step) => ({ name: step.name, ok: true, detail: step.passed(settings) }));
  }
  const failedAt = STEPS.findIndex((step) => step.covers.includes(opened.failure.step));
  // The outcome's message, without what it says about a message: the doctor sends none.
  const outcome = classifyFailure(opened.failure);
  const detail = ('message' in outcome ? outcome.message : outcome.kind).replace(/; the message was not sent$/, '');
  return STEPS.map((step, i) => {
    if (i < failedAt) return { name: step.name, ok: true, detail: step.passed(settings) };
    if (i === failedAt) return { name: step.name, ok: false, detail };
    return { name: step.name, ok: false, detail: `not checked: ${STEPS[failedAt]!.name} failed first` };
  });
}
