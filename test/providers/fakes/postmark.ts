/**
 * A fake of Postmark's API for the adapter's tests, speaking its documented wire format
 * (https://postmarkapp.com/developer/api/overview, /email-api, /messages-api; the request and
 * answer shapes of ActiveCampaign/postmark.js): `POST /email`, `GET /messages/outbound`,
 * `GET /server` and `GET /message-streams/<id>` behind `X-Postmark-Server-Token`, `GET
 * /domains` and `GET /senders` behind `X-Postmark-Account-Token`; errors are
 * `{ErrorCode, Message}`. What Postmark would refuse, it refuses: a missing or wrong token (401,
 * ErrorCode 10), no JSON Accept/Content-Type (422, 409), a body that is not JSON (422, 402), a
 * sender that is no confirmed signature or verified domain (422, 400), an illegal address, no
 * body part, more than 50 recipients or metadata that is not strings (422, 300), an inactive
 * recipient (422, 406), a stream the server does not have (422, 300: the exact code Postmark
 * uses for that is not documented where we looked). Answers are scripted by class. It also
 * builds webhook bodies as Postmark posts them, with the URL's Basic credentials.
 */
import { randomUUID } from 'node:crypto';
import type { CallbackRequest } from '../../../src/providers/provider.js';
import { header, startHttpFake, type FakeReply, type FakeRequest, type HttpFake } from './http-fake.js';

/** The next answer to `POST /email` (after auth and validation, which always apply). */
export type PostmarkScript =
  | { kind: 'accept' }
  /** 422 ErrorCode 300 (invalid email request). */
  | { kind: 'permanent' }
  /** 422 with this ErrorCode. */
  | { kind: 'error_code'; code: number; status?: number }
  /** 503: a planned outage; nothing is created. */
  | { kind: 'unavailable' }
  /** 500; `created` says whether the message was in fact kept ("in most cases the message is lost"). */
  | { kind: 'server_error'; created: boolean }
  /** 429, with `Retry-After` only when asked (Postmark documents none). */
  | { kind: 'throttled'; retryAfter?: string }
  | { kind: 'accept_then_hang' }
  | { kind: 'accept_then_reset' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'hang' }
  | { kind: 'malformed'; bytes: string };

/** The next answer to `GET /messages/outbound`. */
export type PostmarkLookupScript = { kind: 'answer' } | { kind: 'error'; status: number } | { kind: 'hang' } | { kind: 'malformed_list' };

export interface PostmarkReceived {
  token: string | null;
  accept: string | null;
  contentType: string | null;
  raw: string;
  json: Record<string, unknown> | null;
  answered: number | null;
}

export interface PostmarkMessage {
  MessageID: string;
  To: string;
  From: string;
  Subject: string;
  MessageStream: string;
  Metadata: Record<string, string>;
  Tag: string | null;
  ReceivedAt: string;
}

export interface PostmarkFakeOptions {
  serverToken: string;
  accountToken?: string;
  /** Verified domains (DKIM) and confirmed sender signatures: a sender must be on one. */
  domains?: string[];
  senders?: string[];
  streams?: Array<{ id: string; type: 'Transactional' | 'Broadcasts' }>;
  inactive?: string[];
  deliveryType?: 'Live' | 'Sandbox';
}

export interface PostmarkFake {
  url: string;
  script(...answers: PostmarkScript[]): void;
  scriptLookup(...answers: PostmarkLookupScript[]): void;
  readonly received: PostmarkReceived[];
  readonly messages: PostmarkMessage[];
  /** Every look-up's query, in order. */
  readonly lookups: URLSearchParams[];
  refuse(): Promise<void>;
  close(): Promise<void>;
}

// Postmark's own address checks (https://postmarkapp.com/support/article/1180-what-does-errorcode-300-mean).
const DOMAIN = /^((\.)?[a-zA-Z0-9-])+$/;
const MAILBOX = /^[a-z0-9.!#$%&'`*+\-/=^_{}|~]+$/i;
const NAMED = /^(?:"(?:[^"\\]|\\.)*"|[^<>"]*)\s*<([^<>]+)>$/;

