/**
 * `herald doctor` for a Web Push account, entirely local: there is no push service to ask until a
 * browser has subscribed (each subscription names its own), and none lets a sender test its keys
 * without one. Checked: the VAPID subject, that both keys decode, that the public key is the
 * private key's, and that a VAPID JWT signs with them.
 */
import webpush from 'web-push';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { readVapidKeys } from './settings.js';

/** Checks the account's VAPID keys locally, sending nothing. */
export async function webPushDoctor(account: ProviderAccountConfig, _signal: AbortSignal): Promise<DoctorCheck[]> {
  const read = readVapidKeys(account);
  if (!read.ok) return [{ name: 'VAPID keys', ok: false, detail: `${read.problem.field} ${read.problem.message}` }];
  const { subject, publicKey, privateKey } = read.value;
  const checks: DoctorCheck[] = [{ name: 'VAPID keys', ok: true, detail: `a P-256 key pair (public key ${publicKey.slice(0, 12)}…) for ${subject}` }];
  try {
    webpush.getVapidHeaders('https://push.example', subject, publicKey, privateKey, 'aes128gcm');
    checks.push({ name: 'VAPID signature', ok: true, detail: 'an ES256 VAPID JWT signs with these keys' });
  } catch {
    checks.push({ name: 'VAPID signature', ok: false, detail: 'web-push could not sign a VAPID JWT with these keys' });
  }
  checks.push({
    name: 'push services',
    ok: true,
    detail: 'not probed: each subscription names its own push service, and none can be asked without one (send-test to a subscribed browser proves it)',
  });
  return checks;
}
