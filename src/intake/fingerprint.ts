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

/** The fingerprint of a POST /v1/notifications body, which a batch item with the same body shares (one key namespace). */
export function notificationFingerprint(body: unknown): string {
  return requestFingerprint('POST', 'POST /v1/notifications', body);
}
