/**
 * One Web Push request (RFC 8030 §5), built with the `web-push` library's generateRequestDetails:
 * the payload encrypted for the subscription (RFC 8291, aes128gcm) and a VAPID `Authorization`
 * (RFC 8292: an ES256 JWT with `aud` the endpoint's origin and `exp` 12 hours ahead, the library's
 * default, under the 24-hour maximum). Herald sends it itself (adapter.ts) so that it can tell how
 * far the request got. On every attempt:
 *
 * - `TTL`: the seconds left until `expiresAt` (rounded down), so the push service drops it when it
 *   stops being useful;
 * - `Topic`: the delivery's collapse identity, so a resend replaces a first copy the push service
 *   still holds (RFC 8030 §5.4);
 * - `Urgency`: high for one-time codes and alerts, low for marketing, else normal (§5.3).
 *
 * The payload is Herald's JSON, `{"title", "body", "tag"}`, `tag` being the same collapse
 * identity: a service worker that shows it with `showNotification(title, {body, tag})` shows a
 * resend in place of the first (docs/providers/webpush.md).
 */
import webpush from 'web-push';
import { pushData, type MessageContent, type Purpose } from '../../domain/index.js';
import { pushCollapseId } from '../push/identity.js';
import { remainingSeconds, webPushUrgency } from '../push/lifetime.js';
import type { VapidKeys } from './settings.js';

/** The longest TTL Herald asks for: 4 weeks, web-push's default (push services may lower it). */
export const WEBPUSH_MAX_TTL_SECONDS = 2_419_200;

/**
 * The largest plaintext a push message may carry: "A push service is not required to support more
 * than 4096 octets of payload body (RFC 8030 §7.2). Absent header (86 octets), padding (minimum 1
 * octet), and expansion for AEAD_AES_128_GCM (16 octets), this equates to, at most, 3993 octets of
 * plaintext" (RFC 8291 §4). Larger ones are refused before encrypting: no push service need take
 * them, web-push would split them into several records (RFC 8291 allows one), and its encryption
 * time grows with the square of the size (it concatenates the whole result once per 4 KiB record).
 */
export const WEBPUSH_MAX_PLAINTEXT_BYTES = 3993;

/** Thrown for a payload over WEBPUSH_MAX_PLAINTEXT_BYTES: permanent, nothing was sent. */
export class PayloadTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`the push payload is ${bytes} bytes; Web Push carries at most ${WEBPUSH_MAX_PLAINTEXT_BYTES} (RFC 8291 §4)`);
    this.name = 'PayloadTooLargeError';
  }
}

export interface WebPushRequestInput {
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  content: MessageContent;
  purpose: Purpose;
  idempotencyKey: string;
  expiresAt: number;
  nowMs: number;
  vapid: VapidKeys;
}

export interface WebPushRequest {
  /** The subscription's endpoint. */
  endpoint: URL;
  /** Header names lower-cased, values strings; no content-length (the exchange sets it). */
  headers: Record<string, string>;
  body: Buffer;
}

/** Herald's push payload: what the service worker receives as `event.data.json()`. */
export function webPushPayload(content: MessageContent, tag: string): string {
  const data = pushData(content);
  return JSON.stringify({ ...(content.subject == null ? {} : { title: content.subject }), body: content.text, tag, ...(data ? { data } : {}) });
}

/**
 * Builds the encrypted, VAPID-signed request for one send. Throws PayloadTooLargeError for a payload
 * no push service need accept, and web-push's Error when the subscription's keys are unusable.
 */
export function buildWebPushRequest(input: WebPushRequestInput): WebPushRequest {
  const topic = pushCollapseId(input.idempotencyKey);
  const payload = webPushPayload(input.content, topic);
  const bytes = Buffer.byteLength(payload);
  if (bytes > WEBPUSH_MAX_PLAINTEXT_BYTES) throw new PayloadTooLargeError(bytes);
  const details = webpush.generateRequestDetails(input.subscription, payload, {
    vapidDetails: { subject: input.vapid.subject, publicKey: input.vapid.publicKey, privateKey: input.vapid.privateKey },
    TTL: remainingSeconds(input.expiresAt, input.nowMs, WEBPUSH_MAX_TTL_SECONDS),
    urgency: webPushUrgency(input.purpose),
    topic,
    contentEncoding: 'aes128gcm',
  });
  const headers: Record<string, string> = {};
  // web-push gives TTL and Content-Length as numbers, the rest as strings.
  for (const [name, value] of Object.entries(details.headers as Record<string, string | number | undefined>)) {
    if (name.toLowerCase() !== 'content-length' && value !== undefined) headers[name.toLowerCase()] = String(value);
  }
  return { endpoint: new URL(details.endpoint), headers, body: details.body ?? Buffer.alloc(0) };
}
