/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, spec/standard-webhooks.md):
 * `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`, a
 * space-separated list so a rotated secret can sign beside the new one. Herald signs its
 * customer webhooks with it, the sandbox signs its callbacks with it, and the callback route
 * verifies them. Written on node:crypto rather than the `standardwebhooks` package: that one
 * reads Date.now() (tests need an injected clock) and hashes in pure JavaScript; a test checks
 * both agree on the spec's vector.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The spec's tolerance: timestamps more than 5 minutes away from now are refused. */
export const WEBHOOK_TOLERANCE_MS = 5 * 60 * 1000;

const SECRET_PREFIX = 'whsec_';

/** A fresh secret: `whsec_` + base64 of 32 random bytes (the spec allows 24 to 64). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The HMAC key of a secret, with or without the `whsec_` prefix; throws on an empty one. */
export function secretKey(secret: string): Buffer {
  const b64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(b64, 'base64');
  if (key.length === 0) throw new Error('a webhook secret must not be empty');
  return key;
}

/** True when `s` is a well-formed secret (`whsec_` + base64 of 24 to 64 bytes). */
export function isWebhookSecret(s: string): boolean {
  if (!s.startsWith(SECRET_PREFIX)) return false;
  const b64 = s.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return false;
  const n = Buffer.from(b64, 'base64').length;
  return n >= 24 && n <= 64;
}

function hmac(key: Buffer, id: string, timestampSeconds: number, body: Buffer | string): Buffer {
  const h = createHmac('sha256', key);
  h.update(`${id}.${timestampSeconds}.`);
  h.update(body);
  return h.digest();
}

// A type alias, not an interface: it is then assignable to a plain header record.
export type SignedHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/**
 * Signs one message. With several secrets (rotation: the new one first, the old one until it
 * is retired) the header lists one `v1,` signature per secret; a receiver needs any one.
 */
export function signWebhook(secrets: readonly string[], id: string, timestampMs: number, body: Buffer | string): SignedHeaders {
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  if (id.includes('.')) throw new Error('a webhook id must not contain "."');
  const ts = Math.floor(timestampMs / 1000);
  const signature = secrets.map((s) => `v1,${hmac(secretKey(s), id, ts, body).toString('base64')}`).join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
}

export type VerifyFailure = 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature';

export type VerifyResult = { ok: true; id: string; timestampMs: number } | { ok: false; reason: VerifyFailure };

type HeaderValue = string | string[] | undefined;

function single(v: HeaderValue): string | undefined {
  if (Array.isArray(v)) return v.length === 1 ? v[0] : undefined; // a repeated header is not trusted
  return v;
}

/**
 * Verifies a message over its raw bytes: all three headers present, the timestamp within the
 * tolerance of `nowMs`, and at least one `v1,` entry matching one of `secrets` in constant
 * time. Entries of other versions are skipped; a header with no valid entry fails (never open).
 */
export function verifyWebhook(
  secrets: readonly string[],
  headers: Record<string, HeaderValue>,
  body: Buffer | string,
  nowMs: number,
  toleranceMs = WEBHOOK_TOLERANCE_MS,
): VerifyResult {
  const id = single(headers['webhook-id']);
  const tsText = single(headers['webhook-timestamp']);
  const sigHeader = single(headers['webhook-signature']);
  if (!id || !tsText || !sigHeader) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(tsText)) return { ok: false, reason: 'bad_timestamp' };
  const ts = Number(tsText);
  if (Math.abs(nowMs - ts * 1000) > toleranceMs) return { ok: false, reason: 'stale_timestamp' };
  const expected = secrets.map((s) => hmac(secretKey(s), id, ts, body));
  for (const entry of sigHeader.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    for (const want of expected) {
      if (given.length === want.length && timingSafeEqual(given, want)) return { ok: true, id, timestampMs: ts * 1000 };
    }
  }
  return { ok: false, reason: 'bad_signature' };
}
