/**
 * An FCM account's settings and its service-account key. The key is the JSON file the Firebase
 * console (Project settings → Service accounts → Generate new private key) or Google Cloud IAM
 * downloads; Herald reads `client_email`, `private_key`, `private_key_id`, `token_uri` and
 * `project_id` from it. Problems name the setting and the key's field, never a value.
 */
import { Type } from '@sinclair/typebox';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { AccountProblem } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { section, settle } from '../../schema/setting.js';
import { credentialProblem, credentialSettings, readCredential } from '../credentials.js';
import { dataOnlyProblems, dataOnlySetting } from '../push/data-only.js';

/** FCM's HTTP v1 endpoint (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages/send). */
export const FCM_API_URL = 'https://fcm.googleapis.com';
/** The OAuth 2 scope that lets a token send FCM messages. */
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** Google's token endpoint, used when a key file names none (every downloaded key names this one). */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

// Google Cloud project ids: 6 to 30 lower-case letters, digits and hyphens, starting with a letter.
const PROJECT_ID = '^[a-z][a-z0-9-]{4,28}[a-z0-9]$';

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const fcmSettingsSchema = section({
  ...credentialSettings('service_account', 'The service account key: the JSON text Firebase or Google Cloud IAM downloads.'),
  // Its default is read from the key, so it is filled where the key is read.
  project_id: Type.Optional(Type.String({ pattern: PROJECT_ID, description: "The Firebase project to send through. Default: the key's project_id." })),
  ...dataOnlySetting(
    'Send data messages (no notification block): the app receives every push and shows it itself, so a resend may show twice. Requires capabilities.dedupes_by_key false and an ambiguity_policy other than resend_same_key. False: notification messages, shown by the system and replaced in place by a resend.',
  ),
});

/** What Herald needs from a service-account key. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  /** The key's id, sent as the JWT's `kid` so Google need not try every key of the account. */
  privateKeyId: string | null;
  tokenUri: string;
  projectId: string;
}

export type ServiceAccountRead = { ok: true; value: ServiceAccount } | { ok: false; problem: AccountProblem };

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

/**
 * Reads and checks the account's service-account key (literal, variable or file); the problem
 * names the setting and the missing or unusable field of the key.
 */
export function readServiceAccount(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): ServiceAccountRead {
  const missing = credentialProblem(account.id, account.settings, 'service_account', env);
  if (missing) return { ok: false, problem: missing };
  const text = readCredential(account.id, account.settings, 'service_account', env);
  const field = 'settings.service_account';
  const bad = (message: string): ServiceAccountRead => ({ ok: false, problem: { field, message } });
  let key: unknown;
  try {
    key = JSON.parse(text);
  } catch {
    return bad('is not JSON: it must be the service account key file Google downloads');
  }
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return bad('is not a JSON object');
  const k = key as Record<string, unknown>;
  if (k.type !== undefined && k.type !== 'service_account') return bad('is not a service account key (its "type" is not "service_account")');
  if (!nonEmpty(k.client_email)) return bad('has no client_email');
  if (!nonEmpty(k.private_key)) return bad('has no private_key');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(k.private_key);
  } catch {
    return bad('has a private_key that is not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') return bad('has a private_key that is not an RSA key (RS256 needs one)');
  const tokenUri = nonEmpty(k.token_uri) ? k.token_uri : GOOGLE_TOKEN_URI;
  if (!/^https?:\/\//.test(tokenUri)) return bad('has a token_uri that is not an http(s) URL');
  const configured = settle(fcmSettingsSchema, account.settings).project_id;
  const projectId = nonEmpty(configured) ? configured : nonEmpty(k.project_id) ? k.project_id : null;
  if (projectId === null) return { ok: false, problem: { field: 'settings.project_id', message: 'is required: the key has no project_id' } };
  return {
    ok: true,
    value: { clientEmail: k.client_email, privateKey, privateKeyId: nonEmpty(k.private_key_id) ? k.private_key_id : null, tokenUri, projectId },
  };
}

/** Load-time problems of an FCM account: the key reads and is usable, base_url is a URL, data_only is consistent. */
export function fcmProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const problems: AccountProblem[] = [];
  const read = readServiceAccount(account, env);
  if (!read.ok) problems.push(read.problem);
  if (account.base_url !== undefined && !/^https?:\/\/[^/]+/.test(account.base_url)) {
    problems.push({ field: 'base_url', message: 'must be an http(s) URL (default https://fcm.googleapis.com)' });
  }
  problems.push(...dataOnlyProblems(account));
  return problems;
}
