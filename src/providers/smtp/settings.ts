/**
 * An SMTP account's `settings`: the JSON Schema composed into the configuration schema, the
 * load-time checks the schema cannot express (addresses that parse, credentials that read,
 * no password over plaintext), and the typed settings an adapter is built from. Secrets are
 * read with credentials.ts and never appear in a problem's message.
 */
import { readFileSync } from 'node:fs';
import { mailboxDomain, parseMailbox, type Mailbox } from '../../domain/index.js';
import { credentialProblem, credentialSchema, credentialSource, readCredential } from '../credentials.js';
import type { AccountProblem } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';

export type SmtpSecurity = 'starttls' | 'tls' | 'none';

/** The port each security mode uses unless the account says: 587 submission with STARTTLS (RFC 6409), 465 implicit TLS (RFC 8314 §3.3), 25 plain. */
export const DEFAULT_PORTS: Readonly<Record<SmtpSecurity, number>> = { starttls: 587, tls: 465, none: 25 };

/** Five connections per account: a modest share of a relay (Postfix allows 50 per client by default, `smtpd_client_connection_count_limit`). */
export const DEFAULT_POOL_SIZE = 5;

const HOSTNAME = '^[A-Za-z0-9]([A-Za-z0-9-]{0,62})?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62})?)*\\.?$';
const HOST = '^[^\\s/:@]+$|^\\[[0-9A-Fa-f:.]+\\]$|^[0-9A-Fa-f:]+$';

export const smtpSettingsSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['host', 'from'],
  properties: {
    host: { type: 'string', minLength: 1, maxLength: 253, pattern: HOST, description: 'The relay (submission server) to send through, e.g. smtp.example.com.' },
    port: { type: 'integer', minimum: 1, maximum: 65535, description: 'Default 587 for starttls, 465 for tls, 25 for none.' },
    security: {
      enum: ['starttls', 'tls', 'none'],
      description:
        'starttls (default): plain connect, then STARTTLS is required (a server that does not offer it is refused, never used in clear). tls: implicit TLS from the first byte (port 465). none: no TLS at all, only for a relay on the same host or network; refused with credentials.',
    },
    ...credentialSchema('user', 'SMTP AUTH user name.'),
    ...credentialSchema('password', 'SMTP AUTH password.'),
    from: {
      type: 'string',
      minLength: 3,
      maxLength: 320,
      description: 'The sender, with an optional display name: "Acme <noreply@acme.example>". A notification\'s content.from overrides it.',
    },
    reply_to: {
      type: 'string',
      minLength: 3,
      maxLength: 320,
      description: 'Where replies go, e.g. "Support <help@acme.example>". A notification\'s content.reply_to overrides it.',
    },
    message_id_domain: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      pattern: HOSTNAME,
      description: "The domain of the Message-ID Herald derives from a delivery's idempotency key. Default: the sender's domain.",
    },
    ehlo_name: {
      type: 'string',
      minLength: 1,
      maxLength: 253,
      pattern: HOSTNAME,
      description: "The name Herald gives in EHLO. Default: this machine's host name when it is fully qualified, else [127.0.0.1].",
    },
    pool_size: { type: 'integer', minimum: 1, maximum: 50, description: `Connections kept open to the relay and reused. Default ${DEFAULT_POOL_SIZE}.` },
    tls: {
      type: 'object',
      additionalProperties: false,
      description: 'How the server certificate is checked.',
      properties: {
        ca_file: {
          type: 'string',
          minLength: 1,
          description: 'PEM file of the certificate authorities to trust instead of the system ones (a private CA, or a test certificate).',
        },
        reject_unauthorized: {
          type: 'boolean',
          description: 'Refuse a certificate that does not verify. Default true; false is for tests and turns TLS into encryption without authentication.',
        },
        servername: {
          type: 'string',
          minLength: 1,
          maxLength: 253,
          pattern: HOSTNAME,
          description: 'The name the certificate must carry, when it is not host (e.g. host is an IP address).',
        },
        min_version: { enum: ['TLSv1.2', 'TLSv1.3'], description: 'Lowest TLS version accepted. Default TLSv1.2 (RFC 8996 deprecates older ones).' },
      },
    },
  },
};

/** What an adapter needs, read and checked: credentials resolved, addresses parsed. */
export interface SmtpSettings {
  host: string;
  port: number;
  security: SmtpSecurity;
  auth: { user: string; pass: string } | null;
  from: Mailbox;
  replyTo: Mailbox | null;
  messageIdDomain: string | null;
  ehloName: string | null;
  poolSize: number;
  tls: { ca: string | null; rejectUnauthorized: boolean; servername: string | null; minVersion: 'TLSv1.2' | 'TLSv1.3' };
}

interface RawSettings {
  host?: string;
  port?: number;
  security?: SmtpSecurity;
  from?: string;
  reply_to?: string;
  message_id_domain?: string;
  ehlo_name?: string;
  pool_size?: number;
  tls?: { ca_file?: string; reject_unauthorized?: boolean; servername?: string; min_version?: 'TLSv1.2' | 'TLSv1.3' };
}

function raw(account: ProviderAccountConfig): RawSettings {
  // Validated against smtpSettingsSchema at load.
  const settings: RawSettings = account.settings ?? {};
  return settings;
}

const MAILBOX_EXAMPLE = 'e.g. "Acme <noreply@acme.example>" or noreply@acme.example';

