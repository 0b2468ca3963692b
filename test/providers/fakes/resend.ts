/**
 * A fake of Resend's API for the adapter's tests, speaking its documented wire format
 * (https://resend.com/docs/api-reference, resend/resend-openapi): `POST /emails` and
 * `GET /domains` behind `Authorization: Bearer`, error bodies `{statusCode, name, message}`.
 * What the real service would refuse, it refuses: a missing or wrong key (401
 * `missing_api_key`, 403 `invalid_api_key`), a body that is not JSON (400 `validation_error`),
 * a missing from/to/subject or body part (422 `missing_required_field`), a malformed sender
 * (422 `invalid_from_address`) or recipient, tag or header (422 `validation_error`), a sender
 * domain not verified (403 `validation_error`), an Idempotency-Key outside 1-256 characters
 * (400 `invalid_idempotency_key`). It keeps Idempotency-Keys like Resend: a repeat with the same
 * body replays the original answer without creating an e-mail, another body is 409
 * `invalid_idempotent_request`, one still in progress is 409 `concurrent_idempotent_requests`.
 * Answers are scripted by class; it also signs webhooks the way Resend (Svix) does.
 */
import { randomUUID } from 'node:crypto';
import { signWebhook } from '../../../src/signing/standard-webhooks.js';
import type { CallbackRequest } from '../../../src/providers/provider.js';
import { header, jsonObject, startHttpFake, type FakeReply, type FakeRequest, type HttpFake } from './http-fake.js';

export type ResendThrottleHint = 'none' | 'retry_after_seconds' | 'retry_after_date' | 'ratelimit_headers';

/** The next answer to `POST /emails` (after auth and validation, which always apply). */
export type ResendScript =
  | { kind: 'accept' }
  /** 422 validation_error. */
  | { kind: 'permanent' }
  /** Any Resend error by status and name. */
  | { kind: 'error'; status: number; name: string }
  /** 500 application_error. */
  | { kind: 'server_error' }
  | { kind: 'throttled'; hint: ResendThrottleHint; seconds: number; name?: string }
  /** Create the e-mail (and keep the key), then never answer: the lost response. */
  | { kind: 'accept_then_hang' }
  /** Create the e-mail, then reset the connection before answering. */
  | { kind: 'accept_then_reset' }
  /** Create the e-mail and answer after `delayMs` (the key is in progress meanwhile). */
  | { kind: 'slow'; delayMs: number }
  /** Keep the key in progress and never answer; `release()` creates the e-mail (the answer stays lost). */
  | { kind: 'held' }
  /** Read the request, create nothing, never answer. */
  | { kind: 'hang' }
  /** Answer bytes that are not HTTP. */
  | { kind: 'malformed'; bytes: string };

/** One `POST /emails` the fake read whole, refused ones included. */
export interface ResendReceived {
  idempotencyKey: string | null;
  authorization: string | null;
  contentType: string | null;
  raw: string;
  /** The parsed body, or null when it is not JSON. */
  json: Record<string, unknown> | null;
  /** The status the fake answered (null: it did not answer). */
  answered: number | null;
}

export interface ResendEmail {
  id: string;
  idempotencyKey: string | null;
  body: Record<string, unknown>;
}

export interface ResendFakeOptions {
  apiKey: string;
  /** A key that may only send (GET /domains is 401 restricted_api_key). */
  sendingOnlyKey?: string;
  /** The team's domains; a sender on another domain, or on one not verified, is refused. */
  domains?: Array<{ name: string; status: string }>;
}

export interface ResendFake {
  url: string;
  script(...answers: ResendScript[]): void;
  readonly received: ResendReceived[];
  readonly emails: ResendEmail[];
  /** Finishes every `held` send: creates its e-mail and ends its key's progress. */
  release(): void;
  refuse(): Promise<void>;
  close(): Promise<void>;
}

const ADDRESS = /^[^\s@<>",;]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
const MAILBOX = /^(?:[^<>\r\n]*<([^<>\s]+)>|([^<>\s]+))$/;
const TAG = /^[A-Za-z0-9_-]{1,256}$/;

function mailboxAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = MAILBOX.exec(value.trim());
  const address = m?.[1] ?? m?.[2];
  return address !== undefined && ADDRESS.test(address) ? address : null;
}

function error(status: number, name: string, message: string, headers?: Record<string, string>): FakeReply {
  return { kind: 'json', status, body: { statusCode: status, name, message }, ...(headers ? { headers } : {}) };
}

function stringOrList(value: unknown): unknown[] | null {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value : null;
}

