/**
 * Bearer API keys. Herald stores only a SHA-256 of each key; a request's key is hashed and
 * looked up. Missing, malformed and unknown keys get the same 401, so the answer does not
 * say which.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HeraldError } from '../errors.js';
import type { Store } from '../store/store.js';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string;
  }
}

/** A new API key: `hld_` and 32 random bytes, base64url. Shown once; only its hash is kept. */
export function generateApiKey(): string {
  return `hld_${randomBytes(32).toString('base64url')}`;
}

/** The stored form of an API key. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

const BEARER = /^Bearer ([A-Za-z0-9_\-.~+/=]{1,512})$/;

/** Adds the API-key check to every route of the (encapsulated) app it is called on. */
export function requireApiKey(app: FastifyInstance, store: Store): void {
  app.decorateRequest('tenantId', '');
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const m = BEARER.exec(request.headers.authorization ?? '');
    const found = m ? await store.findApiKey(hashApiKey(m[1]!)) : null;
    if (!found) throw new HeraldError('unauthorized', 'a valid API key is required: Authorization: Bearer <key>');
    request.tenantId = found.tenantId;
  });
}