/**
 * Everything wrong with an account's settings that the schema cannot say, each with its field
 * (`settings.from`): the first is reported at load as a ConfigError.
 */
export function smtpSettingsProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const s = raw(account);
  const problems: AccountProblem[] = [];
  if (account.base_url !== undefined) problems.push({ field: 'base_url', message: 'is not used by an smtp account: set settings.host and settings.port' });
  if (account.api_key !== undefined || account.api_key_env !== undefined) {
    problems.push({
      field: account.api_key !== undefined ? 'api_key' : 'api_key_env',
      message: 'is not used by an smtp account: set settings.user and settings.password (or _env / _file)',
    });
  }
  if ((account.callback_secrets?.length ?? 0) > 0 || account.callback_secret_env !== undefined) {
    problems.push({
      field: account.callback_secret_env !== undefined ? 'callback_secret_env' : 'callback_secrets',
      message: 'is not used: SMTP has no delivery callbacks',
    });
  }
  // SMTP can be neither asked about a message nor trusted to drop a repeat: claiming either would
  // let an `unknown` be settled or resent on a promise the relay never made.
  if (account.capabilities?.lookup === true) problems.push({ field: 'capabilities.lookup', message: 'cannot be true: SMTP has no look-up' });
  if (account.capabilities?.dedupes_by_key === true) {
    problems.push({ field: 'capabilities.dedupes_by_key', message: 'cannot be true: SMTP servers do not deduplicate by Message-ID (docs/providers/smtp.md)' });
  }
  if (s.from !== undefined && parseMailbox(s.from) === null) problems.push({ field: 'settings.from', message: `is not a mailbox (${MAILBOX_EXAMPLE})` });
  if (s.reply_to !== undefined && parseMailbox(s.reply_to) === null)
    problems.push({ field: 'settings.reply_to', message: `is not a mailbox (${MAILBOX_EXAMPLE})` });
  const user = credentialSource(account.settings, 'user');
  const password = credentialSource(account.settings, 'password');
  if (user !== null && password === null)
    problems.push({ field: 'settings.password', message: 'is required when settings.user is set (or set neither, for a relay without AUTH)' });
  if (password !== null && user === null) problems.push({ field: 'settings.user', message: 'is required when settings.password is set' });
  for (const name of ['user', 'password'] as const) {
    if (credentialSource(account.settings, name) === null) continue;
    const problem = credentialProblem(account.id, account.settings, name, env);
    if (problem !== null) problems.push(problem);
  }
  if (password !== null && s.security === 'none') {
    problems.push({ field: 'settings.security', message: 'none would send the password in clear: use starttls or tls with credentials' });
  }
  if (s.tls?.ca_file !== undefined) {
    try {
      readFileSync(s.tls.ca_file);
    } catch (err) {
      problems.push({ field: 'settings.tls.ca_file', message: `${s.tls.ca_file} cannot be read (${(err as { code?: string }).code ?? 'unreadable'})` });
    }
  }
  return problems;
}

/** Reads an account's settings for its adapter; throws (CredentialError, Error) on what `smtpSettingsProblems` reports. */
export function readSmtpSettings(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): SmtpSettings {
  const [problem] = smtpSettingsProblems(account, env);
  if (problem !== undefined) throw new Error(`provider account ${account.id}: ${problem.field} ${problem.message}`);
  const s = raw(account);
  if (s.host === undefined || s.from === undefined) throw new Error(`provider account ${account.id}: settings.host and settings.from are required`);
  const security = s.security ?? 'starttls';
  const auth =
    credentialSource(account.settings, 'user') === null
      ? null
      : { user: readCredential(account.id, account.settings, 'user', env), pass: readCredential(account.id, account.settings, 'password', env) };
  return {
    host: s.host,
    port: s.port ?? DEFAULT_PORTS[security],
    security,
    auth,
    from: parseMailbox(s.from)!,
    replyTo: s.reply_to === undefined ? null : parseMailbox(s.reply_to),
    messageIdDomain: s.message_id_domain?.toLowerCase().replace(/\.$/, '') ?? null,
    ehloName: s.ehlo_name ?? null,
    poolSize: s.pool_size ?? DEFAULT_POOL_SIZE,
    tls: {
      ca: s.tls?.ca_file === undefined ? null : readFileSync(s.tls.ca_file, 'utf8'),
      rejectUnauthorized: s.tls?.reject_unauthorized ?? true,
      servername: s.tls?.servername ?? null,
      minVersion: s.tls?.min_version ?? 'TLSv1.2',
    },
  };
}

/** The settings safe to show (`GET /v1/provider-accounts`): no credential, only whether AUTH is configured. */
export function describeSmtpSettings(account: ProviderAccountConfig): Record<string, unknown> {
  const s = raw(account);
  const security = s.security ?? 'starttls';
  const from = s.from === undefined ? null : parseMailbox(s.from);
  return {
    host: s.host,
    port: s.port ?? DEFAULT_PORTS[security],
    security,
    auth: credentialSource(account.settings, 'user') !== null,
    from: s.from,
    reply_to: s.reply_to ?? null,
    message_id_domain: s.message_id_domain ?? (from === null ? null : mailboxDomain(from)),
    pool_size: s.pool_size ?? DEFAULT_POOL_SIZE,
    tls: { ca_file: s.tls?.ca_file ?? null, reject_unauthorized: s.tls?.reject_unauthorized ?? true, min_version: s.tls?.min_version ?? 'TLSv1.2' },
  };
}
