/**
 * Refuses a request that carries the NUL character (U+0000) in a path parameter, a query value
 * or anywhere in a JSON body (keys included), before validation. PostgreSQL's `text` cannot hold
 * NUL, so such a value would fail inside a statement as a 500 (and on SQLite be stored where the
 * other driver cannot follow); no Herald field has a use for it. Found by the fuzz suite
 * (test/fuzz/): `POST /v1/notifications/%00/reports` answered 500 on PostgreSQL. Raw bodies
 * (callbacks, audiences) are bytes here and are checked where they are parsed.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fieldError } from '../errors.js';

/** The first place in `value` (a dotted field path) where a string or key holds NUL, or null. */
export function nulField(value: unknown, at: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at : null;
  // JSON bodies are a few levels deep; a body nested past this is refused by its schema anyway.
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || depth > 64) return null;
  if (typeof (value as { pipe?: unknown }).pipe === 'function') return null;
  const isArray = Array.isArray(value);
  for (const [k, v] of Object.entries(value)) {
    const field = isArray ? `${at}[${k}]` : at ? `${at}.${k}` : k;
    if (k.includes('\u0000')) return field;
    const found = nulField(v, field, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Adds the check to every route of `app` (a 400 `validation_failed` naming the field). */
export function refuseNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const field = nulField(request.params, 'path') ?? nulField(request.query, 'query') ?? nulField(request.body, '');
    if (field !== null) throw fieldError(field || '(body)', 'must not contain the NUL character (U+0000)');
  });
}