/** Resend's validation of a send body, in the order it reports: null when the body is acceptable. */
function validate(json: Record<string, unknown>, domains: ReadonlyMap<string, string>): FakeReply | null {
  for (const field of ['from', 'to', 'subject']) {
    if (json[field] === undefined) return error(422, 'missing_required_field', `Missing \`${field}\` field.`);
  }
  if (json.html === undefined && json.text === undefined) return error(422, 'missing_required_field', 'Missing `html` or `text` field.');
  const from = mailboxAddress(json.from);
  if (from === null)
    return error(
      422,
      'invalid_from_address',
      'Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.',
    );
  const to = stringOrList(json.to);
  if (to === null || to.length === 0 || to.length > 50 || to.some((t) => mailboxAddress(t) === null)) {
    return error(
      422,
      'validation_error',
      'Invalid `to` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.',
    );
  }
  if (typeof json.subject !== 'string') return error(422, 'validation_error', 'The `subject` field must be a `string`.');
  for (const part of ['html', 'text']) {
    if (json[part] !== undefined && typeof json[part] !== 'string') return error(422, 'validation_error', `The \`${part}\` field must be a \`string\`.`);
  }
  if (json.reply_to !== undefined) {
    const replyTo = stringOrList(json.reply_to);
    if (replyTo === null || replyTo.some((r) => mailboxAddress(r) === null)) return error(422, 'validation_error', 'Invalid `reply_to` field.');
  }
  if (json.headers !== undefined) {
    const h = json.headers;
    if (typeof h !== 'object' || h === null || Array.isArray(h) || Object.values(h).some((v) => typeof v !== 'string')) {
      return error(422, 'validation_error', 'The `headers` field must be an object of strings.');
    }
  }
  if (json.tags !== undefined) {
    const tags = json.tags;
    const bad =
      !Array.isArray(tags) ||
      tags.some(
        (t) =>
          typeof t !== 'object' ||
          t === null ||
          !TAG.test(String((t as Record<string, unknown>).name)) ||
          !TAG.test(String((t as Record<string, unknown>).value)),
      );
    if (bad) return error(422, 'validation_error', 'Tags should only contain ASCII letters, numbers, underscores, or dashes.');
  }
  const domain = from.slice(from.lastIndexOf('@') + 1).toLowerCase();
  if (domains.get(domain) !== 'verified') return error(403, 'validation_error', `The ${domain} domain is not verified. Please, add and verify your domain.`);
  return null;
}

