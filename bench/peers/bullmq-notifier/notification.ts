/**
 * What the BullMQ notifier accepts on `POST /v1/notifications`: the minimal subset of Herald's
 * body that the benchmarks send (an SMS to one recipient with a text), checked the way Herald
 * checks it (unknown fields refused, no coercion, E.164 through libphonenumber-js, purpose from
 * Herald's list), and the BullMQ priority each purpose gets. Pure: no I/O, no clock.
 *
 * The peer stands for the queue a team would build instead of Herald, so it does the same
 * validation work per request that Herald's intake does for this subset, and nothing more
 * (no templates, no groups, no idempotency keys, no durable record).
 */
import { isValidPhoneNumber } from 'libphonenumber-js';

export const PEER_PURPOSES = ['otp', 'alert', 'transactional', 'conversational', 'marketing'] as const;
export type PeerPurpose = (typeof PEER_PURPOSES)[number];

/** BullMQ priority per purpose: 1 is served first. Codes and alerts jump every campaign message. */
export const PRIORITY: Record<PeerPurpose, number> = { otp: 1, alert: 1, transactional: 2, conversational: 2, marketing: 10 };

/** Herald's default TTL per purpose (src/intake/notification-request.ts), so an expired code is dropped, not sent. */
export const DEFAULT_TTL_SECONDS: Record<PeerPurpose, number> = {
  otp: 10 * 60,
  alert: 60 * 60,
  conversational: 24 * 3600,
  transactional: 24 * 3600,
  marketing: 3 * 24 * 3600,
};
const MAX_TTL_SECONDS = 30 * 24 * 3600;
// An SMS body longer than this is ten segments: refused rather than split, as Herald's sandbox account limits do.
const MAX_TEXT = 1_600;

export interface FieldError {
  field: string;
  message: string;
}

/** The job a valid request becomes: everything the worker needs to make the provider call. */
export interface SmsJob {
  to: string;
  text: string;
  purpose: PeerPurpose;
  /** Intake wall clock when the request arrived (epoch ms): the start of the latency the worker reports. */
  receivedAt: number;
  /** After this the message is useless (a code past its TTL) and is dropped instead of sent. */
  expiresAt: number;
}

type Checked = { ok: true; job: SmsJob } | { ok: false; errors: FieldError[] };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unknownFields(obj: Record<string, unknown>, allowed: readonly string[], path: string, errors: FieldError[]): void {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) errors.push({ field: `${path}${k}`, message: 'is not a known field' });
}

/** Checks a parsed body; `now` is the intake's clock (epoch ms), stamped on the job. */
export function checkNotification(body: unknown, now: number): Checked {
  const errors: FieldError[] = [];
  if (!isObject(body)) return { ok: false, errors: [{ field: '(body)', message: 'must be a JSON object' }] };
  unknownFields(body, ['recipient', 'purpose', 'channels', 'content', 'ttl_seconds'], '', errors);

  const { recipient, purpose, channels, content, ttl_seconds: ttl } = body;
  let phone: string | null = null;
  if (!isObject(recipient)) errors.push({ field: 'recipient', message: 'must be an object' });
  else {
    unknownFields(recipient, ['id', 'phone'], 'recipient.', errors);
    if (typeof recipient.id !== 'string' || recipient.id.length < 1 || recipient.id.length > 200) {
      errors.push({ field: 'recipient.id', message: 'must be a string of 1 to 200 characters' });
    }
    if (typeof recipient.phone !== 'string' || !isValidPhoneNumber(recipient.phone) || !recipient.phone.startsWith('+')) {
      errors.push({ field: 'recipient.phone', message: 'must be a valid phone number in E.164 form, e.g. +14155550123' });
    } else phone = recipient.phone;
  }
  if (typeof purpose !== 'string' || !(PEER_PURPOSES as readonly string[]).includes(purpose)) {
    errors.push({ field: 'purpose', message: `must be one of ${PEER_PURPOSES.join(', ')}` });
  }
  if (!Array.isArray(channels) || channels.length !== 1 || channels[0] !== 'sms') {
    errors.push({ field: 'channels', message: 'must be ["sms"]: this notifier sends SMS only' });
  }
  let text: string | null = null;
  if (!isObject(content)) errors.push({ field: 'content', message: 'must be an object' });
  else {
    unknownFields(content, ['text', 'subject'], 'content.', errors);
    if (typeof content.text !== 'string' || content.text.length < 1 || content.text.length > MAX_TEXT) {
      errors.push({ field: 'content.text', message: `must be a string of 1 to ${MAX_TEXT} characters` });
    } else text = content.text;
    if (content.subject !== undefined && typeof content.subject !== 'string') errors.push({ field: 'content.subject', message: 'must be a string' });
  }
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SECONDS)) {
    errors.push({ field: 'ttl_seconds', message: `must be an integer from 1 to ${MAX_TTL_SECONDS}` });
  }
  if (errors.length > 0 || phone === null || text === null) return { ok: false, errors };
  const p = purpose as PeerPurpose;
  const ttlSeconds = typeof ttl === 'number' ? ttl : DEFAULT_TTL_SECONDS[p];
  return { ok: true, job: { to: phone, text, purpose: p, receivedAt: now, expiresAt: now + ttlSeconds * 1000 } };
}

/** A Herald-shaped problem+json body (docs/errors.md) for a refused request. */
export function problem(status: number, code: string, title: string, instance: string, errors: FieldError[] = []): Record<string, unknown> {
  return {
    type: `https://herald.dev/errors/${code}`,
    title,
    status,
    code,
    detail: errors[0] ? `${errors[0].field} ${errors[0].message}` : title,
    instance,
    ...(errors.length > 0 ? { errors } : {}),
  };
}
