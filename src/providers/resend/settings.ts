/**
 * A Resend account's settings: the API key (literal, `_env` or `_file`), the sender, and an
 * optional reply-to. Checked at load, so a sender Resend would refuse (`invalid_from_address`)
 * or a missing key fails before the first send, naming the field.
 */
import { parseMailbox } from '../../domain/index.js';
import type { AccountProblem } from '../kinds.js';
import { credentialProblem, credentialSchema, readCredential } from '../credentials.js';
import type { ProviderAccountConfig } from '../provider.js';

/** Resend's public API (https://resend.com/docs/api-reference); `base_url` overrides it. */
export const RESEND_API_URL = 'https://api.resend.com';

export interface ResendSettings {
  apiKey: string;
  /** `address` or `Name <address>`; a message's own `from` wins. */
  from: string;
  replyTo: string | null;
}

export const resendSettingsSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['from'],
  properties: {
    ...credentialSchema('api_key', 'Resend API key (re_...); a sending-access key is enough to send.'),
    from: {
      type: 'string',
      minLength: 3,
      maxLength: 320,
      description: 'Sender: an address on a domain verified in Resend, or "Name <address>".',
    },
    reply_to: { type: 'string', minLength: 3, maxLength: 320, description: 'Where replies go: an address or "Name <address>". Optional.' },
  },
};

function setting(account: ProviderAccountConfig, name: string): string | undefined {
  const value = account.settings?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** What the schema cannot check: the key readable, the mailboxes well-formed, no setting Resend cannot honour. */
export function resendProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const problems: AccountProblem[] = [];
  const key = credentialProblem(account.id, account.settings, 'api_key', env);
  if (key) problems.push(key);
  for (const name of ['from', 'reply_to']) {
    const value = setting(account, name);
    if (value !== undefined && parseMailbox(value) === null) {
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
  const from = setting(account, 'from');
  if (from === undefined) throw new Error(`provider account ${account.id}: settings.from is required`);
  return { apiKey: readCredential(account.id, account.settings, 'api_key', env), from, replyTo: setting(account, 'reply_to') ?? null };
}