function addressOf(mailbox: string): string | null {
  const trimmed = mailbox.trim();
  const address = NAMED.exec(trimmed)?.[1] ?? trimmed;
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  return MAILBOX.test(address.slice(0, at)) && DOMAIN.test(address.slice(at + 1)) && address.slice(at + 1).includes('.') ? address : null;
}

function fail(status: number, code: number, message: string, headers?: Record<string, string>): FakeReply {
  return { kind: 'json', status, body: { ErrorCode: code, Message: message }, ...(headers ? { headers } : {}) };
}

function page(request: FakeRequest): { count: number; offset: number } | null {
  const count = Number(request.query.get('count'));
  const offset = Number(request.query.get('offset'));
  if (!Number.isInteger(count) || count < 1 || count > 500 || !Number.isInteger(offset) || offset < 0) return null;
  return { count, offset };
}

/** Starts a fake Postmark server for one test. */
export async function startPostmarkFake(options: PostmarkFakeOptions): Promise<PostmarkFake> {
  const domains = new Set((options.domains ?? ['herald.test']).map((d) => d.toLowerCase()));
  const senders = new Set((options.senders ?? []).map((s) => s.toLowerCase()));
  const streams = new Map(
    (
      options.streams ?? [
        { id: 'outbound', type: 'Transactional' },
        { id: 'broadcast', type: 'Broadcasts' },
      ]
    ).map((s) => [s.id, s.type]),
  );
  const inactive = new Set((options.inactive ?? []).map((a) => a.toLowerCase()));
  const queue: PostmarkScript[] = [];
  const lookupQueue: PostmarkLookupScript[] = [];
  const received: PostmarkReceived[] = [];
  const messages: PostmarkMessage[] = [];
  const lookups: URLSearchParams[] = [];

  const serverAuth = (request: FakeRequest): FakeReply | null =>
    header(request, 'x-postmark-server-token') === options.serverToken ? null : fail(401, 10, 'Request does not contain a valid Server token.');
  const accountAuth = (request: FakeRequest): FakeReply | null =>
    options.accountToken !== undefined && header(request, 'x-postmark-account-token') === options.accountToken
      ? null
      : fail(401, 10, 'Request does not contain a valid Account token.');

  const validate = (json: Record<string, unknown>): FakeReply | null => {
    const from = typeof json.From === 'string' ? addressOf(json.From) : null;
    if (from === null) return fail(422, 300, "Invalid 'From' address.");
    const domain = from.slice(from.lastIndexOf('@') + 1).toLowerCase();
    if (!domains.has(domain) && !senders.has(from.toLowerCase()))
      return fail(422, 400, "The 'From' address you supplied is not a Sender Signature on your account.");
    if (typeof json.To !== 'string' || json.To.trim() === '') return fail(422, 300, 'Zero recipients specified.');
    const to = json.To.split(',');
    if (to.length > 50) return fail(422, 300, 'Maximum of 50 recipients allowed per email message.');
    const illegal = to.find((t) => addressOf(t) === null);
    // Postmark quotes the address in its ErrorCode 300 messages (support article 1180), so an adapter copying them leaks.
    if (illegal !== undefined) return fail(422, 300, `Error parsing 'To': Illegal email address '${illegal}'. It must contain the '@' symbol.`);
    if (typeof json.TextBody !== 'string' && typeof json.HtmlBody !== 'string') return fail(422, 300, 'Provide either email TextBody or HtmlBody or both.');
    if (json.ReplyTo !== undefined && (typeof json.ReplyTo !== 'string' || addressOf(json.ReplyTo) === null))
      return fail(422, 300, "Invalid 'ReplyTo' address.");
    const metadata = json.Metadata;
    if (
      metadata !== undefined &&
      (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata) || Object.values(metadata).some((v) => typeof v !== 'string'))
    ) {
      return fail(422, 300, 'Metadata values must be strings.');
    }
    const headers = json.Headers;
    if (headers !== undefined && (!Array.isArray(headers) || headers.some((h) => typeof h?.Name !== 'string' || typeof h?.Value !== 'string'))) {
      return fail(422, 300, 'Headers must be a list of Name and Value.');
    }
    const stream = json.MessageStream ?? 'outbound';
    if (typeof stream !== 'string' || !streams.has(stream)) return fail(422, 300, 'The message stream for the provided MessageStream was not found.');
    if (to.some((t) => inactive.has((addressOf(t) ?? '').toLowerCase()))) {
      return fail(422, 406, `You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: ${String(json.To)}.`);
    }
    return null;
  };

  const send = (request: FakeRequest, record: PostmarkReceived): FakeReply => {
    const refused = serverAuth(request);
    if (refused) return refused;
    if (!/application\/json/i.test(record.accept ?? '') || !/^application\/json\b/i.test(record.contentType ?? '')) {
      return fail(422, 409, 'Your HTTP request does not have the Accept and Content-Type headers set to application/json.');
    }
    if (record.json === null) return fail(422, 402, 'Received invalid JSON input.');
    const invalid = validate(record.json);
    if (invalid) return invalid;
    const json = record.json;
    const create = (): PostmarkMessage => {
      const message: PostmarkMessage = {
        MessageID: randomUUID(),
        To: String(json.To),
        From: String(json.From),
        Subject: typeof json.Subject === 'string' ? json.Subject : '',
        MessageStream: typeof json.MessageStream === 'string' ? json.MessageStream : 'outbound',
        Metadata: (json.Metadata as Record<string, string> | undefined) ?? {},
        Tag: typeof json.Tag === 'string' ? json.Tag : null,
        ReceivedAt: new Date().toISOString(),
      };
      messages.push(message);
      return message;
    };
    const ok = (m: PostmarkMessage, delayMs?: number): FakeReply => ({
      kind: 'json',
      status: 200,
      body: { To: m.To, SubmittedAt: m.ReceivedAt, MessageID: m.MessageID, ErrorCode: 0, Message: 'OK' },
      ...(delayMs === undefined ? {} : { delayMs }),
    });
    const answer = queue.shift() ?? { kind: 'accept' };
    switch (answer.kind) {
      case 'accept':
        return ok(create());
      case 'permanent':
        return fail(422, 300, `Invalid email request for '${String(json.To)}'.`);
      case 'error_code':
        return fail(answer.status ?? 422, answer.code, 'Scripted error.');
      case 'unavailable':
        return fail(503, 100, 'Maintenance.');
      case 'server_error':
        if (answer.created) create();
        return fail(500, 0, 'Internal Server Error.');
      case 'throttled':
        return fail(429, 429, 'Rate Limit Exceeded.', answer.retryAfter === undefined ? undefined : { 'retry-after': answer.retryAfter });
      case 'accept_then_hang':
        create();
        return { kind: 'hang' };
      case 'accept_then_reset':
        create();
        return { kind: 'reset' };
      case 'slow':
        return ok(create(), answer.delayMs);
      case 'hang':
        return { kind: 'hang' };
      case 'malformed':
        return { kind: 'raw', bytes: Buffer.from(answer.bytes, 'latin1') };
    }
  };

  const search = (request: FakeRequest): FakeReply => {
    const refused = serverAuth(request);
    if (refused) return refused;
    lookups.push(request.query);
    const scripted = lookupQueue.shift() ?? { kind: 'answer' };
    if (scripted.kind === 'hang') return { kind: 'hang' };
    if (scripted.kind === 'error') return fail(scripted.status, 0, 'Scripted error.');
    if (scripted.kind === 'malformed_list') return { kind: 'json', status: 200, body: { TotalCount: 1 } };
    const p = page(request);
    if (p === null) return fail(422, 300, 'The count and offset parameters are required (count at most 500).');
    const stream = request.query.get('messagestream') ?? 'outbound';
    const filters = [...request.query.entries()]
      .filter(([name]) => name.startsWith('metadata_'))
      .map(([name, value]) => [name.slice('metadata_'.length), value] as const);
    const matching = messages.filter((m) => m.MessageStream === stream && filters.every(([field, value]) => m.Metadata[field] === value));
    const view = matching.slice(p.offset, p.offset + p.count).map((m) => ({
      MessageID: m.MessageID,
      Tag: m.Tag,
      To: [{ Email: m.To, Name: null }],
      Cc: [],
      Bcc: [],
      Recipients: [m.To],
      ReceivedAt: m.ReceivedAt,
      From: m.From,
      Subject: m.Subject,
      Attachments: [],
      Status: 'Sent',
      TrackOpens: false,
      TrackLinks: 'None',
      Metadata: m.Metadata,
      MessageStream: m.MessageStream,
      Sandboxed: false,
    }));
    return { kind: 'json', status: 200, body: { TotalCount: matching.length, Messages: view } };
  };

  const http: HttpFake = await startHttpFake((request) => {
    if (request.method === 'POST' && request.path === '/email') {
      const raw = request.body.toString('utf8');
      let json: Record<string, unknown> | null = null;
      try {
        const parsed = JSON.parse(raw) as unknown;
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
      } catch {
        json = null;
      }
      const record: PostmarkReceived = {
        token: header(request, 'x-postmark-server-token') ?? null,
        accept: header(request, 'accept') ?? null,
        contentType: header(request, 'content-type') ?? null,
        raw,
        json,
        answered: null,
      };
      received.push(record);
      const reply = send(request, record);
      if (reply.kind === 'json') record.answered = reply.status;
      return reply;
    }
    if (request.method === 'GET' && request.path === '/messages/outbound') return search(request);
    if (request.method === 'GET' && request.path === '/server') {
      return (
        serverAuth(request) ?? {
          kind: 'json',
          status: 200,
          body: { ID: 1, Name: 'Herald test server', DeliveryType: options.deliveryType ?? 'Live', ApiTokens: [options.serverToken] },
        }
      );
    }
    const streamPath = /^\/message-streams\/([^/]+)$/.exec(request.path);
    if (request.method === 'GET' && streamPath) {
      const refused = serverAuth(request);
      if (refused) return refused;
      const id = decodeURIComponent(streamPath[1] ?? '');
      const type = streams.get(id);
      if (type === undefined) return fail(422, 300, 'The message stream was not found.');
      return { kind: 'json', status: 200, body: { ID: id, ServerID: 1, Name: id, MessageStreamType: type, ArchivedAt: null } };
    }
    if (request.method === 'GET' && (request.path === '/domains' || request.path === '/senders')) {
      const refused = accountAuth(request);
      if (refused) return refused;
      if (page(request) === null) return fail(422, 300, 'The count and offset parameters are required.');
      if (request.path === '/domains') {
        const list = [...domains].map((name, i) => ({
          ID: i + 1,
          Name: name,
          SPFVerified: true,
          DKIMVerified: true,
          WeakDKIM: false,
          ReturnPathDomainVerified: true,
        }));
        return { kind: 'json', status: 200, body: { TotalCount: list.length, Domains: list } };
      }
      const list = [...senders].map((address, i) => ({
        ID: i + 1,
        Name: address,
        Domain: address.slice(address.indexOf('@') + 1),
        EmailAddress: address,
        ReplyToEmailAddress: '',
        Confirmed: true,
      }));
      return { kind: 'json', status: 200, body: { TotalCount: list.length, SenderSignatures: list } };
    }
    return fail(404, 0, 'Entity does not exist.');
  });

  return {
    url: http.url,
    script: (...answers) => {
      queue.push(...answers);
    },
    scriptLookup: (...answers) => {
      lookupQueue.push(...answers);
    },
    received,
    messages,
    lookups,
    refuse: http.refuse,
    close: http.close,
  };
}

