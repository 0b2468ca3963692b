/**
 * One APNs notification request (https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns):
 * `POST /3/device/<device token>` with the headers that carry the delivery's identity and
 * lifetime on every attempt. Pure; the `authorization` header is the adapter's (its token may be
 * replaced between attempts).
 *
 * - `apns-expiration`: `expiresAt`'s epoch second (rounded down: APNs never holds it longer), or 0
 *   ("deliver once, do not store") when nothing is left;
 * - `apns-collapse-id` (at most 64 bytes): the delivery's collapse identity, so iOS shows a resend
 *   in place of the first;
 * - `apns-id`: a UUID derived from the idempotency key, the same on every attempt;
 * - `apns-priority`: 10 (at once) for one-time codes and alerts, else 5 (as power allows);
 *   always 5 for a background push, which Apple requires;
 * - `apns-push-type`: alert, or background for data-only accounts.
 */
import { pushData, type MessageContent, type Purpose } from '../../domain/index.js';
import { pushCollapseId, pushDeliveryUuid } from '../push/identity.js';
import { apnsExpiration, isUrgentPurpose } from '../push/lifetime.js';

export interface ApnsRequestInput {
  /** The device token, hex. */
  deviceToken: string;
  topic: string;
  content: MessageContent;
  purpose: Purpose;
  idempotencyKey: string;
  expiresAt: number;
  nowMs: number;
  dataOnly: boolean;
}

export interface ApnsRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Builds the path, headers (but authorization) and JSON payload of one send. */
export function buildApnsRequest(input: ApnsRequestInput): ApnsRequest {
  const { content, dataOnly } = input;
  const collapseId = pushCollapseId(input.idempotencyKey);
  const title = content.subject ?? null;
  // A template's push data: custom keys beside `aps` (Apple reserves only `aps`).
  const data = pushData(content) ?? {};
  const payload = dataOnly
    ? // A background push: no alert; the app reads the custom keys and decides.
      { ...data, aps: { 'content-available': 1 }, ...(title === null ? {} : { title }), body: content.text, herald_collapse_id: collapseId }
    : { ...data, aps: { alert: { ...(title === null ? {} : { title }), body: content.text } } };
  return {
    path: `/3/device/${input.deviceToken}`,
    headers: {
      'apns-topic': input.topic,
      'apns-push-type': dataOnly ? 'background' : 'alert',
      'apns-priority': !dataOnly && isUrgentPurpose(input.purpose) ? '10' : '5',
      'apns-expiration': apnsExpiration(input.expiresAt, input.nowMs),
      'apns-collapse-id': collapseId,
      'apns-id': pushDeliveryUuid(input.idempotencyKey),
      'content-type': 'application/json',
    },
    body: Buffer.from(JSON.stringify(payload)),
  };
}
