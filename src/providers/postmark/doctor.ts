/**
 * `herald doctor` for a Postmark account, without sending: `GET /server` with the server
 * token (credentials accepted; a Sandbox server accepts mail and never delivers it), `GET
 * /message-streams/<id>` for both streams, and, when an account token is configured, the
 * sender: its domain with DKIM verified (`GET /domains`) or a confirmed sender signature for
 * the address (`GET /senders`). Those two need account-level access, which a server token lacks.
 */
import { settingsForDoctor } from '../credentials.js';
import { mailboxDomain, parseMailbox } from '../../domain/index.js';
import { endpointUrl } from '../outbound-http/endpoint.js';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { postmarkBase } from './adapter.js';
import { postmarkErrorCode } from './classify.js';
import { readPostmarkSettings } from './settings.js';

// Postmark's list endpoints take count (at most 500) and offset.
const PAGE = new URLSearchParams({ count: '500', offset: '0' });

type Answer = { status: number; body: Record<string, unknown> | null };

async function getJson(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Answer> {
  const res = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal });
  const text = await res.text();
  try {
    const body = JSON.parse(text) as unknown;
    return { status: res.status, body: typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null };
  } catch {
    return { status: res.status, body: null };
  }
}

function what(answer: Answer): string {
  const code = postmarkErrorCode(answer.body);
  return code === null ? `HTTP ${answer.status}` : `HTTP ${answer.status} (ErrorCode ${code})`;
}

function list(body: Record<string, unknown> | null, field: string): Array<Record<string, unknown>> {
  const items = body?.[field];
  return Array.isArray(items) ? items.filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null) : [];
}

async function senderCheck(base: URL, accountToken: string, from: string, signal: AbortSignal): Promise<DoctorCheck> {
  const parsed = parseMailbox(from);
  if (parsed === null) return { name: 'sender verified', ok: false, detail: 'settings.from is not an address' };
  const mailbox = { address: parsed.address, domain: mailboxDomain(parsed) };
  const headers = { 'x-postmark-account-token': accountToken };
  const domains = await getJson(endpointUrl(base, '/domains', PAGE), headers, signal);
  if (domains.status !== 200) return { name: 'sender verified', ok: false, detail: `Postmark refused the account token: ${what(domains)}` };
  const domain = list(domains.body, 'Domains').find((d) => typeof d.Name === 'string' && d.Name.toLowerCase() === mailbox.domain);
  if (domain?.DKIMVerified === true) {
    const returnPath = domain.ReturnPathDomainVerified === true ? '' : '; its Return-Path domain is not verified (SPF alignment for DMARC)';
    return { name: 'sender verified', ok: true, detail: `${mailbox.domain} has DKIM verified${returnPath}` };
  }
  const senders = await getJson(endpointUrl(base, '/senders', PAGE), headers, signal);
  const signature = list(senders.body, 'SenderSignatures').find(
    (s) => typeof s.EmailAddress === 'string' && s.EmailAddress.toLowerCase() === mailbox.address.toLowerCase(),
  );
  if (signature?.Confirmed === true) return { name: 'sender verified', ok: true, detail: `the sender signature for ${mailbox.address} is confirmed` };
  const why = domain === undefined ? `${mailbox.domain} is not a domain of the account` : `${mailbox.domain} has DKIM not yet verified`;
  return { name: 'sender verified', ok: false, detail: `${why}, and ${mailbox.address} has no confirmed sender signature` };
}

/** Asks Postmark whether this account's token, streams and sender would work. */
export async function postmarkDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  const read = settingsForDoctor(() => readPostmarkSettings(account), true);
  if (!read.ok) return read.checks;
  const settings = read.settings;
  const base = postmarkBase(account);
  const token = { 'x-postmark-server-token': settings.serverToken };
  const checks: DoctorCheck[] = [];
  try {
    const server = await getJson(endpointUrl(base, '/server'), token, signal);
    if (server.status !== 200) return [{ name: 'credentials accepted', ok: false, detail: `Postmark refused the server token: ${what(server)}` }];
    checks.push({ name: 'credentials accepted', ok: true, detail: `server ${typeof server.body?.Name === 'string' ? server.body.Name : '(unnamed)'}` });
    const delivery = server.body?.DeliveryType;
    checks.push(
      delivery === 'Sandbox'
        ? { name: 'server delivers', ok: false, detail: 'the server is a Sandbox server: Postmark accepts its mail and delivers none' }
        : { name: 'server delivers', ok: true, detail: `delivery type ${typeof delivery === 'string' ? delivery : 'not stated'}` },
    );
    for (const stream of new Set([settings.transactionalStream, settings.broadcastStream])) {
      const answer = await getJson(endpointUrl(base, `/message-streams/${encodeURIComponent(stream)}`), token, signal);
      const archived = typeof answer.body?.ArchivedAt === 'string';
      checks.push(
        answer.status === 200 && !archived
          ? {
              name: `message stream ${stream}`,
              ok: true,
              detail: `${typeof answer.body?.MessageStreamType === 'string' ? answer.body.MessageStreamType : 'stream'} exists`,
            }
          : { name: `message stream ${stream}`, ok: false, detail: archived ? 'the stream is archived' : `Postmark answered ${what(answer)}` },
      );
    }
    checks.push(
      settings.accountToken === null
        ? { name: 'sender check', ok: true, detail: 'skipped: set settings.account_token to let doctor check the sender signature or domain' }
        : await senderCheck(base, settings.accountToken, settings.from, signal),
    );
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    checks.push({ name: 'endpoint answers', ok: false, detail: `${base.origin} did not answer (${cause})` });
  }
  return checks;
}
