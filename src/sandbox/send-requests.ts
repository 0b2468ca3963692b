/**
 * The three send endpoints' request and response shapes, modelled on Resend (email), Twilio
 * (SMS) and FCM HTTP v1 (push). Pure: parsing a body and building an acceptance touch no
 * socket, so the shapes can be read and tested in one place.
 */
import { randomBytes } from 'node:crypto';
import type { Channel } from '../domain/index.js';

export type SendEndpoint = { channel: 'email' } | { channel: 'sms'; accountSid: string } | { channel: 'push'; project: string };

/** A send the sandbox could accept: what the ledger records about it. */
export interface ValidSend {
  channel: Channel;
  destination: string;
  /** Email only: the extra header fields of a Resend-shaped body (`headers`), as sent. */
  headers?: Record<string, string>;
}

export type SendValidation =
  | { ok: true; send: ValidSend }
  | { ok: false; status: 400; body: { error: 'invalid_request'; message: string } }
  | { ok: false; status: 400; body: InvalidDestinationBody };

/** The refusal of a destination; its message quotes it, as Twilio's (error 21211) does. */
export interface InvalidDestinationBody {
  error: 'invalid_destination';
  message: string;
}

export interface Acceptance {
  status: number;
  providerMessageId: string;
  body: Record<string, unknown>;
}

/** Magic destinations that the sandbox always refuses as invalid, for tests of permanent failure. */
export const MAGIC_REJECT_EMAIL_DOMAIN = 'reject.sandbox.test';
export const MAGIC_REJECT_PHONE = '+15005550001';
export const MAGIC_REJECT_PUSH_TOKEN_PREFIX = 'invalid-';

const SEND_PATHS: ReadonlyArray<{ pattern: RegExp; build: (param: string) => SendEndpoint }> = [
  { pattern: /^\/emails$/, build: () => ({ channel: 'email' }) },
  {
    pattern: /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/,
    build: (accountSid) => ({ channel: 'sms', accountSid }),
  },
  {
    pattern: /^\/v1\/projects\/([^/]+)\/messages:send$/,
    build: (project) => ({ channel: 'push', project }),
  },
];

/** Returns the send endpoint a path names, or null when the path is not a send endpoint. */
export function matchSendPath(pathname: string): SendEndpoint | null {
  for (const { pattern, build } of SEND_PATHS) {
    const match = pattern.exec(pathname);
    if (match === null) continue;
    try {
      return build(decodeURIComponent(match[1] ?? ''));
    } catch {
      return null; // a malformed %-escape cannot name an account or project
    }
  }
  return null;
}

/** The Content-Type each endpoint requires, as its real counterpart does. */
export function expectedContentType(endpoint: SendEndpoint): string {
  return endpoint.channel === 'sms' ? 'application/x-www-form-urlencoded' : 'application/json';
}

function invalid(message: string): SendValidation {
  return { ok: false, status: 400, body: { error: 'invalid_request', message } };
}

/**
 * The body refusing `destination`. It quotes the destination on purpose: real providers echo
 * what they refuse (Twilio: "The 'To' number … is not a valid phone number"), and a client
 * that copies provider text into its logs must show up in tests against the sandbox.
 */
export function invalidDestinationBody(destination: string): InvalidDestinationBody {
  return { error: 'invalid_destination', message: `The destination ${destination} is not valid` };
}

