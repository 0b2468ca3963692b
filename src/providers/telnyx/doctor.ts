/**
 * `herald doctor` for a Telnyx account, without sending: for an E.164 `from`,
 * `GET /v2/phone_numbers?filter[phone_number]=<from>` says whether the API key is accepted and
 * the account owns the number; otherwise `GET /v2/messaging_profiles` (or the configured
 * profile) says whether the key is accepted and the profile exists.
 */
import { settingsForDoctor } from '../credentials.js';
import { doctorClient } from '../outbound-http/doctor-client.js';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { readTelnyxSettings, TELNYX_API_URL } from './settings.js';

/** Asks Telnyx about the key and the sender; every finding names what was asked and what Telnyx said. */
export async function telnyxDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  const read = settingsForDoctor(() => readTelnyxSettings(account));
  if (!read.ok) return read.checks;
  const settings = read.settings;
  const headers = { accept: 'application/json', authorization: `Bearer ${settings.apiKey}`, 'user-agent': 'herald-telnyx-doctor' };
  const { base, get, close } = doctorClient(account, TELNYX_API_URL, headers, signal);
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
    close();
  }
}
