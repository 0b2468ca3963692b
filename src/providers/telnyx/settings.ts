/**
 * A Telnyx account's settings: the API key (Bearer), the sender (`from`: an E.164 number, a
 * short code or an alphanumeric sender ID) and/or a messaging profile, and the public key
 * that verifies Telnyx's Ed25519-signed webhooks. Checked at load; the API key is read
 * through `credentials.ts` and never quoted.
 */
import { Type } from '@sinclair/typebox';
import { section, settle, type Settled } from '../../schema/setting.js';
import { credentialProblem, credentialSettings, readCredential } from '../credentials.js';
import type { AccountProblem } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';

/** Telnyx's API (https://developers.telnyx.com/api/messaging/send-message). */
export const TELNYX_API_URL = 'https://api.telnyx.com';

const E164 = /^\+[1-9]\d{1,14}$/;
// US/CA short codes are 5-6 digits.
const SHORT_CODE = /^\d{5,6}$/;
// Alphanumeric sender IDs: up to 11 letters, digits or spaces with at least one letter
// (Telnyx: "Alphanumeric Sender ID"; needs a messaging profile).
const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;
const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const telnyxSettingsSchema = section({
  ...credentialSettings('api_key', 'The Telnyx API key (V2), sent as Authorization: Bearer.'),
  from: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'The sender: an E.164 number (+14155550123), a short code, or an alphanumeric sender ID (with messaging_profile_id).',
    }),
  ),
  messaging_profile_id: Type.Optional(
    Type.String({ pattern: UUID, description: 'The messaging profile to send with: required for a number pool or an alphanumeric sender.' }),
  ),
  public_key: Type.Optional(
    Type.String({
      minLength: 1,
      description: "The account's webhook public key from the Mission Control Portal (base64, 32 bytes): verifies telnyx-signature-ed25519.",
    }),
  ),
  previous_public_keys: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), { description: 'Public keys that still verify webhooks while Telnyx rotates to public_key.' }),
  ),
});

/** The settings as validated at load: every setting present, null when not given. */
type RawSettings = Settled<typeof telnyxSettingsSchema>;

export interface TelnyxSettings {
  apiKey: string;
  from: string | null;
  messagingProfileId: string | null;
  /** Raw 32-byte Ed25519 public keys, the current one first; empty when webhooks are not verified. */
  publicKeys: Buffer[];
}

/** Decodes a base64 Ed25519 public key; null unless it is exactly 32 bytes of canonical base64. */
export function decodePublicKey(value: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return null;
  const raw = Buffer.from(value, 'base64');
  return raw.length === 32 ? raw : null;
}

/** The configured public keys, current first: `public_key`, then `previous_public_keys`. */
export function publicKeyStrings(settings: RawSettings): string[] {
  return [...(settings.public_key === null ? [] : [settings.public_key]), ...(settings.previous_public_keys ?? [])];
}

/** True when `from` has a shape Telnyx takes. */
export function isTelnyxSender(from: string): boolean {
  return E164.test(from) || SHORT_CODE.test(from) || ALPHANUMERIC_SENDER.test(from);
}

/** The configuration problems of a Telnyx account: the API key readable, a sender of the right shape, public keys that decode. */
export function telnyxProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const s = settle(telnyxSettingsSchema, account.settings);
  const problems: AccountProblem[] = [];
  const keyProblem = credentialProblem(account.id, account.settings, 'api_key', env);
  if (keyProblem !== null) problems.push(keyProblem);
  const from = s.from;
  const profile = s.messaging_profile_id;
  if (from === null && profile === null) {
    problems.push({ field: 'settings.from', message: 'a Telnyx account needs settings.from or settings.messaging_profile_id (a number pool)' });
  }
  if (from !== null && !isTelnyxSender(from)) {
    problems.push({
      field: 'settings.from',
      message: 'must be an E.164 number, a 5-6 digit short code, or an alphanumeric sender ID (1-11 letters, digits or spaces, at least one letter)',
    });
  } else if (from !== null && !E164.test(from) && !SHORT_CODE.test(from) && profile === null) {
    problems.push({ field: 'settings.messaging_profile_id', message: 'is required with an alphanumeric sender ID' });
  }
  publicKeyStrings(s).forEach((key, i) => {
    if (decodePublicKey(key) === null) {
      problems.push({
        field: i === 0 && s.public_key !== null ? 'settings.public_key' : 'settings.previous_public_keys',
        message: 'is not a base64 Ed25519 public key (32 bytes)',
      });
    }
  });
  if (account.channel !== 'sms') problems.push({ field: 'channel', message: 'a telnyx account sends sms' });
  if (account.capabilities?.lookup === true) {
    problems.push({ field: 'capabilities.lookup', message: "cannot be true: Telnyx cannot find a message by Herald's reference" });
  }
  return problems;
}

/** Reads the settings with the API key; throws CredentialError when it cannot be read, Error for a public key that does not decode. */
export function readTelnyxSettings(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): TelnyxSettings {
  const s = settle(telnyxSettingsSchema, account.settings);
  const publicKeys = publicKeyStrings(s).map((key) => {
    const raw = decodePublicKey(key);
    if (raw === null) throw new Error(`provider account ${account.id}: a webhook public key is not a base64 Ed25519 public key`);
    return raw;
  });
  return { apiKey: readCredential(account.id, account.settings, 'api_key', env), from: s.from, messagingProfileId: s.messaging_profile_id, publicKeys };
}