function throttle(answer: Extract<ResendScript, { kind: 'throttled' }>): FakeReply {
  const headers: Record<string, string> = {};
  if (answer.hint === 'retry_after_seconds') headers['retry-after'] = String(answer.seconds);
  if (answer.hint === 'retry_after_date') headers['retry-after'] = new Date(Date.now() + answer.seconds * 1000).toUTCString();
  if (answer.hint === 'ratelimit_headers')
    Object.assign(headers, { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': String(answer.seconds) });
  const name = answer.name ?? 'rate_limit_exceeded';
  return error(429, name, 'Too many requests. You can only make 2 requests per second.', headers);
}

/** Starts a fake Resend for one test. */
export async function startResendFake(options: ResendFakeOptions): Promise<ResendFake> {
  const domains = new Map((options.domains ?? [{ name: 'herald.test', status: 'verified' }]).map((d) => [d.name.toLowerCase(), d.status]));
  const queue: ResendScript[] = [];
  const received: ResendReceived[] = [];
  const emails: ResendEmail[] = [];
  /** Idempotency-Key → the body it was used with and the id it answered; Resend keeps them 24 h. */
  const keys = new Map<string, { raw: string; id: string }>();
  const inProgress = new Set<string>();
  const held: Array<() => void> = [];

  const authorize = (request: FakeRequest, sending: boolean): FakeReply | null => {
    const auth = header(request, 'authorization');
    if (auth === undefined || !auth.startsWith('Bearer ')) return error(401, 'missing_api_key', 'Missing API key in the authorization header.');
    const key = auth.slice('Bearer '.length);
    if (key === options.apiKey) return null;
    if (key === options.sendingOnlyKey) return sending ? null : error(401, 'restricted_api_key', 'This API key is restricted to only send emails.');
    return error(403, 'invalid_api_key', 'API key is invalid.');
  };

  const send = (request: FakeRequest, record: ResendReceived): FakeReply => {
    const refused = authorize(request, true);
    if (refused) return refused;
    if (!/^application\/json\b/i.test(record.contentType ?? '') || record.json === null) {
      return error(400, 'validation_error', 'Invalid JSON body.');
    }
    const key = record.idempotencyKey;
    if (key !== null && (key.length < 1 || key.length > 256)) return error(400, 'invalid_idempotency_key', 'The key must be between 1-256 chars.');
    const invalid = validate(record.json, domains);
    if (invalid) return invalid;
    const answer = queue.shift() ?? { kind: 'accept' };
    switch (answer.kind) {
      case 'permanent':
        return error(422, 'validation_error', 'We found an error with one or more fields in the request.');
      case 'error':
        return error(answer.status, answer.name, 'Scripted error.');
      case 'server_error':
        return error(500, 'application_error', 'An unexpected error occurred.');
      case 'throttled':
        return throttle(answer);
      case 'hang':
        return { kind: 'hang' };
      case 'malformed':
        return { kind: 'raw', bytes: Buffer.from(answer.bytes, 'latin1') };
      default:
        break;
    }
    if (key !== null) {
      if (inProgress.has(key)) return error(409, 'concurrent_idempotent_requests', 'Same idempotency key used while original request is still in progress.');
      const earlier = keys.get(key);
      if (earlier !== undefined) {
        if (earlier.raw !== record.raw) return error(409, 'invalid_idempotent_request', 'Same idempotency key used with a different request payload.');
        return { kind: 'json', status: 200, body: { id: earlier.id } };
      }
    }
    const id = randomUUID();
    const create = (): void => {
      emails.push({ id, idempotencyKey: key, body: record.json! });
      if (key !== null) keys.set(key, { raw: record.raw, id });
    };
    switch (answer.kind) {
      case 'accept_then_hang':
        create();
        return { kind: 'hang' };
      case 'accept_then_reset':
        create();
        return { kind: 'reset' };
      case 'held':
        if (key !== null) inProgress.add(key);
        held.push(() => {
          if (key !== null) inProgress.delete(key);
          create();
        });
        return { kind: 'hang' };
      case 'slow':
        if (key !== null) inProgress.add(key);
        setTimeout(() => {
          if (key !== null) inProgress.delete(key);
          create();
        }, answer.delayMs);
        return { kind: 'json', status: 200, body: { id }, delayMs: answer.delayMs };
      default:
        create();
        return { kind: 'json', status: 200, body: { id } };
    }
  };

  const http: HttpFake = await startHttpFake((request) => {
    if (request.method === 'POST' && request.path === '/emails') {
      const raw = request.body.toString('utf8');
      const json = jsonObject(raw);
      const record: ResendReceived = {
        idempotencyKey: header(request, 'idempotency-key') ?? null,
        authorization: header(request, 'authorization') ?? null,
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
    if (request.method === 'GET' && request.path === '/domains') {
      const refused = authorize(request, false);
      if (refused) return refused;
      const data = [...domains].map(([name, status], i) => ({ id: `d-${i}`, name, status, created_at: '2026-01-01 00:00:00.000000+00', region: 'us-east-1' }));
      return { kind: 'json', status: 200, body: { object: 'list', has_more: false, data } };
    }
    return error(404, 'not_found', 'The requested endpoint does not exist.');
  });

  return {
    url: http.url,
    script: (...answers) => {
      queue.push(...answers);
    },
    received,
    emails,
    release: () => {
      for (const finish of held.splice(0)) finish();
    },
    refuse: http.refuse,
    close: http.close,
  };
}

/** One Resend webhook event, as the fake's tests describe it. */
export interface ResendEventSpec {
  type: string;
  emailId: string;
  /** Herald's reference tag; omitted when null. */
  reference?: string | null;
  /** Tags as Resend's webhook schema gives them (object) or as the send request does (array). */
  tagsForm?: 'object' | 'array';
  createdAt?: string;
  bounceType?: 'Permanent' | 'Transient' | 'Undetermined';
  suppressedReason?: 'previous_bounce' | 'previous_complaint';
}

/** The body Resend posts for `spec` (resend-openapi "Webhook Events"). */
export function resendEventBody(spec: ResendEventSpec): Buffer {
  const createdAt = spec.createdAt ?? '2026-11-29T12:00:00.000Z';
  const data: Record<string, unknown> = {
    email_id: spec.emailId,
    created_at: createdAt,
    from: 'Herald <noreply@herald.test>',
    to: ['canary.wren@example.test'],
    subject: 'Sign-in code',
  };
  if (spec.reference !== undefined && spec.reference !== null) {
    data.tags = spec.tagsForm === 'array' ? [{ name: 'herald_reference', value: spec.reference }] : { herald_reference: spec.reference, herald_purpose: 'otp' };
  }
  if (spec.type === 'email.bounced') {
    data.bounce = {
      diagnosticCode: ['smtp; 550 5.1.1 user unknown'],
      message: 'The recipient does not exist.',
      subType: 'General',
      type: spec.bounceType ?? 'Permanent',
    };
  }
  if (spec.type === 'email.suppressed') {
    data.suppressed = { diagnosticCode: [], message: 'Suppressed.', reason: spec.suppressedReason ?? 'previous_bounce', type: 'OnAccountSuppressionList' };
  }
  if (spec.type === 'email.failed') data.failed = { reason: 'reached_daily_quota' };
  return Buffer.from(JSON.stringify({ type: spec.type, created_at: createdAt, data }));
}

/** A webhook request as Resend (through Svix) sends it: svix-* headers signed with every secret given. */
export function resendWebhook(spec: ResendEventSpec, options: { secrets: readonly string[]; svixId: string; atMs: number }): CallbackRequest {
  const rawBody = resendEventBody(spec);
  const signed = signWebhook(options.secrets, options.svixId, options.atMs, rawBody);
  return {
    rawBody,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Svix-Webhooks/1.0',
      'svix-id': signed['webhook-id'],
      'svix-timestamp': signed['webhook-timestamp'],
      'svix-signature': signed['webhook-signature'],
    },
    url: 'https://herald.test/v1/callbacks/resend-email',
  };
}
