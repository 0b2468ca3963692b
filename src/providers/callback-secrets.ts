/**
 * The secrets that verify an account's signed callbacks (Standard Webhooks and its Svix
 * flavour): the common `callback_secrets` list (current first, the previous one while the
 * provider rotates) or the one secret in the variable `callback_secret_env` names.
 */
import { secretKey, verifyWebhook } from '../signing/standard-webhooks.js';
import type { CallbackParse, CallbackRequest, ProviderAccountConfig, SyncCallbackVerifier } from './provider.js';

type Headers = CallbackRequest['headers'];

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

/**
 * The verifier of a provider that signs its callbacks as Standard Webhooks do (the sandbox; Resend
 * through Svix): any of the account's secrets (the current one first, older ones while rotating)
 * must verify the raw body before `parse` reads a byte of it. `headersOf` maps the provider's
 * header names, given lower-cased, onto `webhook-id`, `webhook-timestamp` and `webhook-signature`.
 * It answers synchronously; a failed check is 401 `callback_signature_invalid` naming the check.
 */
export function standardWebhooksVerifier(
  secrets: readonly string[],
  parse: (rawBody: Buffer, webhookId: string) => CallbackParse,
  headersOf: (lowercased: Headers) => Headers = (h) => h,
): SyncCallbackVerifier {
  if (secrets.length === 0) throw new Error('a callback verifier needs at least one secret');
  const keys = [...secrets];
  return {
    verify(request: CallbackRequest, nowMs: number): CallbackParse {
      const lowercased: Headers = {};
      for (const [name, value] of Object.entries(request.headers)) lowercased[name.toLowerCase()] = value;
      const verified = verifyWebhook(keys, headersOf(lowercased), request.rawBody, nowMs);
      if (!verified.ok) return { ok: false, status: 401, code: 'callback_signature_invalid', detail: verified.reason };
      return parse(request.rawBody, verified.id);
    },
  };
}
