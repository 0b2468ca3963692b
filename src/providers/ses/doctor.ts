/**
 * `herald doctor` for an SES account: read-only SES API v2 calls, never a send.
 *
 * - `GET /v2/email/account`: the credentials are accepted, the account is out of the sandbox
 *   (ProductionAccessEnabled), sending is enabled and not shut down, and its send quota
 *   (MaxSendRate) is at least the account's `rate_per_second`;
 * - `GET /v2/email/identities/<domain>`, else `<address>`: the sender may send
 *   (VerifiedForSendingStatus), with its DKIM and MAIL FROM status;
 * - with a configuration set, `GET /v2/email/configuration-sets/<name>/event-destinations`: an
 *   enabled SNS destination to one of `sns_topic_arns` publishes the events evidence needs.
 */
import http from 'node:http';
import https from 'node:https';
import { CredentialError } from '../credentials.js';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { exchangeOnce } from '../outbound-http/exchange.js';
import { parseSesError } from './classify.js';
import { mailboxDomain, parseMailbox } from '../../domain/index.js';
import { readSesCredentials, readSesSettings, type SesCredentials, type SesSettings } from './settings.js';
import { signSesRequest } from './sign.js';

/** The event types evidence is built from (docs/providers/ses.md): without them an unknown submission cannot settle. */
export const NEEDED_EVENT_TYPES = ['SEND', 'REJECT', 'BOUNCE', 'COMPLAINT', 'DELIVERY'] as const;

type Get = { ok: true; body: Record<string, unknown> } | { ok: false; status: number | null; detail: string };

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

async function get(
  settings: SesSettings,
  credentials: SesCredentials,
  path: string,
  account: ProviderAccountConfig,
  signal: AbortSignal,
  agent: http.Agent,
): Promise<Get> {
  const url = new URL(settings.endpoint.origin);
  url.pathname = settings.endpoint.pathname.replace(/\/+$/, '') + path;
  const headers = signSesRequest({ method: 'GET', url, body: Buffer.alloc(0), headers: {} }, settings.region, credentials);
  const result = await exchangeOnce({
    method: 'GET',
    url,
    headers: { ...headers, accept: 'application/json', 'user-agent': 'herald-ses-doctor' },
    body: Buffer.alloc(0),
    timeoutMs: account.timeout_ms,
    signal,
    agent,
  });
  if (result.kind === 'failure') {
    const { cause, code } = result.failure;
    return { ok: false, status: null, detail: `${url.origin} did not answer (${code ?? cause})` };
  }
  if (result.status === 200) return { ok: true, body: record(result.body) };
  const errorType = result.headers?.['x-amzn-errortype'];
  const { type } = parseSesError({ status: result.status, errorType: typeof errorType === 'string' ? errorType : null, body: result.body });
  return { ok: false, status: result.status, detail: `SES answered HTTP ${result.status}${type === null ? '' : ` (${type})`}` };
}

function accountChecks(account: ProviderAccountConfig, body: Record<string, unknown>): DoctorCheck[] {
  const quota = record(body.SendQuota);
  const production = body.ProductionAccessEnabled === true;
  const enforcement = typeof body.EnforcementStatus === 'string' ? body.EnforcementStatus : 'unknown';
  const enabled = body.SendingEnabled === true && enforcement !== 'SHUTDOWN';
  const checks: DoctorCheck[] = [
    {
      name: 'production access',
      ok: production,
      detail: production
        ? 'the account is out of the SES sandbox'
        : 'the account is in the SES sandbox: it sends only to verified addresses, at most 1 message/s and 200 per 24 h',
    },
    { name: 'sending enabled', ok: enabled, detail: `SendingEnabled ${String(body.SendingEnabled === true)}, enforcement status ${enforcement}` },
  ];
  if (typeof quota.MaxSendRate === 'number') {
    const rate = quota.MaxSendRate;
    const day = typeof quota.Max24HourSend === 'number' ? quota.Max24HourSend : null;
    checks.push({
      name: 'rate within the send quota',
      ok: account.rate_per_second <= rate,
      detail: `SES allows ${rate} messages/s${day === null ? '' : ` and ${day} per 24 h`}; the account's rate_per_second is ${account.rate_per_second}`,
    });
  }
  return checks;
}