function invalidDestination(destination: string): SendValidation {
  return { ok: false, status: 400, body: invalidDestinationBody(destination) };
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function parseJsonObject(raw: Buffer): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

// Messages name fields, never values: a destination or body must not leak into responses.
function validateEmail(raw: Buffer): SendValidation {
  const body = parseJsonObject(raw);
  if (body === null) return invalid('body must be a JSON object');
  const to = typeof body.to === 'string' ? [body.to] : body.to;
  if (!Array.isArray(to) || to.length === 0 || !to.every(isNonEmptyString)) {
    return invalid('to must be an address or a non-empty list of addresses');
  }
  if (!to.every((address) => /^[^@\s]+@[^@\s]+$/.test(address))) {
    return invalid('to must contain e-mail addresses');
  }
  if (typeof body.subject !== 'string') return invalid('subject must be a string');
  if (body.from !== undefined && typeof body.from !== 'string') return invalid('from must be a string');
  if (body.reply_to !== undefined && typeof body.reply_to !== 'string') return invalid('reply_to must be a string');
  for (const field of ['text', 'html'] as const) {
    if (body[field] !== undefined && typeof body[field] !== 'string') {
      return invalid(`${field} must be a string`);
    }
  }
  if (body.text === undefined && body.html === undefined) return invalid('text or html is required');
  const headers = body.headers;
  if (headers !== undefined) {
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return invalid('headers must be an object');
    // A field name is a token (RFC 5322 ftext); a value may not break out of its line.
    for (const [name, value] of Object.entries(headers)) {
      if (!/^[!-9;-~]+$/.test(name) || typeof value !== 'string' || /[\r\n]/.test(value)) {
        return invalid('headers must map header names to single-line strings');
      }
    }
  }
  const rejected = to.some((address) => address.split('@')[1]?.toLowerCase() === MAGIC_REJECT_EMAIL_DOMAIN);
  if (rejected) return invalidDestination(to.join(', '));
  return {
    ok: true,
    send: { channel: 'email', destination: to.join(', '), ...(headers === undefined ? {} : { headers: { ...(headers as Record<string, string>) } }) },
  };
}

function validateSms(raw: Buffer): SendValidation {
  const form = new URLSearchParams(raw.toString('utf8'));
  const to = form.get('To');
  if (!isNonEmptyString(to)) return invalid('To is required');
  if (!isNonEmptyString(form.get('Body'))) return invalid('Body is required');
  if (to === MAGIC_REJECT_PHONE) return invalidDestination(to);
  return { ok: true, send: { channel: 'sms', destination: to } };
}

function validatePush(raw: Buffer): SendValidation {
  const body = parseJsonObject(raw);
  if (body === null) return invalid('body must be a JSON object');
  const message = body.message;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return invalid('message must be an object');
  }
  const { token, notification } = message as Record<string, unknown>;
  if (!isNonEmptyString(token)) return invalid('message.token is required');
  if (typeof notification !== 'object' || notification === null || Array.isArray(notification)) {
    return invalid('message.notification must be an object');
  }
  const { title, body: text } = notification as Record<string, unknown>;
  if (title !== undefined && typeof title !== 'string') {
    return invalid('message.notification.title must be a string');
  }
  if (typeof text !== 'string') return invalid('message.notification.body must be a string');
  if (token.startsWith(MAGIC_REJECT_PUSH_TOKEN_PREFIX)) return invalidDestination(token);
  return { ok: true, send: { channel: 'push', destination: token } };
}

/** Parses and validates a send body for its endpoint, including the magic reject destinations. */
export function validateSend(endpoint: SendEndpoint, raw: Buffer): SendValidation {
  switch (endpoint.channel) {
    case 'email':
      return validateEmail(raw);
    case 'sms':
      return validateSms(raw);
    case 'push':
      return validatePush(raw);
  }
}

/** Builds the provider-shaped success response, with a fresh provider message id. */
export function buildAcceptance(endpoint: SendEndpoint, send: ValidSend): Acceptance {
  switch (endpoint.channel) {
    case 'email': {
      const id = `em_${randomBytes(12).toString('hex')}`;
      return { status: 200, providerMessageId: id, body: { id } };
    }
    case 'sms': {
      // Twilio message SIDs are "SM" followed by 32 hex digits.
      const sid = `SM${randomBytes(16).toString('hex')}`;
      return {
        status: 201,
        providerMessageId: sid,
        body: { sid, status: 'queued', to: send.destination },
      };
    }
    case 'push': {
      const name = `projects/${endpoint.project}/messages/${randomBytes(8).toString('hex')}`;
      return { status: 200, providerMessageId: name, body: { name } };
    }
  }
}