/** A webhook record as Postmark posts it (postmark.js webhook payload models). */
export type PostmarkRecord = Record<string, unknown>;

export const postmarkRecords = {
  delivery: (messageId: string, reference: string | null, deliveredAt = '2026-11-29T12:00:05Z'): PostmarkRecord => ({
    RecordType: 'Delivery',
    ServerID: 1,
    MessageStream: 'outbound',
    MessageID: messageId,
    Recipient: 'canary.wren@example.test',
    Tag: 'otp',
    DeliveredAt: deliveredAt,
    Details: 'Test delivery webhook details',
    Metadata: reference === null ? {} : { herald_reference: reference },
  }),
  bounce: (messageId: string, reference: string | null, type: string, id = 4323372036): PostmarkRecord => ({
    RecordType: 'Bounce',
    ID: id,
    Type: type,
    TypeCode: type === 'HardBounce' ? 1 : 4096,
    Name: type,
    Tag: 'otp',
    MessageID: messageId,
    ServerID: 1,
    MessageStream: 'outbound',
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
    Email: 'canary.wren@example.test',
    From: 'noreply@herald.test',
    BouncedAt: '2026-11-29T12:00:06Z',
    DumpAvailable: true,
    Inactive: type === 'HardBounce',
    CanActivate: true,
    Subject: 'Sign-in code',
    Metadata: reference === null ? {} : { herald_reference: reference },
  }),
  spamComplaint: (messageId: string, reference: string | null, id = 42): PostmarkRecord => ({
    RecordType: 'SpamComplaint',
    ID: id,
    Type: 'SpamComplaint',
    TypeCode: 512,
    Name: 'Spam complaint',
    Tag: 'otp',
    MessageID: messageId,
    ServerID: 1,
    MessageStream: 'outbound',
    Description: 'The subscriber explicitly marked this message as spam.',
    Details: 'Test spam complaint details',
    Email: 'canary.wren@example.test',
    From: 'noreply@herald.test',
    BouncedAt: '2026-11-29T12:00:07Z',
    DumpAvailable: true,
    Inactive: true,
    CanActivate: false,
    Subject: 'Sign-in code',
    Metadata: reference === null ? {} : { herald_reference: reference },
  }),
  open: (messageId: string): PostmarkRecord => ({
    RecordType: 'Open',
    MessageStream: 'outbound',
    FirstOpen: true,
    MessageID: messageId,
    Recipient: 'canary.wren@example.test',
    ReceivedAt: '2026-11-29T12:01:00Z',
    Metadata: {},
  }),
  click: (messageId: string): PostmarkRecord => ({
    RecordType: 'Click',
    MessageStream: 'outbound',
    MessageID: messageId,
    Recipient: 'canary.wren@example.test',
    ReceivedAt: '2026-11-29T12:02:00Z',
    OriginalLink: 'https://example.test',
    Metadata: {},
  }),
  subscriptionChange: (messageId: string): PostmarkRecord => ({
    RecordType: 'SubscriptionChange',
    MessageID: messageId,
    ServerID: 1,
    MessageStream: 'broadcast',
    ChangedAt: '2026-11-29T12:03:00Z',
    Recipient: 'canary.wren@example.test',
    Origin: 'Recipient',
    SuppressSending: true,
    SuppressionReason: 'ManualSuppression',
    Metadata: {},
  }),
};

/** The request Postmark makes for `record` to a webhook URL holding `user:password`. */
export function postmarkWebhook(record: PostmarkRecord, credentials: { username: string; password: string } | null): CallbackRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Postmark' };
  if (credentials !== null) headers.authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  return { rawBody: Buffer.from(JSON.stringify(record)), headers, url: 'https://herald.test/v1/callbacks/postmark-email' };
}
