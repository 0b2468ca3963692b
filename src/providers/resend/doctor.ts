/**
 * `herald doctor` for a Resend account, without sending: `GET /domains` says whether the key
 * is accepted and whether the sender's domain is verified (status `verified`). A sending-only
 * key cannot list domains: Resend answers 401 `restricted_api_key`, which proves the key valid
 * and leaves the domain unchecked.
 */
import { settingsForDoctor } from '../credentials.js';
import { mailboxDomain, parseMailbox } from '../../domain/index.js';
import { endpointUrl } from '../outbound-http/endpoint.js';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { resendBase } from './adapter.js';
import { resendErrorName } from './classify.js';
import { readResendSettings } from './settings.js';

async function getJson(url: URL, apiKey: string, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' }, signal });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: null };
  }
}

function domainStatus(body: unknown, domain: string): string | null {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return null;
  for (const item of data) {
    const { name, status } = (item ?? {}) as Record<string, unknown>;
    if (typeof name === 'string' && name.toLowerCase() === domain) return typeof status === 'string' ? status : 'unknown';
  }
  return null;
}

/** Asks Resend whether this account's key and sender would work. */
export async function resendDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  const read = settingsForDoctor(() => readResendSettings(account), true);
  if (!read.ok) return read.checks;
  const settings = read.settings;
  const base = resendBase(account);
  const url = endpointUrl(base, '/domains');
  let answer: { status: number; body: unknown };
  try {
    answer = await getJson(url, settings.apiKey, signal);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return [{ name: 'endpoint answers', ok: false, detail: `${base.origin} did not answer (${cause})` }];
  }
  const name = resendErrorName(answer.body);
  const mailbox = parseMailbox(settings.from);
  const domain = mailbox === null ? '' : mailboxDomain(mailbox);
  if (answer.status === 401 && name === 'restricted_api_key') {
    return [
      { name: 'credentials accepted', ok: true, detail: 'Resend knows the key; it is sending-only (restricted_api_key)' },
      {
        name: 'sender domain check',
        ok: true,
        detail: `skipped: a sending-only key cannot list domains; check ${domain} in Resend's dashboard, or run doctor with a full-access key`,
      },
    ];
  }
  if (answer.status !== 200) {
    const what = name === null ? `HTTP ${answer.status}` : `HTTP ${answer.status} (${name})`;
    return [{ name: 'credentials accepted', ok: false, detail: `Resend refused the key: ${what}` }];
  }
  const status = domainStatus(answer.body, domain);
  return [
    { name: 'credentials accepted', ok: true, detail: "Resend listed the team's domains" },
    status === 'verified'
      ? { name: 'sender domain verified', ok: true, detail: `${domain} is verified` }
      : {
          name: 'sender domain verified',
          ok: false,
          detail: status === null ? `${domain} is not among the team's domains` : `${domain} is ${status}, not verified`,
        },
  ];
}
