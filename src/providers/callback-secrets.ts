/**
 * The secrets that verify an account's signed callbacks (Standard Webhooks and its Svix
 * flavour): the common `callback_secrets` list (current first, the previous one while the
 * provider rotates) or the one secret in the variable `callback_secret_env` names.
 */
import { secretKey } from '../signing/standard-webhooks.js';
import type { ProviderAccountConfig } from './provider.js';

/**
 * Returns the account's callback secrets: the literal `callback_secrets` list when it has
 * any, else the one secret in the variable `callback_secret_env` names; null when neither
 * yields a secret (the account then receives no callbacks). Throws when a secret decodes to
 * no key bytes, a configuration error no retry can fix.
 */
export function resolveCallbackSecrets(account: ProviderAccountConfig): string[] | null {
  let secrets: string[] | null = null;
  if (account.callback_secrets !== undefined && account.callback_secrets.length > 0) {
    secrets = [...account.callback_secrets];
  } else if (account.callback_secret_env !== undefined) {
    const fromEnv = process.env[account.callback_secret_env];
    if (fromEnv !== undefined && fromEnv !== '') secrets = [fromEnv];
  }
  for (const secret of secrets ?? []) {
    try {
      secretKey(secret);
    } catch {
      throw new Error(`provider account ${account.id}: a callback secret is empty`);
    }
  }
  return secrets;
}
