/**
 * A Web Push account's settings: the VAPID key pair (RFC 8292) the site's pages subscribed with
 * (`applicationServerKey`), and the contact the push services may reach the sender at. Make one
 * with `npx web-push generate-vapid-keys`. Checked locally: each key decodes, the public key is an
 * uncompressed P-256 point, and it is the private key's. Problems name the setting, never a value.
 */
import { Type } from '@sinclair/typebox';
import { createECDH } from 'node:crypto';
import type { AccountProblem } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { section, settle } from '../../schema/setting.js';
import { credentialProblem, credentialSettings, readCredential } from '../credentials.js';
import { dataOnlyProblems, dataOnlySetting } from '../push/data-only.js';

const BASE64URL = '^[A-Za-z0-9_-]+$';

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const webPushSettingsSchema = section({
  vapid_subject: Type.String({
    pattern: '^(mailto:|https://)',
    description: 'Who push services may contact about these pushes: a mailto: address or an https: URL (RFC 8292 §2.1).',
  }),
  vapid_public_key: Type.String({
    pattern: BASE64URL,
    description: 'The VAPID public key, base64url (the applicationServerKey your pages subscribe with).',
  }),
  ...credentialSettings('vapid_private_key', 'The VAPID private key, base64url (32 bytes).'),
  ...dataOnlySetting(
    "Your service worker shows pushes its own way, without the payload's tag: a resend may show twice. Requires capabilities.dedupes_by_key false and an ambiguity_policy other than resend_same_key. False: the service worker shows each push with showNotification(title, {body, tag}), so a resend replaces the first.",
  ),
});

export interface VapidKeys {
  subject: string;
  publicKey: string;
  privateKey: string;
}

export type VapidRead = { ok: true; value: VapidKeys } | { ok: false; problem: AccountProblem };

/** Reads and checks the account's VAPID keys locally (the doctor's check too). */
export function readVapidKeys(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): VapidRead {
  // Checked here again, not only by the schema: the doctor reads an account the same way.
  const s = settle(webPushSettingsSchema, account.settings);
  const subject = s.vapid_subject;
  if (subject === null || !/^(mailto:.+|https:\/\/.+)/.test(subject)) {
    return { ok: false, problem: { field: 'settings.vapid_subject', message: 'must be a mailto: address or an https: URL' } };
  }
  const publicKey = s.vapid_public_key;
  if (publicKey === null || !new RegExp(BASE64URL).test(publicKey)) {
    return { ok: false, problem: { field: 'settings.vapid_public_key', message: 'is required, base64url without padding' } };
  }
  const pub = Buffer.from(publicKey, 'base64url');
  if (pub.length !== 65 || pub[0] !== 0x04)
    return { ok: false, problem: { field: 'settings.vapid_public_key', message: 'is not an uncompressed P-256 public key (65 bytes)' } };
  const missing = credentialProblem(account.id, account.settings, 'vapid_private_key', env);
  if (missing) return { ok: false, problem: missing };
  const privateKey = readCredential(account.id, account.settings, 'vapid_private_key', env).trim();
  const priv = /^[A-Za-z0-9_-]+$/.test(privateKey) ? Buffer.from(privateKey, 'base64url') : Buffer.alloc(0);
  if (priv.length !== 32) return { ok: false, problem: { field: 'settings.vapid_private_key', message: 'is not a base64url P-256 private key (32 bytes)' } };
  let derived: Buffer;
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(priv);
    derived = ecdh.getPublicKey();
  } catch {
    return { ok: false, problem: { field: 'settings.vapid_private_key', message: 'is not a valid P-256 private key' } };
  }
  if (!derived.equals(pub)) return { ok: false, problem: { field: 'settings.vapid_public_key', message: 'is not the public half of vapid_private_key' } };
  return { ok: true, value: { subject, publicKey, privateKey } };
}

/** Load-time problems of a Web Push account. */
export function webPushProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const problems: AccountProblem[] = [];
  const read = readVapidKeys(account, env);
  if (!read.ok) problems.push(read.problem);
  if (account.base_url !== undefined && !/^https?:\/\/[^/]+/.test(account.base_url)) {
    problems.push({ field: 'base_url', message: 'must be an http(s) URL (tests only: every push goes there instead of its endpoint)' });
  }
  problems.push(...dataOnlyProblems(account));
  return problems;
}
