/**
 * The SMSGate app's own webhooks (phone → server), pure: the events Herald asks a phone for,
 * how a request is verified, and what an event's body says. Read from the app at 0cdc5d8:
 * `modules/webhooks/plugins/PayloadSingingPlugin.kt` signs `X-Signature` = hex
 * HMAC-SHA256(key, body text + X-Timestamp), `X-Timestamp` = unix seconds when that try was
 * sent (each retry is signed again, so a window of minutes holds for a two-day retry);
 * `domain/WebHookEventDTO.kt` is the envelope `{id, webhookId, event, deviceId, payload}`, the
 * id made once per emission and kept over retries; `payload/SmsEventPayload.kt` the payloads.
 * docs/phone-gateway.md "Phone-side webhooks" says how the key reaches the phone.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundKind } from './inbound-message.js';

/** The events Herald lists for each device in `GET /webhooks`. */
export const PHONE_WEBHOOK_EVENTS = ['sms:received', 'sms:data-received', 'mms:received', 'sms:sent', 'sms:delivered', 'sms:failed', 'system:ping'] as const;

/** Default accepted distance between `X-Timestamp` and Herald's clock, either way. */
export const PHONE_WEBHOOK_WINDOW_SECONDS = 300;

/** The signature the app sends for `body` at `timestamp` (unix seconds, as its decimal text). */
export function signPhoneWebhook(key: string, body: string | Buffer, timestamp: string): string {
  return createHmac('sha256', key).update(body).update(timestamp).digest('hex');
}

export type PhoneWebhookRefusal = 'missing_signature' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature';

/**
 * Verifies one request: both headers present, the timestamp a whole number of seconds within
 * `windowSeconds` of `nowMs`, the signature the key's over the raw body and the timestamp
 * (compared in constant time). Any key of `keys` may match (a key being rotated).
 */
export function verifyPhoneWebhook(input: {
  body: string | Buffer;
  timestamp: string | undefined;
  signature: string | undefined;
  keys: readonly string[];
  nowMs: number;
  windowSeconds?: number;
}): { ok: true; timestampMs: number } | { ok: false; reason: PhoneWebhookRefusal } {
  const { timestamp, signature } = input;
  if (!timestamp || !signature) return { ok: false, reason: 'missing_signature' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  const timestampMs = Number(timestamp) * 1000;
  const window = (input.windowSeconds ?? PHONE_WEBHOOK_WINDOW_SECONDS) * 1000;
  if (Math.abs(input.nowMs - timestampMs) > window) return { ok: false, reason: 'stale_timestamp' };
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return { ok: false, reason: 'bad_signature' };
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  for (const key of input.keys) {
    const expected = Buffer.from(signPhoneWebhook(key, input.body, timestamp), 'hex');
    if (timingSafeEqual(given, expected)) return { ok: true, timestampMs };
  }
  return { ok: false, reason: 'bad_signature' };
}

/** A received SMS (text, data or MMS), as the phone describes it. */
export interface PhoneReceived {
  kind: InboundKind;
  /** The phone's id of the received message (stable over the app's retries and exports). */
  messageId: string;
  sender: string;
  /** The text; for a data SMS its base64 data; for an MMS its subject or null. */
  content: string | null;
  simNumber: number | null;
  receivedAtMs: number | null;
}

/** A state change of a message Herald offered (`messageId` is the offer's id). */
export interface PhoneStateEvent {
  state: 'Sent' | 'Delivered' | 'Failed';
  messageId: string;
  /** The app's failure text (`sms:failed` only). */
  reason: string | null;
  atMs: number | null;
}

export type PhoneWebhookBody =
  | { event: 'received'; id: string; deviceId: string; received: PhoneReceived }
  | { event: 'state'; id: string; deviceId: string; report: PhoneStateEvent }
  | { event: 'ping'; id: string; deviceId: string; health: unknown };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Reads a date the app wrote (Gson `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`, or any RFC 3339 time). */
function dateMs(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

function simNumber(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 3 ? v : null;
}

/**
 * Reads a verified body. Null when it is not an event Herald asked for or lacks what that event
 * needs (the route answers 400; the app gives up on a 4xx only after its retries).
 */
export function parsePhoneWebhook(body: unknown): PhoneWebhookBody | null {
  if (!isObject(body)) return null;
  const id = str(body.id);
  const deviceId = str(body.deviceId);
  const event = body.event;
  const p = body.payload;
  if (!id || id.length > 64 || !deviceId || !isObject(p)) return null;
  switch (event) {
    case 'sms:received':
    case 'sms:data-received':
    case 'mms:received': {
      const messageId = str(p.messageId);
      // `sender` since 2025; `phoneNumber` before (deprecated, still sent).
      const sender = str(p.sender) ?? str(p.phoneNumber);
      if (!messageId || !sender) return null;
      const kind = event === 'sms:received' ? 'sms' : event === 'mms:received' ? 'mms' : 'data';
      const content = kind === 'sms' ? (str(p.message) ?? '') : kind === 'data' ? str(p.data) : str(p.subject);
      return {
        event: 'received',
        id,
        deviceId,
        received: { kind, messageId, sender, content, simNumber: simNumber(p.simNumber), receivedAtMs: dateMs(p.receivedAt) },
      };
    }
    case 'sms:sent':
    case 'sms:delivered':
    case 'sms:failed': {
      const messageId = str(p.messageId);
      if (!messageId) return null;
      const state = event === 'sms:sent' ? 'Sent' : event === 'sms:delivered' ? 'Delivered' : 'Failed';
      const at = event === 'sms:sent' ? p.sentAt : event === 'sms:delivered' ? p.deliveredAt : p.failedAt;
      return { event: 'state', id, deviceId, report: { state, messageId, reason: state === 'Failed' ? str(p.reason) : null, atMs: dateMs(at) } };
    }
    case 'system:ping':
      return { event: 'ping', id, deviceId, health: p.health };
    default:
      return null;
  }
}
