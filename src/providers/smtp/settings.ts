/**
 * An SMTP account's `settings`: the JSON Schema composed into the configuration schema, the
 * load-time checks the schema cannot express (addresses that parse, credentials that read,
 * no password over plaintext), and the typed settings an adapter is built from. Secrets are
 * read with credentials.ts and never appear in a problem's message.
 */
import { Type } from '@sinclair/typebox';
import { readFileSync } from 'node:fs';
import { mailboxDomain, parseMailbox, type Mailbox } from '../../domain/index.js';
import { section, settle, withDefault, oneOf, type Settled } from '../../schema/setting.js';
import { credentialProblem, credentialSettings, credentialSource, readCredential } from '../credentials.js';
import type { AccountProblem } from '../kinds.js';
import { mailboxSetting } from '../mailbox-setting.js';
import type { ProviderAccountConfig } from '../provider.js';

const SECURITY = ['starttls', 'tls', 'none'] as const;
export type SmtpSecurity = (typeof SECURITY)[number];

/** The port each security mode uses unless the account says: 587 submission with STARTTLS (RFC 6409), 465 implicit TLS (RFC 8314 §3.3), 25 plain. */
export const DEFAULT_PORTS: Readonly<Record<SmtpSecurity, number>> = { starttls: 587, tls: 465, none: 25 };

/** Five connections per account: a modest share of a relay (Postfix allows 50 per client by default, `smtpd_client_connection_count_limit`). */
const DEFAULT_POOL_SIZE = 5;

const HOSTNAME = '^[A-Za-z0-9]([A-Za-z0-9-]{0,62})?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62})?)*\\.?$';
const HOST = '^[^\\s/:@]+$|^\\[[0-9A-Fa-f:.]+\\]$|^[0-9A-Fa-f:]+$';

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const smtpSettingsSchema = section({
  host: Type.String({ minLength: 1, maxLength: 253, pattern: HOST, description: 'The relay (submission server) to send through, e.g. smtp.example.com.' }),
  // Its default depends on security (DEFAULT_PORTS), so it is filled where the settings are read.
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'Default 587 for starttls, 465 for tls, 25 for none.' })),
  security: withDefault(
    oneOf(SECURITY, {
      description:
        'starttls: plain connect, then STARTTLS is required (a server that does not offer it is refused, never used in clear). tls: implicit TLS from the first byte (port 465). none: no TLS at all, only for a relay on the same host or network; refused with credentials.',
    }),
    'starttls',
  ),
  ...credentialSettings('user', 'SMTP AUTH user name.'),
  ...credentialSettings('password', 'SMTP AUTH password.'),
  from: mailboxSetting('The sender, with an optional display name: "Acme <noreply@acme.example>". A notification\'s content.from overrides it.'),
  reply_to: Type.Optional(mailboxSetting('Where replies go, e.g. "Support <help@acme.example>". A notification\'s content.reply_to overrides it.')),
  message_id_domain: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: HOSTNAME,
      description: "The domain of the Message-ID Herald derives from a delivery's idempotency key. Default: the sender's domain.",
    }),
  ),
  ehlo_name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: HOSTNAME,
      description: "The name Herald gives in EHLO. Default: this machine's host name when it is fully qualified, else [127.0.0.1].",
    }),
  ),
  pool_size: withDefault(Type.Integer({ minimum: 1, maximum: 50, description: 'Connections kept open to the relay and reused.' }), DEFAULT_POOL_SIZE),
  tls: withDefault(
    section(
      {
        ca_file: Type.Optional(
          Type.String({
            minLength: 1,
            description: 'PEM file of the certificate authorities to trust instead of the system ones (a private CA, or a test certificate).',
          }),
        ),
        reject_unauthorized: withDefault(
          Type.Boolean({
            description: 'Refuse a certificate that does not verify; false is for tests and turns TLS into encryption without authentication.',
          }),
          true,
        ),
        servername: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 253,
            pattern: HOSTNAME,
            description: 'The name the certificate must carry, when it is not host (e.g. host is an IP address).',
          }),
        ),
        min_version: withDefault(oneOf(['TLSv1.2', 'TLSv1.3'], { description: 'Lowest TLS version accepted (RFC 8996 deprecates older ones).' }), 'TLSv1.2'),
      },
      { description: 'How the server certificate is checked.' },
    ),
    {},
  ),
});

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
  tls: { ca: string | null; rejectUnauthorized: boolean; servername: string | null; minVersion: RawSettings['tls']['min_version'] };
}

/** The settings as validated at load: every default filled in, every other setting absent as null. */
type RawSettings = Settled<typeof smtpSettingsSchema>;

function raw(account: ProviderAccountConfig): RawSettings {
  return settle(smtpSettingsSchema, account.settings);
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
  if (s.from !== null && parseMailbox(s.from) === null) problems.push({ field: 'settings.from', message: `is not a mailbox (${MAILBOX_EXAMPLE})` });
  if (s.reply_to !== null && parseMailbox(s.reply_to) === null) problems.push({ field: 'settings.reply_to', message: `is not a mailbox (${MAILBOX_EXAMPLE})` });
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
  if (s.tls.ca_file !== null) {
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
  // Required by the schema; an account built without the configuration (a test) may still lack them.
  if (s.host === null || s.from === null) throw new Error(`provider account ${account.id}: settings.host and settings.from are required`);
  const auth =
    credentialSource(account.settings, 'user') === null
      ? null
      : { user: readCredential(account.id, account.settings, 'user', env), pass: readCredential(account.id, account.settings, 'password', env) };
  return {
    host: s.host,
    port: s.port ?? DEFAULT_PORTS[s.security],
    security: s.security,
    auth,
    from: parseMailbox(s.from)!,
    replyTo: s.reply_to === null ? null : parseMailbox(s.reply_to),
    messageIdDomain: s.message_id_domain?.toLowerCase().replace(/\.$/, '') ?? null,
    ehloName: s.ehlo_name,
    poolSize: s.pool_size,
    tls: {
      ca: s.tls.ca_file === null ? null : readFileSync(s.tls.ca_file, 'utf8'),
      rejectUnauthorized: s.tls.reject_unauthorized,
      servername: s.tls.servername,
      minVersion: s.tls.min_version,
    },
  };
}

/** The settings safe to show (`GET /v1/provider-accounts`): no credential, only whether AUTH is configured. */
export function describeSmtpSettings(account: ProviderAccountConfig): Record<string, unknown> {
  const s = raw(account);
  const from = s.from === null ? null : parseMailbox(s.from);
  return {
    host: s.host,
    port: s.port ?? DEFAULT_PORTS[s.security],
    security: s.security,
    auth: credentialSource(account.settings, 'user') !== null,
    from: s.from,
    reply_to: s.reply_to,
    message_id_domain: s.message_id_domain ?? (from === null ? null : mailboxDomain(from)),
    pool_size: s.pool_size,
    tls: { ca_file: s.tls.ca_file, reject_unauthorized: s.tls.reject_unauthorized, min_version: s.tls.min_version },
  };
}
