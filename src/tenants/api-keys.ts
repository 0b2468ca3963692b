/**
 * The form of an API key: how one is generated (a recognisable prefix, 190 random bits and a
 * checksum), how a string is recognised as one offline, and the hash Herald stores instead of
 * it. Used by the tenants-and-keys service (which mints keys), the HTTP auth (which looks them
 * up) and `herald serve`'s bootstrap key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/**
 * A new API key, GitHub-token style: `hld_sk_` (vendor and type, so scanners can spot it),
 * 32 base62 characters (190 bits from the CSPRNG) and a 6-character CRC32 checksum that lets
 * a scanner tell a real key from a random string offline. One double-clickable word.
 */
export function generateApiKey(): string {
  const body = base62(randomBytes(24), 32);
  return `hld_sk_${body}${checksum(body)}`;
}

function checksum(body: string): string {
  const c = crc32(body) >>> 0;
  return base62(Buffer.from(c.toString(16).padStart(8, '0'), 'hex'), 6);
}

/** True when a string has the shape and checksum of a key Herald generated. */
export function looksLikeApiKey(key: string): boolean {
  const m = /^hld_sk_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/.exec(key);
  return m !== null && checksum(m[1]!) === m[2];
}

/** The stored form of an API key. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
