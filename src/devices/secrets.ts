/**
 * The secrets of the device API: device tokens (stored as SHA-256), login passwords (stored as
 * scrypt), one-time registration codes, and constant-time comparison. Nothing here logs or
 * returns a secret it was given.
 */
import { createHash, randomBytes, randomInt, scryptSync, timingSafeEqual } from 'node:crypto';

/** The URL-safe alphabet the reference server's nanoid ids use. */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-';

function randomString(length: number, alphabet = ALPHABET): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A device id: 21 characters, the length the third-party API's deviceId takes (client-go `DeviceID max=21`). */
export function newDeviceId(): string {
  return randomString(21);
}

/** A device token: 256 bits from the CSPRNG, base64url (43 characters). */
export function newDeviceToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A login as the app shows it: 6 upper-case letters and digits, like the reference server's. */
export function newLogin(): string {
  return randomString(6, '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ');
}

/** A password: 16 lower-case letters and digits (≈ 83 bits; the app asks for at least 14 characters). */
export function newPassword(): string {
  return randomString(16, '0123456789abcdefghijklmnopqrstuvwxyz');
}

/** A one-time registration code: 6 digits, valid for minutes and spent once. */
export function newLoginCode(): string {
  return String(randomInt(1_000_000)).padStart(6, '0');
}

/** SHA-256 hex of a token or code: what the store keeps. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two secrets in time independent of where they differ (and of their lengths: both are hashed first). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

// scrypt N=2^14, r=8, p=1: OWASP's minimum for scrypt, ~30 ms here; a password is checked only
// when a phone registers with its login or changes the password.
const N = 16_384;
const R = 8;
const P = 1;

/** The stored form of a password: `scrypt$N$r$p$salt$hash`, base64url. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** True when `password` matches a stored hash; false for a malformed hash. */
export function verifyPassword(password: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (!Number.isSafeInteger(n) || expected.length !== 32) return false;
  const actual = scryptSync(password, salt, expected.length, { N: n, r, p });
  return timingSafeEqual(actual, expected);
}
