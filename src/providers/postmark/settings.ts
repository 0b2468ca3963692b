/**
 * A Postmark account's settings: the server token, the sender, an optional reply-to, the two
 * message streams purposes go to, the HTTP Basic credentials Postmark's webhooks must carry,
 * and an optional account token for `herald doctor`'s sender check. Checked at load, naming
 * the field; credentials are read (literal, `_env` or `_file`), never quoted.
 */
import { Type } from '@sinclair/typebox';
import { parseMailbox, type Purpose } from '../../domain/index.js';
import { section, settle, withDefault } from '../../schema/setting.js';
import type { AccountProblem } from '../kinds.js';
import { credentialProblem, credentialSettings, credentialSource, readCredential } from '../credentials.js';
import { mailboxSetting } from '../mailbox-setting.js';
import type { ProviderAccountConfig } from '../provider.js';

/** Postmark's public API (https://postmarkapp.com/developer/api/overview); `base_url` overrides it. */
export const POSTMARK_API_URL = 'https://api.postmarkapp.com';

export interface PostmarkSettings {
  serverToken: string;
  from: string;
  replyTo: string | null;
  transactionalStream: string;
  broadcastStream: string;
  /**
   * The Basic credentials webhooks must carry (current first, then the password being rotated
   * out with the same user); null when none are configured (no callbacks).
   */
  webhook: Array<{ username: string; password: string }> | null;
  /** Only `herald doctor` uses it (sender signatures and domains need account-level access). */
  accountToken: string | null;
}

/** A message stream's id, as Postmark allows it. */
const stream = (description: string) => Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$', description });

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const postmarkSettingsSchema = section({
  ...credentialSettings('server_token', 'Postmark server API token (X-Postmark-Server-Token).'),
  from: mailboxSetting('Sender: an address with a confirmed sender signature or on a verified domain, or "Name <address>".'),
  reply_to: Type.Optional(mailboxSetting('Where replies go: an address or "Name <address>". Optional.')),
  // Postmark's default streams: every server has `outbound` (transactional) and, usually, `broadcast`.
  transactional_stream: withDefault(stream('Message stream for otp, transactional, conversational and alert mail.'), 'outbound'),
  broadcast_stream: withDefault(stream('Message stream for marketing mail.'), 'broadcast'),
  ...credentialSettings('webhook_username', "User name in the webhook URL's HTTP Basic credentials (https://user:password@host/v1/callbacks/<account>)."),
  ...credentialSettings('webhook_password', "Password in the webhook URL's HTTP Basic credentials."),
  ...credentialSettings(
    'webhook_previous_password',
    'The password being replaced, accepted too while the webhook URL in Postmark is changed (rotation). Optional.',
  ),
  ...credentialSettings('account_token', 'Postmark account API token, used only by herald doctor to check the sender. Optional.'),
});

/** What the schema cannot check: credentials readable, mailboxes well-formed, nothing Postmark cannot honour. */
export function postmarkProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const problems: AccountProblem[] = [];
  const token = credentialProblem(account.id, account.settings, 'server_token', env);
  if (token) problems.push(token);
  const s = settle(postmarkSettingsSchema, account.settings);
  for (const name of ['from', 'reply_to'] as const) {
    const value = s[name];
    if (value !== null && parseMailbox(value) === null) problems.push({ field: `settings.${name}`, message: 'is not an e-mail address or "Name <address>"' });
  }
  const user = credentialSource(account.settings, 'webhook_username');
  const password = credentialSource(account.settings, 'webhook_password');
  if ((user === null) !== (password === null)) {
    problems.push({
      field: user === null ? 'settings.webhook_username' : 'settings.webhook_password',
      message: 'is required with the other webhook credential: Postmark sends both in the URL',
    });
  }
  if (credentialSource(account.settings, 'webhook_previous_password') !== null && password === null) {
    problems.push({ field: 'settings.webhook_previous_password', message: 'is only used beside settings.webhook_password' });
  }
  for (const name of ['webhook_username', 'webhook_password', 'webhook_previous_password', 'account_token']) {
    if (credentialSource(account.settings, name) === null) continue;
    const problem = credentialProblem(account.id, account.settings, name, env);
    if (problem) problems.push(problem);
  }
  if (user !== null && credentialProblem(account.id, account.settings, 'webhook_username', env) === null) {
    if (readCredential(account.id, account.settings, 'webhook_username', env).includes(':')) {
      problems.push({ field: 'settings.webhook_username', message: 'must not contain ":" (HTTP Basic credentials separate user and password with it)' });
    }
  }
  if (account.api_key !== undefined || account.api_key_env !== undefined) {
    problems.push({
      field: account.api_key !== undefined ? 'api_key' : 'api_key_env',
      message: 'is not used by postmark accounts: set settings.server_token (or server_token_env, server_token_file)',
    });
  }
  if (account.callback_secrets !== undefined || account.callback_secret_env !== undefined) {
    problems.push({
      field: account.callback_secrets !== undefined ? 'callback_secrets' : 'callback_secret_env',
      message: 'is not used: Postmark does not sign webhooks; set settings.webhook_username and settings.webhook_password',
    });
  }
  if (account.capabilities?.dedupes_by_key === true) {
    problems.push({ field: 'capabilities.dedupes_by_key', message: 'cannot be true: Postmark documents no idempotency key, so a resend may send twice' });
  }
  return problems;
}

function webhookPairs(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): Array<{ username: string; password: string }> {
  const s = account.settings;
  const username = readCredential(account.id, s, 'webhook_username', env);
  const pairs = [{ username, password: readCredential(account.id, s, 'webhook_password', env) }];
  if (credentialSource(s, 'webhook_previous_password') !== null)
    pairs.push({ username, password: readCredential(account.id, s, 'webhook_previous_password', env) });
  return pairs;
}

/** Reads the settings an adapter needs; throws CredentialError when a configured credential cannot be read. */
export function readPostmarkSettings(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): PostmarkSettings {
  const raw = settle(postmarkSettingsSchema, account.settings);
  // Required by the schema; an account built without the configuration (a test) may still lack it.
  if (raw.from === null) throw new Error(`provider account ${account.id}: settings.from is required`);
  const s = account.settings;
  const hasWebhook = credentialSource(s, 'webhook_username') !== null && credentialSource(s, 'webhook_password') !== null;
  return {
    serverToken: readCredential(account.id, s, 'server_token', env),
    from: raw.from,
    replyTo: raw.reply_to,
    transactionalStream: raw.transactional_stream,
    broadcastStream: raw.broadcast_stream,
    webhook: hasWebhook ? webhookPairs(account, env) : null,
    accountToken: credentialSource(s, 'account_token') === null ? null : readCredential(account.id, s, 'account_token', env),
  };
}

/** The stream a purpose's mail goes to: marketing to the broadcast stream, everything else transactional. */
export function streamFor(purpose: Purpose, settings: Pick<PostmarkSettings, 'transactionalStream' | 'broadcastStream'>): string {
  return purpose === 'marketing' ? settings.broadcastStream : settings.transactionalStream;
}
