/**
 * The dashboard's sign-in: POST /v1/session (an API key, or a username and password) opens a
 * session and sets the HttpOnly `herald_session` cookie; GET /v1/session says who is signed in
 * (with the CSRF token the page must echo); DELETE /v1/session signs out. Failed sign-ins are
 * rate-limited per address and per username (login-limiter.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { HeraldError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { SessionRecord, Store } from '../../store/store.js';
import { liveApiKey } from '../live-keys.js';
import { hashApiKey } from '../../tenants/api-keys.js';
import { LoginLimiter } from '../login-limiter.js';
import { decoyHash, verifyPassword } from '../passwords.js';
import { SESSION_COOKIE, checkCsrf, findRequestSession, hashSessionToken, newSecret, type SessionAuth } from '../session-auth.js';

const problemRef = { $ref: 'problem#' };

export interface SessionRouteDeps {
  store: Store;
  sessions: SessionAuth;
  /** Set the cookie's Secure attribute (the API is served over TLS). */
  secureCookie: boolean;
  /** Failed sign-ins of this process; default a new one on `sessions.clock`. */
  limiter?: LoginLimiter;
}

interface SignInBody {
  api_key?: string;
  username?: string;
  password?: string;
}

const sessionSchema = {
  type: 'object',
  properties: {
    session: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        subject: {
          type: 'object',
          properties: { kind: { type: 'string', enum: ['api_key', 'user'] }, id: { type: 'string' }, name: { type: 'string' } },
        },
        role: { type: 'string', enum: ['admin', 'operator', 'viewer'] },
        expires_at: { type: 'string', format: 'date-time' },
      },
    },
    csrf_token: { type: 'string' },
  },
} as const;

/** A session as the API shows it, with the CSRF token the page sends back on every change. */
export function sessionJson(s: SessionRecord) {
  return {
    session: {
      id: s.id,
      subject: { kind: s.subjectKind, id: s.subjectId, name: s.subjectName },
      role: s.role,
      expires_at: new Date(s.expiresAt).toISOString(),
    },
    csrf_token: s.csrfToken,
  };
}

/** Registers the session routes (outside the authenticated scope: signing in is how one gets there). */
export function sessionRoutes(app: FastifyInstance, deps: SessionRouteDeps): void {
  const { store, sessions } = deps;
  const clock: Clock = sessions.clock;
  const limiter = deps.limiter ?? new LoginLimiter(clock);

  const clearCookie = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: deps.secureCookie });

  app.post<{ Body: SignInBody }>(
    '/v1/session',
    {
      schema: {
        summary: 'Sign in to the dashboard: opens a session and sets the herald_session cookie',
        description:
          'Send `{"api_key": "..."}` (role admin) or `{"username": "...", "password": "..."}` (the user\'s role). The answer sets an HttpOnly, ' +
          'SameSite=Strict cookie (Secure over TLS); every later request that changes something must send `X-CSRF-Token: <csrf_token>`. ' +
          'Wrong credentials are 401 `invalid_credentials`, the same for an unknown user and a wrong password; too many failures are 429.',
        tags: ['session'],
        security: [],
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            api_key: { type: 'string', minLength: 1, maxLength: 512 },
            username: { type: 'string', minLength: 1, maxLength: 64 },
            password: { type: 'string', minLength: 1, maxLength: 1024 },
          },
        },
        response: { 201: sessionSchema, 400: problemRef, 401: problemRef, 403: problemRef, 429: problemRef },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const byKey = b.api_key !== undefined;
      if (byKey === (b.username !== undefined) || (b.username !== undefined) !== (b.password !== undefined))
        throw new HeraldError('validation_failed', 'send either api_key, or username and password', [
          { field: '(body)', message: 'must have api_key, or username and password' },
        ]);
      const username = byKey ? null : b.username!;
      const wait = limiter.retryAfterMs(request.ip, username);
      if (wait > 0) {
        reply.header('retry-after', String(Math.ceil(wait / 1000)));
        throw new HeraldError('too_many_attempts', `too many failed sign-ins; try again in ${Math.ceil(wait / 1000)} s`);
      }
      const subject = byKey ? await keySubject(store, b.api_key!, clock.now()) : await userSubject(store, username!, b.password!);
      if (subject === null) {
        limiter.fail(request.ip, username);
        throw new HeraldError('invalid_credentials', byKey ? 'the API key is not valid' : 'the username or password is wrong');
      }
      limiter.succeed(username);
      const now = clock.now();
      const token = newSecret();
      const record: SessionRecord = {
        id: newId('ses', now),
        ...subject,
        csrfToken: newSecret(),
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + sessions.ttlMs,
      };
      await store.sessions.createSession({ ...record, tokenHash: hashSessionToken(token), now });
      reply.setCookie(SESSION_COOKIE, token, {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: deps.secureCookie,
        maxAge: Math.floor(sessions.ttlMs / 1000),
      });
      return reply.code(201).header('cache-control', 'no-store').send(sessionJson(record));
    },
  );

  app.get(
    '/v1/session',
    {
      schema: {
        summary: 'The signed-in session (from the herald_session cookie) and its CSRF token',
        tags: ['session'],
        security: [],
        response: { 200: sessionSchema, 401: problemRef },
      },
    },
    async (request: FastifyRequest, reply) => {
      const s = await findRequestSession(request, store, sessions);
      if (s === null) throw new HeraldError('unauthorized', 'not signed in: POST /v1/session');
      return reply.header('cache-control', 'no-store').send(sessionJson(s));
    },
  );

  app.delete(
    '/v1/session',
    {
      schema: {
        summary: 'Sign out: revokes the session and clears the cookie',
        description: 'Needs `X-CSRF-Token` like every change made with the cookie. Without a live session it only clears the cookie.',
        tags: ['session'],
        security: [],
        response: { 204: { type: 'null' }, 403: problemRef },
      },
    },
    async (request: FastifyRequest, reply) => {
      const s = await findRequestSession(request, store, sessions).catch((err: unknown) => {
        if (err instanceof HeraldError && err.code === 'unauthorized') return null;
        throw err;
      });
      if (s !== null) {
        checkCsrf(request, s);
        await store.sessions.revokeSession(s.id, clock.now());
      }
      clearCookie(reply);
      return reply.code(204).send();
    },
  );
}

type Subject = Pick<SessionRecord, 'tenantId' | 'subjectKind' | 'subjectId' | 'subjectName' | 'role'>;

/** A live, unexpired key with the dashboard scope signs in as admin; a valid key without the scope is 403 scope_required. */
async function keySubject(store: Store, apiKey: string, now: number): Promise<Subject | null> {
  const live = await liveApiKey(store, apiKey, now);
  const key = live && (await store.sessions.findSignInKey(hashApiKey(apiKey)));
  if (!live || !key) return null;
  if (!live.scopes.includes('dashboard')) throw new HeraldError('scope_required', 'this API key lacks the dashboard scope that signing in needs');
  return { tenantId: key.tenantId, subjectKind: 'api_key', subjectId: key.id, subjectName: key.label, role: 'admin' };
}

async function userSubject(store: Store, username: string, password: string): Promise<Subject | null> {
  const user = await store.sessions.findUser(username);
  // An unknown user costs a hash too, so the answer's timing does not say which names exist.
  const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
  return user && ok ? { tenantId: user.tenantId, subjectKind: 'user', subjectId: user.id, subjectName: user.username, role: user.role } : null;
}
