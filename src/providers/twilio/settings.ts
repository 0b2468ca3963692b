/**
 * A Twilio account's settings: which Twilio account sends, how Herald authenticates (the
 * account's Auth Token, or an API key SID + secret), and the sender (a `from` number or
 * alphanumeric sender ID, or a Messaging Service). Checked at load; credentials are read
 * through `credentials.ts` and never quoted.
 */
import { Type } from '@sinclair/typebox';
import { oneOf, section, settle, withDefault } from '../../schema/setting.js';
import { credentialProblem, credentialSettings, credentialSource, readCredential } from '../credentials.js';
import type { AccountProblem } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';

/** Twilio's REST API (https://www.twilio.com/docs/usage/api). */
export const TWILIO_API_URL = 'https://api.twilio.com';

// SIDs are two letters and 32 hex digits (https://www.twilio.com/docs/glossary/what-is-a-sid).
const ACCOUNT_SID = '^AC[0-9a-fA-F]{32}$';
const API_KEY_SID = '^SK[0-9a-fA-F]{32}$';
const MESSAGING_SERVICE_SID = '^MG[0-9a-fA-F]{32}$';

/** E.164: `+`, a country code that does not start with 0, at most 15 digits in all. */
export const E164 = /^\+[1-9]\d{1,14}$/;
/**
 * An alphanumeric sender ID: up to 11 characters of A-Z, a-z, 0-9 and space, at least one
 * letter (Twilio's support article on alphanumeric sender IDs; where they are allowed varies by country).
 */
export const ALPHANUMERIC_SENDER = /^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/;

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const twilioSettingsSchema = section({
  account_sid: Type.String({ pattern: ACCOUNT_SID, description: 'The Twilio account (AC…) that sends; its Messages resource is the endpoint.' }),
  auth: withDefault(
    oneOf(['auth_token', 'api_key'], { description: 'How Herald authenticates: the account SID + Auth Token, or an API key SID + secret.' }),
    'auth_token',
  ),
  ...credentialSettings('auth_token', "The account's Auth Token: authenticates sends (auth: auth_token) and verifies X-Twilio-Signature on status callbacks."),
  api_key_sid: Type.Optional(Type.String({ pattern: API_KEY_SID, description: 'The API key (SK…) Herald authenticates with when auth is api_key.' })),
  ...credentialSettings('api_key_secret', "The API key's secret (auth: api_key)."),
  from: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'The sender: an E.164 number (+14155550123) or an alphanumeric sender ID (up to 11 letters, digits, spaces). Either this or messaging_service_sid.',
    }),
  ),
  messaging_service_sid: Type.Optional(
    Type.String({ pattern: MESSAGING_SERVICE_SID, description: 'A Messaging Service (MG…) that picks the sender. Either this or from.' }),
  ),
});

/** The settings an adapter needs, read and checked. */
export interface TwilioSettings {
  accountSid: string;
  /** The HTTP Basic user and password. */
  username: string;
  password: string;
  /** The Auth Token, when configured: the key of X-Twilio-Signature. */
  authToken: string | null;
  from: string | null;
  messagingServiceSid: string | null;
}

/** True when `from` is a sender Twilio takes: an E.164 number or an alphanumeric sender ID. */
export function isTwilioSender(from: string): boolean {
  return E164.test(from) || ALPHANUMERIC_SENDER.test(from);
}

/** The configuration problems of a Twilio account: credentials readable, a sender of the right shape. */
export function twilioProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const s = account.settings;
  const raw = settle(twilioSettingsSchema, s);
  const problems: AccountProblem[] = [];
  const push = (p: AccountProblem | null): void => {
    if (p !== null) problems.push(p);
  };
  if (raw.auth === 'api_key') {
    if (raw.api_key_sid === null) problems.push({ field: 'settings.api_key_sid', message: 'is required when settings.auth is api_key' });
    push(credentialProblem(account.id, s, 'api_key_secret', env));
    // The Auth Token is optional here, but when it is configured it must be readable.
    if (credentialSource(s, 'auth_token') !== null) push(credentialProblem(account.id, s, 'auth_token', env));
  } else {
    push(credentialProblem(account.id, s, 'auth_token', env));
  }
  const from = raw.from;
  if (from === null && raw.messaging_service_sid === null) {
    problems.push({ field: 'settings.from', message: 'a Twilio account needs settings.from or settings.messaging_service_sid' });
  }
  if (from !== null && !isTwilioSender(from)) {
    problems.push({
      field: 'settings.from',
      message: 'must be an E.164 number (+ and up to 15 digits) or an alphanumeric sender ID (1-11 letters, digits or spaces, at least one letter)',
    });
  }
  if (account.channel !== 'sms') problems.push({ field: 'channel', message: 'a twilio account sends sms' });
  // Facts of Twilio's Messages API, not choices: declaring them would let a resend send twice.
  if (account.capabilities?.dedupes_by_key === true) {
    problems.push({ field: 'capabilities.dedupes_by_key', message: "cannot be true: Twilio's Messages API takes no idempotency key" });
  }
  if (account.capabilities?.lookup === true) {
    problems.push({ field: 'capabilities.lookup', message: "cannot be true: Twilio cannot find a message by Herald's reference" });
  }
  return problems;
}

/** Reads the settings with their credentials; throws CredentialError for one that cannot be read. */
export function readTwilioSettings(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): TwilioSettings {
  const s = account.settings;
  const raw = settle(twilioSettingsSchema, s);
  // Required by the schema; an account built without the configuration (a test) may still lack it.
  if (raw.account_sid === null) throw new Error(`provider account ${account.id}: settings.account_sid is required`);
  const authToken = credentialSource(s, 'auth_token') === null ? null : readCredential(account.id, s, 'auth_token', env);
  let username = raw.account_sid;
  let password: string;
  if (raw.auth === 'api_key') {
    if (raw.api_key_sid === null) throw new Error(`provider account ${account.id}: settings.api_key_sid is required when settings.auth is api_key`);
    username = raw.api_key_sid;
    password = readCredential(account.id, s, 'api_key_secret', env);
  } else {
    password = readCredential(account.id, s, 'auth_token', env);
  }
  return { accountSid: raw.account_sid, username, password, authToken, from: raw.from, messagingServiceSid: raw.messaging_service_sid };
}
