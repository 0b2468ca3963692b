/**
 * `herald doctor` for an APNs account, without notifying anyone:
 *
 * 1. the `.p8` key reads and is a P-256 key, and a provider token is signed with it;
 * 2. the HTTP/2 session to the configured environment's host opens (TLS, ALPN h2);
 * 3. APNs does not refuse the token: a push to a device token that cannot exist (64 zeros) is
 *    refused for the device (400 BadDeviceToken, or 410), not with a 403 (InvalidProviderToken,
 *    ExpiredProviderToken, BadEnvironmentKeyInToken...) that names what is wrong with the key, team
 *    or environment. Nothing is delivered to anyone.
 *
 * What it cannot check without a real device token: Apple does not document whether it checks the
 * provider token before the device token, so only a 403 is conclusive; nor that the app's tokens
 * are registered, belong to this environment, or that the app shows what arrives. `herald
 * send-test` to a real device is the final proof.
 */
import { settle } from '../../schema/setting.js';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { apnsOrigin } from './adapter.js';
import { buildApnsRequest } from './build-request.js';
import { apnsReason } from './classify.js';
import { Http2Sessions } from './http2-exchange.js';
import { ProviderTokens } from './provider-token.js';
import { apnsSettingsSchema, readApnsCredentials, readExtraCa } from './settings.js';

/** A device token no device holds: APNs refuses it as BadDeviceToken. */
export const DOCTOR_PROBE_DEVICE_TOKEN = '0'.repeat(64);

/** Probes the account's key, APNs's host and the token's acceptance, notifying nobody. */
export async function apnsDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  const read = readApnsCredentials(account);
  if (!read.ok) return [{ name: 'signing key', ok: false, detail: `${read.problem.field} ${read.problem.message}` }];
  const { keyId, teamId, signingKey, topic } = read.value;
  const tokens = new ProviderTokens({ keyId, teamId, signingKey, now: Date.now });
  const token = await tokens.current();
  const checks: DoctorCheck[] = [{ name: 'signing key', ok: true, detail: `a P-256 key ${keyId} of team ${teamId} signed a provider token` }];
  const environment = settle(apnsSettingsSchema, account.settings).environment;
  const origin = apnsOrigin(account, environment);
  let ca: string | null;
  try {
    ca = readExtraCa(account);
  } catch (err) {
    return [...checks, { name: 'APNs answers', ok: false, detail: (err as Error).message }];
  }
  const sessions = new Http2Sessions(ca);
  try {
    const wire = buildApnsRequest({
      deviceToken: DOCTOR_PROBE_DEVICE_TOKEN,
      topic,
      content: { subject: 'herald doctor', text: 'probe: no device has this token' },
      purpose: 'transactional',
      idempotencyKey: 'herald-doctor-probe',
      expiresAt: 0,
      nowMs: Date.now(),
      dataOnly: false,
    });
    const result = await sessions.request({
      origin,
      path: wire.path,
      headers: { ...wire.headers, authorization: `bearer ${token.jwt}` },
      body: wire.body,
      timeoutMs: account.timeout_ms,
      signal,
    });
    if (result.kind === 'failure') {
      return [
        ...checks,
        {
          name: 'APNs answers',
          ok: false,
          detail: `${new URL(origin).host} (${environment}) did not answer over HTTP/2 (${result.failure.cause}${result.failure.code ? ` ${result.failure.code}` : ''})`,
        },
      ];
    }
    checks.push({ name: 'APNs answers', ok: true, detail: `${new URL(origin).host} (${environment}) answered over HTTP/2` });
    const reason = apnsReason(result.body);
    const provesAuth = (result.status === 400 && reason === 'BadDeviceToken') || result.status === 410;
    checks.push({
      name: 'credentials accepted',
      ok: provesAuth,
      detail: provesAuth
        ? `APNs refused only the probe's made-up device token (${result.status}${reason === null ? '' : ` ${reason}`}), not the provider token for ${topic}; nothing was delivered (a send-test to a real device proves the rest)`
        : `APNs answered ${result.status}${reason === null ? '' : ` ${reason}`} to the probe`,
    });
    return checks;
  } finally {
    sessions.close();
  }
}
