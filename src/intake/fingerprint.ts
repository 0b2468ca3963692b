/**
 * The fingerprint of an idempotent request: a hash of its canonical JSON (keys sorted,
 * no whitespace), so key order and formatting do not make two equal requests differ,
 * while any change of value does.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted recursively. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** sha256 of the method, route and canonical body. */
export function requestFingerprint(method: string, route: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${route}\n${canonicalJson(body)}`)
    .digest('hex');
}

/**
 * The fingerprint of a request that may carry `send_at` (POST /v1/notifications, whose batch items
 * share it, one key namespace; POST /v1/campaigns). It has two parts, so a repeated key can tell
 * "the same request at another time" (`send_at_conflict`) from "another request"
 * (`idempotency_key_mismatch`): the hash of the body without `send_at`, then `@` and `send_at` as
 * epoch milliseconds (so `…+01:00` and the same instant in `Z` are one time). A body without
 * `send_at` is the hash alone, as before.
 */
export function sendAtFingerprint(route: 'POST /v1/notifications' | 'POST /v1/campaigns', body: unknown): string {
  if (body === null || typeof body !== 'object' || !('send_at' in body) || typeof body.send_at !== 'string') {
    return requestFingerprint('POST', route, body);
  }
  const { send_at: sendAt, ...rest } = body as { send_at: string };
  return `${requestFingerprint('POST', route, rest)}@${Date.parse(sendAt)}`;
}

/** The fingerprint of a POST /v1/notifications body (and of a batch item with the same body). */
export function notificationFingerprint(body: unknown): string {
  return sendAtFingerprint('POST /v1/notifications', body);
}

/**
 * Whether a key's stored fingerprint and a repeated request's differ only in `send_at`: the
 * repeat is then a `send_at_conflict`, not a silent move of the scheduled message.
 */
export function differsOnlyInSendAt(stored: string, repeated: string): boolean {
  return stored !== repeated && stored.split('@')[0] === repeated.split('@')[0];
}
