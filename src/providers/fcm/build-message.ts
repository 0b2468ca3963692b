/**
 * The body of one FCM HTTP v1 `messages:send` request
 * (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages). Pure, so the shape is
 * testable without a socket. FCM relays one message to Android, Apple and web devices alike, so
 * every platform block is filled in and FCM uses the one the token's platform needs:
 *
 * - expiry from `expiresAt` on every attempt: `android.ttl`, `apns-expiration`, Web Push `TTL`;
 * - the delivery's collapse identity on every attempt: `android.collapse_key` (FCM keeps one
 *   pending message per key) and `android.notification.tag` (the shown notification is
 *   replaced), `apns-collapse-id` (iOS shows one), Web Push `Topic` and notification `tag`;
 * - priority by purpose: HIGH / 10 / high for one-time codes and alerts, NORMAL / 5 / normal
 *   (low for marketing on the web) otherwise.
 */
import { pushData, type MessageContent, type Purpose } from '../../domain/index.js';
import { apnsExpiration, isUrgentPurpose, remainingSeconds, webPushUrgency } from '../push/lifetime.js';

/** FCM's longest time to live, and its default: 4 weeks (AndroidConfig.ttl). */
export const FCM_MAX_TTL_SECONDS = 2_419_200;

export interface FcmMessageInput {
  token: string;
  content: MessageContent;
  purpose: Purpose;
  /** pushCollapseId(idempotencyKey). */
  collapseId: string;
  expiresAt: number;
  nowMs: number;
  /** Data message: no notification block; the app shows it. */
  dataOnly: boolean;
}

/** The `{message: ...}` request body for one send. */
export function buildFcmMessage(input: FcmMessageInput): { message: Record<string, unknown> } {
  const { content, collapseId, dataOnly } = input;
  const ttl = remainingSeconds(input.expiresAt, input.nowMs, FCM_MAX_TTL_SECONDS);
  const urgent = isUrgentPurpose(input.purpose);
  const title = content.subject ?? null;
  const notification: Record<string, string> = { body: content.text, ...(title === null ? {} : { title }) };

  const android: Record<string, unknown> = { ttl: `${ttl}s`, collapse_key: collapseId, priority: urgent ? 'HIGH' : 'NORMAL' };
  const apnsHeaders: Record<string, string> = {
    'apns-expiration': apnsExpiration(input.expiresAt, input.nowMs),
    'apns-collapse-id': collapseId,
    // Apple requires priority 5 and push type background for a push without an alert.
    'apns-priority': dataOnly ? '5' : urgent ? '10' : '5',
    'apns-push-type': dataOnly ? 'background' : 'alert',
  };
  const webpush: Record<string, unknown> = { headers: { TTL: String(ttl), Urgency: webPushUrgency(input.purpose), Topic: collapseId } };
  const message: Record<string, unknown> = { token: input.token, android, apns: { headers: apnsHeaders }, webpush };

  if (dataOnly) {
    // FCM data values are strings; the app decides how (and whether) to show them.
    message.data = { ...(pushData(content) ?? {}), ...notification, herald_collapse_id: collapseId };
    message.apns = { headers: apnsHeaders, payload: { aps: { 'content-available': 1 } } };
  } else {
    message.notification = notification;
    // A template's push data: FCM's data map (string values), beside the notification.
    const data = pushData(content);
    if (data) message.data = data;
    android.notification = { tag: collapseId };
    webpush.notification = { tag: collapseId };
  }
  return { message };
}
