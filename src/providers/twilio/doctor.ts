/**
 * `herald doctor` for a Twilio account, without sending: `GET /2010-04-01/Accounts/{Sid}.json`
 * says whether the credentials are accepted and the account is active
 * (https://www.twilio.com/docs/iam/api/account); for an E.164 `from`,
 * `GET …/IncomingPhoneNumbers.json?PhoneNumber=<from>` says whether the account owns it.
 * Alphanumeric senders and Messaging Services have no such check here; the finding says so.
 */
import { doctorClient } from '../outbound-http/doctor-client.js';
import type { ExchangeResult } from '../outbound-http/exchange.js';
import { settingsForDoctor } from '../credentials.js';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { E164, readTwilioSettings, TWILIO_API_URL } from './settings.js';

function failureDetail(result: Extract<ExchangeResult, { kind: 'failure' }>): string {
  return result.failure.code ?? result.failure.cause;
}

/** Asks Twilio about the account and its sender; every finding names what was asked and what Twilio said. */
export async function twilioDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  const read = settingsForDoctor(() => readTwilioSettings(account));
  if (!read.ok) return read.checks;
  const settings = read.settings;
  const headers = {
    accept: 'application/json',
    authorization: `Basic ${Buffer.from(`${settings.username}:${settings.password}`).toString('base64')}`,
    'user-agent': 'herald-twilio-doctor',
  };
  const { base, get, close } = doctorClient(account, TWILIO_API_URL, headers, signal);
  const sid = encodeURIComponent(settings.accountSid);
  try {
    const checks: DoctorCheck[] = [];
    const acct = await get(`/2010-04-01/Accounts/${sid}.json`);
    if (acct.kind === 'failure') return [{ name: 'endpoint answers', ok: false, detail: `${base.origin} did not answer (${failureDetail(acct)})` }];
    checks.push({ name: 'endpoint answers', ok: true, detail: `${base.origin} answered HTTP ${acct.status}` });
    if (acct.status === 401 || acct.status === 403) {
      checks.push({ name: 'credentials accepted', ok: false, detail: `Twilio refused the credentials (HTTP ${acct.status})` });
      return checks;
    }
    if (acct.status !== 200) {
      checks.push({ name: 'credentials accepted', ok: false, detail: `Twilio answered HTTP ${acct.status} for the account` });
      return checks;
    }
    checks.push({ name: 'credentials accepted', ok: true, detail: 'Twilio returned the account' });
    const status = (acct.body as { status?: unknown } | null)?.status;
    checks.push(
      status === 'active'
        ? { name: 'account active', ok: true, detail: 'the account is active' }
        : { name: 'account active', ok: false, detail: `the account's status is ${typeof status === 'string' ? status.slice(0, 20) : 'not given'}` },
    );
    if (settings.messagingServiceSid !== null) {
      checks.push({ name: 'sender owned', ok: true, detail: 'a Messaging Service picks the sender (not checked here; see the Twilio Console)' });
    } else if (settings.from !== null && E164.test(settings.from)) {
      const numbers = await get(`/2010-04-01/Accounts/${sid}/IncomingPhoneNumbers.json`, { PhoneNumber: settings.from });
      const list =
        numbers.kind === 'response' && numbers.status === 200
          ? (numbers.body as { incoming_phone_numbers?: unknown } | null)?.incoming_phone_numbers
          : undefined;
      if (!Array.isArray(list)) {
        const said = numbers.kind === 'response' ? `HTTP ${numbers.status}` : failureDetail(numbers);
        checks.push({ name: 'sender owned', ok: false, detail: `the account's numbers could not be listed (${said})` });
      } else {
        checks.push(
          list.length > 0
            ? { name: 'sender owned', ok: true, detail: 'settings.from is one of the account’s numbers' }
            : { name: 'sender owned', ok: false, detail: 'settings.from is not among the account’s numbers' },
        );
      }
    } else {
      checks.push({ name: 'sender owned', ok: true, detail: 'an alphanumeric sender ID (its registration is per country; not checked here)' });
    }
    return checks;
  } finally {
    close();
  }
}
