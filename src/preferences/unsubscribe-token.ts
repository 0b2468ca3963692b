/**
 * One-click unsubscribe tokens (RFC 8058): the URL in a message's List-Unsubscribe header
 * carries everything the opt-out needs (tenant, recipient, channel, purpose scope), signed
 * with HMAC-SHA256 under a server key, so the link works without a lookup table and cannot
 * be forged or edited to unsubscribe someone else.
 *
 *   token = base64url(JSON ["u1", tenant, recipient, channel, purpose | "*"]) "." base64url(HMAC)
 *
 * The MAC covers the encoded payload with a domain-separation prefix, so the same key could
 * never validate another kind of Herald token. Tokens do not expire: an unsubscribe link must
 * keep working for as long as the message may be read (CAN-SPAM asks for at least 30 days).
 * Tokens are credentials for one opt-out: they are never logged (see the unsubscribe route).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CHANNELS, OPTIONAL_PURPOSES, type Channel, type OptionalPurpose } from '../domain/index.js';

/** What one unsubscribe link opts out of. */
export interface UnsubscribeScope {
  tenantId: string;
  recipientId: string;
  channel: Channel;
  /** The optional purpose to stop, or null for every optional purpose on the channel. */
  purpose: OptionalPurpose | null;
}

const VERSION = 'u1';
const DOMAIN = 'herald/unsubscribe/v1:';
/**
 * Recipient ids are at most 200 characters (intake schema), up to 800 bytes of UTF-8: a
 * token stays under 1,200 characters; an ASCII id of 20 characters gives about 120.
 */
export const MAX_TOKEN_LENGTH = 1500;
const TOKEN = /^[A-Za-z0-9_-]{1,1400}\.[A-Za-z0-9_-]{43}$/;

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(DOMAIN).update(payload).digest();
}

/** Signs a scope into a URL-safe token that `verifyUnsubscribeToken` with the same key accepts. */
export function signUnsubscribeToken(key: Buffer, scope: UnsubscribeScope): string {
  const payload = Buffer.from(JSON.stringify([VERSION, scope.tenantId, scope.recipientId, scope.channel, scope.purpose ?? '*'])).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/**
 * The scope a token names, or null when it is malformed, tampered with, or signed with another
 * key. The MAC is compared in constant time before anything in the payload is trusted.
 */
export function verifyUnsubscribeToken(key: Buffer, token: string): UnsubscribeScope | null {
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN.test(token)) return null;
  const [payload, sig] = token.split('.') as [string, string];
  // Compared as text: base64url decoding ignores the last character's spare bits, so two
  // spellings would decode to the same MAC; only the canonical one is accepted.
  const given = Buffer.from(sig, 'ascii');
  const expected = Buffer.from(mac(key, payload).toString('base64url'), 'ascii');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(fields) || fields.length !== 5 || fields[0] !== VERSION) return null;
  const [, tenantId, recipientId, channel, purpose] = fields as unknown[];
  if (typeof tenantId !== 'string' || typeof recipientId !== 'string' || tenantId === '' || recipientId === '') return null;
  if (!(CHANNELS as readonly unknown[]).includes(channel)) return null;
  if (purpose !== '*' && !(OPTIONAL_PURPOSES as readonly unknown[]).includes(purpose)) return null;
  return { tenantId, recipientId, channel: channel as Channel, purpose: purpose === '*' ? null : (purpose as OptionalPurpose) };
}
