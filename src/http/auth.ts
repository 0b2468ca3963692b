/**
 * Who a request is. Bearer API keys as before: Herald stores only a SHA-256 of each key; a
 * request's key is hashed and looked up (live-keys.ts trusts a live key for up to a second, so
 * a revoke reaches every process within that). Missing, malformed and unknown keys get the
 * same 401, so the answer does not say which. Alongside them, the dashboard's session cookie
 * (`herald_session`, see session-auth.ts): a session request that changes something must carry
 * its CSRF token, and its role decides what it may change.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { HeraldError } from '../errors.js';
import type { ApiKeyScope, SessionRecord, Store, UserRole } from '../store/store.js';
import type { LiveKeys } from './live-keys.js';
import type { DestinationView } from './masking.js';
import { requirementOf } from './route-scopes.js';
import { checkSessionRequest, type SessionAuth } from './session-auth.js';

/** Who made a request: an API key (bearer, or a session signed in with a key) or a dashboard user. */
export interface Principal {
  kind: 'api_key' | 'user';
  id: string;
  /** The key's label or the username; null for a bearer key (its label is not read per request). */
  name: string | null;
  role: UserRole;
  /** The session, when the request came with the cookie; null for a bearer key. */
  session: SessionRecord | null;
  /** A bearer key's scopes; null for a session (its role decides, session-auth.ts). */
  scopes: ApiKeyScope[] | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string;
    /**
     * Who is recorded on operator actions such as replays: the API key's id, or for a user's
     * session the user's id (`usr_…`).
     */
    apiKeyId: string;
    principal: Principal | null;
    /** How this request may see destinations (masking.ts): `full` for API keys and admin sessions. */
    destinationView: DestinationView;
  }
}

// The scheme name is case-insensitive (RFC 9110 §11.1); the key itself is not.
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] ([A-Za-z0-9_\-.~+/=]{1,512})$/;

/** The API key of a bearer header, or null when the header is absent or malformed. */
export function bearerKey(authorization: string | undefined): string | null {
  return BEARER.exec(authorization ?? '')?.[1] ?? null;
}

/** Throws scope_required (403) when a key lacks the scope its route needs (route-scopes.ts). */
export function checkScope(request: FastifyRequest, scopes: readonly ApiKeyScope[], deviceBasePath: string | null = null): void {
  const need = requirementOf(request.method, request.routeOptions.url ?? '', deviceBasePath);
  if (typeof need !== 'string' || scopes.includes(need)) return;
  throw new HeraldError('scope_required', `this API key lacks the ${need} scope that ${request.method} ${request.routeOptions.url} needs`, [
    { field: 'scope', message: need },
  ]);
}

/**
 * Adds authentication to every route of the (encapsulated) app it is called on: a bearer API
 * key, or (with `sessions`) the dashboard's session cookie. A request with an Authorization
 * header is judged by it alone, never by a cookie it also carries. A key must have the scope its
 * route needs (route-scopes.ts); a session is judged by its role (and, when opened with a key,
 * by that key's scopes too), and may not use the operator's `tenants` routes (those take a key).
 */
export function requireApiKey(app: FastifyInstance, store: Store, keys: LiveKeys, sessions: SessionAuth | null, clock: Clock): void {
  app.decorateRequest('tenantId', '');
  app.decorateRequest('apiKeyId', '');
  app.decorateRequest('principal', null);
  app.decorateRequest('destinationView', 'full');
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.headers.authorization === undefined && sessions !== null) {
      const session = await checkSessionRequest(request, store, sessions);
      if (session !== null) {
        request.tenantId = session.tenantId;
        request.apiKeyId = session.subjectId;
        request.principal = { kind: session.subjectKind, id: session.subjectId, name: session.subjectName, role: session.role, session, scopes: null };
        request.destinationView = session.role === 'admin' ? 'full' : 'masked';
        if (session.subjectKind === 'api_key') {
          // A session opened with a key can do no more than the key: its scopes are read per
          // request (an expired key ends its sessions, as revoking one already does).
          const k = await store.tenants.getKey(session.tenantId, session.subjectId);
          if (!k || k.revokedAt !== null || (k.expiresAt !== null && k.expiresAt <= clock.now()))
            throw new HeraldError('unauthorized', 'the key this session was opened with is no longer valid: sign in again');
          request.principal.scopes = k.scopes;
          checkScope(request, k.scopes);
        }
        if (requirementOf(request.method, request.routeOptions.url ?? '') === 'tenants')
          throw new HeraldError('scope_required', `${request.method} ${request.routeOptions.url} needs an API key with the tenants scope, not a session`);
        return;
      }
    }
    const key = bearerKey(request.headers.authorization);
    const found = key !== null ? await keys.find(key, clock.now()) : null;
    if (!found) throw new HeraldError('unauthorized', 'a valid API key is required: Authorization: Bearer <key>');
    request.tenantId = found.tenantId;
    request.apiKeyId = found.id;
    request.principal = { kind: 'api_key', id: found.id, name: null, role: 'admin', session: null, scopes: found.scopes };
    request.destinationView = 'full';
    checkScope(request, found.scopes);
  });
}
