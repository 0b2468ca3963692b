/**
 * Where a push delivery goes, as its `destination` string holds it: one device's registration
 * with one push service. A plain string (the API's `recipient.push_token`) is an FCM
 * registration token; registered subscriptions are stored as the JSON of a `PushTarget`.
 */

/** The push services a target can belong to. */
export const PUSH_TARGET_TYPES = ['fcm', 'apns', 'webpush'] as const;

export type PushTarget =
  /** A Firebase Cloud Messaging registration token. */
  | { type: 'fcm'; token: string }
  /** An APNs device token (hex), for the app's production or development (sandbox) environment. */
  | { type: 'apns'; token: string; environment: 'production' | 'sandbox' }
  /** A Web Push subscription (RFC 8030 endpoint, RFC 8291 keys), as the browser's PushSubscription.toJSON() gives it. */
  | { type: 'webpush'; endpoint: string; keys: { p256dh: string; auth: string } };

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** The destination string of a target (stable: the same target always encodes the same). */
export function encodePushTarget(t: PushTarget): string {
  switch (t.type) {
    case 'fcm':
      return JSON.stringify({ type: 'fcm', token: t.token });
    case 'apns':
      return JSON.stringify({ type: 'apns', token: t.token, environment: t.environment });
    case 'webpush':
      return JSON.stringify({ type: 'webpush', endpoint: t.endpoint, keys: { p256dh: t.keys.p256dh, auth: t.keys.auth } });
  }
}

/** Reads a destination: a target's JSON, or a bare FCM token; null when it is neither. */
export function parsePushTarget(destination: string): PushTarget | null {
  if (!destination.startsWith('{')) return destination.trim() === '' ? null : { type: 'fcm', token: destination };
  let v: unknown;
  try {
    v = JSON.parse(destination);
  } catch {
    return null;
  }
  return pushTargetError(v) === null ? (v as PushTarget) : null;
}

/** What is wrong with a would-be target (for the API's field errors), or null when it is one. */
export function pushTargetError(v: unknown): string | null {
  if (typeof v !== 'object' || v === null) return 'must be an object';
  const t = v as Record<string, unknown>;
  const str = (x: unknown, max: number) => typeof x === 'string' && x.length > 0 && x.length <= max;
  switch (t.type) {
    case 'fcm':
      return str(t.token, 4096) ? null : 'token must be an FCM registration token (1-4096 characters)';
    case 'apns':
      if (typeof t.token !== 'string' || !/^[0-9a-fA-F]{64,200}$/.test(t.token)) return 'token must be an APNs device token (hex)';
      return t.environment === 'production' || t.environment === 'sandbox' ? null : 'environment must be production or sandbox';
    case 'webpush': {
      if (!str(t.endpoint, 2048) || !/^https:\/\//.test(t.endpoint as string)) return 'endpoint must be an https URL';
      const keys = t.keys as Record<string, unknown> | undefined;
      if (typeof keys !== 'object' || keys === null) return 'keys must hold p256dh and auth';
      if (!str(keys.p256dh, 200) || !BASE64URL.test(keys.p256dh as string)) return 'keys.p256dh must be base64url';
      if (!str(keys.auth, 100) || !BASE64URL.test(keys.auth as string)) return 'keys.auth must be base64url';
      return null;
    }
    default:
      return 'type must be fcm, apns or webpush';
  }
}
