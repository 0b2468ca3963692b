/**
 * A Resend account's settings: the API key (literal, `_env` or `_file`), the sender, and an
 * optional reply-to. Checked at load, so a sender Resend would refuse (`invalid_from_address`)
 * or a missing key fails before the first send, naming the field.
 */
import { Type } from '@sinclair/typebox';
import { parseMailbox } from '../../domain/index.js';
import { section, settle } from '../../schema/setting.js';
import type { AccountProblem } from '../kinds.js';
import { credentialProblem, credentialSettings, readCredential } from '../credentials.js';
import { mailboxSetting } from '../mailbox-setting.js';
import type { ProviderAccountConfig } from '../provider.js';

/** Resend's public API (https://resend.com/docs/api-reference); `base_url` overrides it. */
export const RESEND_API_URL = 'https://api.resend.com';

export interface ResendSettings {
  apiKey: string;
  /** `address` or `Name <address>`; a message's own `from` wins. */
  from: string;
  replyTo: string | null;
}

/** The settings as declared once (src/schema/setting.ts): JSON Schema, raw type and defaults. */
export const resendSettingsSchema = section({
  ...credentialSettings('api_key', 'Resend API key (re_...); a sending-access key is enough to send.'),
  from: mailboxSetting('Sender: an address on a domain verified in Resend, or "Name <address>".'),
  reply_to: Type.Optional(mailboxSetting('Where replies go: an address or "Name <address>". Optional.')),
});

/** What the schema cannot check: the key readable, the mailboxes well-formed, no setting Resend cannot honour. */
export function resendProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const problems: AccountProblem[] = [];
  const key = credentialProblem(account.id, account.settings, 'api_key', env);
  if (key) problems.push(key);
  const s = settle(resendSettingsSchema, account.settings);
  for (const name of ['from', 'reply_to'] as const) {
    const value = s[name];
    if (value !== null && parseMailbox(value) === null) {
      problems.push({ field: `settings.${name}`, message: 'is not an e-mail address or "Name <address>"' });
    }
  }
  if (account.api_key !== undefined || account.api_key_env !== undefined) {
    problems.push({
      field: account.api_key !== undefined ? 'api_key' : 'api_key_env',
      message: 'is not used by resend accounts: set settings.api_key (or api_key_env, api_key_file)',
    });
  }
  if (account.capabilities?.lookup === true) {
    problems.push({
      field: 'capabilities.lookup',
      message: 'cannot be true: Resend looks messages up by its own id only, which a lost answer never gave (docs/providers/resend.md)',
    });
  }
  if (account.callback_secret_env !== undefined && (env[account.callback_secret_env] ?? '') === '') {
    problems.push({ field: 'callback_secret_env', message: `names ${account.callback_secret_env}, which is not set in the environment` });
  }
  return problems;
}

/** Reads the settings an adapter needs; throws CredentialError when the key cannot be read. */
export function readResendSettings(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): ResendSettings {
  const s = settle(resendSettingsSchema, account.settings);
  // Required by the schema; an account built without the configuration (a test) may still lack it.
  if (s.from === null) throw new Error(`provider account ${account.id}: settings.from is required`);
  return { apiKey: readCredential(account.id, account.settings, 'api_key', env), from: s.from, replyTo: s.reply_to };
}
