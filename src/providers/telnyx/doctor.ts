/**
 * `herald doctor` for a Telnyx account, without sending: for an E.164 `from`,
 * `GET /v2/phone_numbers?filter[phone_number]=<from>` says whether the API key is accepted and
 * the account owns the number; otherwise `GET /v2/messaging_profiles` (or the configured
 * profile) says whether the key is accepted and the profile exists.
 */
import http from 'node:http';
import https from 'node:https';
import { CredentialError } from '../credentials.js';
import { exchangeOnce, type ExchangeResult } from '../outbound-http/exchange.js';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { readTelnyxSettings, TELNYX_API_URL, type TelnyxSettings } from './settings.js';

/** Asks Telnyx about the key and the sender; every finding names what was asked and what Telnyx said. */
export async function telnyxDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  let settings: TelnyxSettings;
  try {
    settings = readTelnyxSettings(account);
  } catch (err) {
    if (err instanceof CredentialError) return [{ name: 'credentials configured', ok: false, detail: err.message }];
    throw err;
  }
  const base = new URL(account.base_url ?? TELNYX_API_URL);
  const agent = base.protocol === 'https:' ? new https.Agent() : new http.Agent();
  const get = (path: string, query: Record<string, string> = {}): Promise<ExchangeResult> => {
    const url = new URL(base.origin);
    url.pathname = base.pathname.replace(/\/+$/, '') + path;
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const headers = { accept: 'application/json', authorization: `Bearer ${settings.apiKey}`, 'user-agent': 'herald-telnyx-doctor' };
    return exchangeOnce({ method: 'GET', url, headers, body: Buffer.alloc(0), timeoutMs: account.timeout_ms, signal, agent });
  };
  try {
    const byNumber = settings.from !== null && settings.from.startsWith('+');
    const answer = byNumber
      ? await get('/v2/phone_numbers', { 'filter[phone_number]': settings.from! })
      : settings.messagingProfileId !== null
        ? await get(`/v2/messaging_profiles/${encodeURIComponent(settings.messagingProfileId)}`)
        : await get('/v2/messaging_profiles');
    if (answer.kind === 'failure') {
      return [{ name: 'endpoint answers', ok: false, detail: `${base.origin} did not answer (${answer.failure.code ?? answer.failure.cause})` }];
    }
    const checks: DoctorCheck[] = [{ name: 'endpoint answers', ok: true, detail: `${base.origin} answered HTTP ${answer.status}` }];
    if (answer.status === 401 || answer.status === 403) {
      checks.push({ name: 'credentials accepted', ok: false, detail: `Telnyx refused the API key (HTTP ${answer.status})` });
      return checks;
    }
    if (answer.status === 404 && !byNumber && settings.messagingProfileId !== null) {
      checks.push({ name: 'credentials accepted', ok: true, detail: 'the API key was accepted' });
      checks.push({ name: 'sender owned', ok: false, detail: 'settings.messaging_profile_id is not a messaging profile of this account' });
      return checks;
    }
    if (answer.status !== 200) {
      checks.push({ name: 'credentials accepted', ok: false, detail: `Telnyx answered HTTP ${answer.status}` });
      return checks;
    }
    checks.push({ name: 'credentials accepted', ok: true, detail: 'the API key was accepted' });
    const data = (answer.body as { data?: unknown } | null)?.data;
    if (byNumber) {
      checks.push(
        Array.isArray(data) && data.length > 0
          ? { name: 'sender owned', ok: true, detail: 'settings.from is one of the account’s numbers' }
          : { name: 'sender owned', ok: false, detail: 'settings.from is not among the account’s numbers' },
      );
    } else if (settings.messagingProfileId !== null) {
      checks.push({ name: 'sender owned', ok: true, detail: 'settings.messaging_profile_id exists' });
    } else {
      checks.push({ name: 'sender owned', ok: true, detail: 'a short code or alphanumeric sender (not checked here)' });
    }
    return checks;
  } finally {
    agent.destroy();
  }
}
