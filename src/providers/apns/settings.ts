/**
 * An APNs account's settings, for token-based authentication: the `.p8` signing key Apple's
 * developer site issues (Certificates, Identifiers & Profiles → Keys, with the Apple Push
 * Notifications service enabled), its 10-character key id, the 10-character team id, and the app's
 * bundle id as the topic. Problems name the setting, never a value.
 */
import { Type } from '@sinclair/typebox';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AccountProblem } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { oneOf, section, settle, withDefault } from '../../schema/setting.js';
import { credentialProblem, credentialSettings, readCredential } from '../credentials.js';
import { dataOnlyProblems, dataOnlySetting } from '../push/data-only.js';

/** APNs's hosts (https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns). */
export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com';

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const apnsSettingsSchema = section({
  key_id: Type.String({ pattern: '^[A-Z0-9]{10}$', description: "The signing key's 10-character Key ID (Apple developer site, Keys)." }),
  team_id: Type.String({ pattern: '^[A-Z0-9]{10}$', description: 'Your 10-character Team ID (Apple developer site, Membership).' }),
  ...credentialSettings('signing_key', 'The .p8 signing key (PEM text, "-----BEGIN PRIVATE KEY-----").'),
  topic: Type.String({ pattern: '^[A-Za-z0-9.-]+$', description: "The app's bundle id (apns-topic)." }),
  environment: withDefault(
    oneOf(['production', 'sandbox'], {
      description: "The environment `herald doctor` probes. Sends go to the environment each device's registration names.",
    }),
    'production',
  ),
  ca_file: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'PEM file of certificate authorities to trust besides the system ones (a TLS-inspecting proxy; a test server).',
    }),
  ),
  ...dataOnlySetting(
    'Send background pushes (content-available, priority 5): the app receives every push and shows it itself, so a resend may show twice. Requires capabilities.dedupes_by_key false and an ambiguity_policy other than resend_same_key. False: alert pushes, which iOS shows once per apns-collapse-id.',
  ),
});

export interface ApnsCredentials {
  keyId: string;
  teamId: string;
  signingKey: KeyObject;
  topic: string;
}

export type ApnsCredentialsRead = { ok: true; value: ApnsCredentials } | { ok: false; problem: AccountProblem };

/** Reads the account's signing key and ids; the problem names the setting. */
export function readApnsCredentials(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): ApnsCredentialsRead {
  const s = settle(apnsSettingsSchema, account.settings);
  for (const field of ['key_id', 'team_id', 'topic'] as const) {
    // Required by the schema; an account built without the configuration (a test) may still lack one.
    if (s[field] === null || s[field] === '') return { ok: false, problem: { field: `settings.${field}`, message: 'is required' } };
  }
  const missing = credentialProblem(account.id, account.settings, 'signing_key', env);
  if (missing) return { ok: false, problem: missing };
  let signingKey: KeyObject;
  try {
    signingKey = createPrivateKey(readCredential(account.id, account.settings, 'signing_key', env));
  } catch {
    return { ok: false, problem: { field: 'settings.signing_key', message: 'is not a PEM private key (the .p8 file Apple issues)' } };
  }
  if (signingKey.asymmetricKeyType !== 'ec' || signingKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    return { ok: false, problem: { field: 'settings.signing_key', message: 'is not a P-256 key (APNs provider tokens are ES256)' } };
  }
  return { ok: true, value: { keyId: s.key_id, teamId: s.team_id, signingKey, topic: s.topic } };
}

/** The extra certificate authorities of `ca_file`, or null; throws naming the setting when the file cannot be read. */
export function readExtraCa(account: ProviderAccountConfig): string | null {
  const path = settle(apnsSettingsSchema, account.settings).ca_file;
  if (path === null) return null;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`provider account ${account.id}: settings.ca_file ${path} cannot be read (${(err as { code?: string }).code ?? 'unreadable'})`);
  }
}

/** Load-time problems of an APNs account. */
export function apnsProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const problems: AccountProblem[] = [];
  const read = readApnsCredentials(account, env);
  if (!read.ok) problems.push(read.problem);
  try {
    readExtraCa(account);
  } catch (err) {
    problems.push({ field: 'settings.ca_file', message: (err as Error).message.replace(/^.*settings\.ca_file /, '') });
  }
  if (account.base_url !== undefined && !/^https:\/\/[^/]+/.test(account.base_url)) {
    problems.push({ field: 'base_url', message: 'must be an https URL: APNs speaks HTTP/2 over TLS only' });
  }
  problems.push(...dataOnlyProblems(account));
  return problems;
}
