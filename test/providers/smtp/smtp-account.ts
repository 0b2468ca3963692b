/** An smtp provider account configured against a fake relay (test/providers/fakes/smtp.ts). */
import type { ProviderAccountConfig } from '../../../src/providers/provider.js';
import type { SmtpFake } from '../fakes/smtp.js';

export const SMTP_USER = 'herald-relay-user';
export const SMTP_PASSWORD = 'canary-smtp-password-4d91c2';

export interface SmtpAccountOptions {
  id?: string;
  timeoutMs?: number;
  /** Replaces or adds settings (host, port, credentials, TLS, from are preset). */
  settings?: Record<string, unknown>;
  /** Other account fields (max_html_bytes, ambiguity_policies...). */
  account?: Partial<ProviderAccountConfig>;
}

/** An account that sends through `fake` with STARTTLS (the fake's certificate trusted), AUTH and a From with a display name. */
export function smtpAccount(fake: SmtpFake, options: SmtpAccountOptions = {}): ProviderAccountConfig {
  return {
    id: options.id ?? 'smtp-test',
    kind: 'smtp',
    channel: 'email',
    rate_per_second: 10,
    burst: 10,
    ambiguity_policy: 'wait_for_evidence',
    timeout_ms: options.timeoutMs ?? 5_000,
    max_html_bytes: 102_400,
    capabilities: { lookup: false, dedupes_by_key: false },
    ...options.account,
    settings: {
      host: fake.host,
      port: fake.port,
      security: 'starttls',
      user: SMTP_USER,
      password: SMTP_PASSWORD,
      from: 'Acme Receipts <receipts@acme.test>',
      reply_to: 'Acme Support <help@acme.test>',
      tls: { ca_file: fake.caFile },
      ...options.settings,
    },
  };
}
