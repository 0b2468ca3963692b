/**
 * Bearer API keys. Herald stores only a SHA-256 of each key; a request's key is hashed and
 * looked up. Missing, malformed and unknown keys get the same 401, so the answer does not
 * say which.
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HeraldError } from '../errors.js';
import type { Store } from '../store/store.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string;
    /** The id of the API key that authenticated the request (recorded on operator actions such as replays). */
    apiKeyId: string;
  }
}

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

// The scheme name is case-insensitive (RFC 9110 §11.1); the key itself is not.
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9_\-.~+/=]{1,512})$/;

/** Adds the API-key check to every route of the (encapsulated) app it is called on. */
export function requireApiKey(app: FastifyInstance, store: Store): void {
  app.decorateRequest('tenantId', '');
  app.decorateRequest('apiKeyId', '');
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const m = BEARER.exec(request.headers.authorization ?? '');
    const found = m ? await store.findApiKey(hashApiKey(m[1]!)) : null;
    if (!found) throw new HeraldError('unauthorized', 'a valid API key is required: Authorization: Bearer <key>');
    request.tenantId = found.tenantId;
    request.apiKeyId = found.id;
  });
}
