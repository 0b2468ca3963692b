/**
 * Dashboard users' passwords, hashed with scrypt (node:crypto) and compared in constant time.
 * Stored as `scrypt$N$r$p$salt$hash` (base64url), so the cost can be raised later without
 * invalidating older hashes: each hash carries the parameters it was made with.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * N = 2^15, r = 8, p = 1: 32 MiB and ~60 ms per hash on one core here. OWASP's minimum for
 * scrypt is N = 2^17 at r = 8 or N = 2^15 with p = 3; we stay at p = 1 because a sign-in costs
 * one hash and a login burst must not starve the API's two cores (the rate limit caps bursts).
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  // maxmem must exceed 128 * N * r bytes (32 MiB at these settings); node's default is 32 MiB exactly.
  const options: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 256 * o.N * o.r };
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** A new salted scrypt hash of `password`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches `stored`; false for a wrong password or a hash this module did not make. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!m) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N > 2 ** 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await derive(password, Buffer.from(m[4]!, 'base64url'), { N, r, p });
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of no one's password, checked when the username is unknown: the answer then takes as
 * long as a wrong password, so timing does not tell which usernames exist.
 */
let decoy: Promise<string> | null = null;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