async function identityCheck(from: string, fetchIdentity: (name: string) => Promise<Get>): Promise<DoctorCheck> {
  const mailbox = parseMailbox(from) ?? { name: null, address: from };
  const tried: string[] = [];
  // A verified domain lets every address in it send; a verified address only itself.
  for (const identity of [mailboxDomain(mailbox), mailbox.address]) {
    const answer = await fetchIdentity(identity);
    if (!answer.ok) {
      tried.push(`${identity}: ${answer.status === 404 ? 'not an SES identity' : answer.detail}`);
      continue;
    }
    const dkim = record(answer.body.DkimAttributes);
    const mailFrom = record(answer.body.MailFromAttributes);
    const identityType = typeof answer.body.IdentityType === 'string' ? answer.body.IdentityType : 'unknown type';
    const parts = [`identity ${identity} (${identityType})`];
    if (typeof dkim.Status === 'string') parts.push(`DKIM ${dkim.Status}`);
    if (typeof mailFrom.MailFromDomain === 'string') {
      const status = typeof mailFrom.MailFromDomainStatus === 'string' ? mailFrom.MailFromDomainStatus : '';
      parts.push(`MAIL FROM ${mailFrom.MailFromDomain} ${status}`.trim());
    }
    if (answer.body.VerifiedForSendingStatus === true) return { name: 'sender verified', ok: true, detail: parts.join(', ') };
    tried.push(`${parts.join(', ')}: not verified for sending`);
  }
  return { name: 'sender verified', ok: false, detail: tried.join('; ') };
}

function eventsCheck(settings: SesSettings, body: Record<string, unknown>): DoctorCheck {
  const destinations = Array.isArray(body.EventDestinations) ? body.EventDestinations.map(record) : [];
  for (const d of destinations) {
    const topic = record(d.SnsDestination).TopicArn;
    if (d.Enabled !== true || typeof topic !== 'string' || !settings.topicArns.includes(topic)) continue;
    const types = Array.isArray(d.MatchingEventTypes) ? d.MatchingEventTypes : [];
    const missing = NEEDED_EVENT_TYPES.filter((t) => !types.includes(t));
    return missing.length === 0
      ? { name: 'events published to SNS', ok: true, detail: `destination ${String(d.Name)} publishes ${types.join(', ')} to ${topic}` }
      : { name: 'events published to SNS', ok: false, detail: `destination ${String(d.Name)} does not publish ${missing.join(', ')}` };
  }
  return {
    name: 'events published to SNS',
    ok: false,
    detail: `configuration set ${String(settings.configurationSet)} has no enabled SNS event destination to ${settings.topicArns.length > 0 ? settings.topicArns.join(', ') : 'a topic (settings.sns_topic_arns is empty)'}`,
  };
}

/** Asks SES, without sending, whether this account can send and publishes the events Herald needs. */
export async function sesDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  let settings: SesSettings;
  let credentials: SesCredentials;
  try {
    settings = readSesSettings(account);
    credentials = readSesCredentials(account);
  } catch (error) {
    const detail = error instanceof CredentialError ? `${error.field} cannot be read` : (error as Error).message;
    return [{ name: 'configuration', ok: false, detail }];
  }
  const agent = settings.endpoint.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  try {
    const fetchPath = (path: string) => get(settings, credentials, path, account, signal, agent);
    const accountAnswer = await fetchPath('/v2/email/account');
    if (!accountAnswer.ok) return [{ name: 'credentials accepted', ok: false, detail: accountAnswer.detail }];
    const checks: DoctorCheck[] = [
      { name: 'credentials accepted', ok: true, detail: `GetAccount answered in ${settings.region}` },
      ...accountChecks(account, accountAnswer.body),
    ];
    checks.push(await identityCheck(settings.from, (identity) => fetchPath(`/v2/email/identities/${encodeURIComponent(identity)}`)));
    if (settings.configurationSet !== null) {
      const events = await fetchPath(`/v2/email/configuration-sets/${encodeURIComponent(settings.configurationSet)}/event-destinations`);
      checks.push(
        events.ok
          ? eventsCheck(settings, events.body)
          : {
              name: 'events published to SNS',
              ok: false,
              detail: events.status === 404 ? `configuration set ${settings.configurationSet} does not exist` : events.detail,
            },
      );
    } else if (settings.topicArns.length > 0) {
      checks.push({
        name: 'events published to SNS',
        ok: false,
        detail: 'settings.configuration_set is not set: events reach SNS only if the sending identity has a default configuration set',
      });
    }
    return checks;
  } finally {
    agent.destroy();
  }
}
