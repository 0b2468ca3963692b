/**
 * The dashboard's session cookie: opening a session (an API key or a user's password), finding
 * the live session a request's cookie names, and the two rules a session request obeys besides
 * being live: anything but GET/HEAD carries the session's CSRF token in `X-CSRF-Token`
 * (SameSite=Strict already keeps other sites' forms out; the token also covers same-site
 * subdomains and old browsers), and the session's role allows the request (docs/dashboard.md).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { HeraldError } from '../errors.js';
import type { SessionRecord, Store } from '../store/store.js';
import { requirementOf } from './route-scopes.js';

export const SESSION_COOKIE = 'herald_session';
export const CSRF_HEADER = 'x-csrf-token';

/** How long sessions live, and the clock they are judged by. */
export interface SessionAuth {
  /** Absolute lifetime from sign-in (config dashboard.session_ttl_s). */
  ttlMs: number;
  /** A session unused this long ends (config dashboard.session_idle_s). */
  idleMs: number;
  clock: Clock;
}

/** 8 h absolute, 1 h idle: a working day, and a desk left for lunch signs out. */
export const DEFAULT_SESSION_TTL_S = 28_800;
export const DEFAULT_SESSION_IDLE_S = 3_600;

/**
 * Last-seen is written at most once a minute per session: the idle clock is an hour, and a
 * write per dashboard request (several a second while the live view runs) would be one fsync each on SQLite.
 */
const TOUCH_EVERY_MS = 60_000;

/**
 * What an operator (not an admin) may change: the routes whose scope is `operate` in the one
 * route table (route-scopes.ts), the actions the dashboard offers on deliveries, devices and
 * campaigns. Every other non-GET route (new sends, webhooks, suppressions, preferences, profiles,
 * campaigns' creation) is an admin's.
 */
function isOperatorAction(method: string, url: string): boolean {
  return requirementOf(method, url) === 'operate';
}

/** The stored form of a session token (and of nothing else). */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** 256 bits from the CSPRNG, base64url: a cookie value or a CSRF token. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/** The live session the request's cookie names, or null when it carries none; 401 when it names a dead one. */
export async function findRequestSession(request: FastifyRequest, store: Store, auth: SessionAuth): Promise<SessionRecord | null> {
  const token = request.cookies?.[SESSION_COOKIE];
  if (!token) return null;
  const now = auth.clock.now();
  const session = await store.sessions.findSession(hashSessionToken(token), now, now - auth.idleMs);
  if (!session) throw new HeraldError('unauthorized', 'the session has expired or was revoked: sign in again at POST /v1/session');
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await store.sessions.touchSession(session.id, now);
  return session;
}

/**
 * Whether the session a long-lived request (the event stream) opened with is still live: not
 * revoked, not expired, not idle, its API key not revoked. Read from the store, so a revocation
 * by any process is seen. Does not count as use (the idle clock is not restarted).
 */
export async function sessionStillLive(request: FastifyRequest, store: Store, auth: SessionAuth): Promise<boolean> {
  const token = request.cookies?.[SESSION_COOKIE];
  if (!token) return false;
  const now = auth.clock.now();
  return (await store.sessions.findSession(hashSessionToken(token), now, now - auth.idleMs)) !== null;
}

/** Throws csrf_required when a mutating request lacks its session's CSRF token. */
export function checkCsrf(request: FastifyRequest, session: SessionRecord): void {
  if (request.method === 'GET' || request.method === 'HEAD') return;
  const sent = request.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !sameSecret(sent, session.csrfToken))
    throw new HeraldError('csrf_required', `a ${request.method} signed in with the session cookie must send X-CSRF-Token: <csrf_token from /v1/session>`);
}

/** Throws forbidden_role when the session's role does not allow the request. */
export function checkRole(request: FastifyRequest, session: SessionRecord): void {
  if (request.method === 'GET' || request.method === 'HEAD' || session.role === 'admin') return;
  if (session.role === 'operator' && isOperatorAction(request.method, request.routeOptions.url ?? '')) return;
  throw new HeraldError('forbidden_role', `role ${session.role} may not ${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`);
}

/** For a /v1 request without an Authorization header: its live session with CSRF and role checked, or null without a cookie. */
export async function checkSessionRequest(request: FastifyRequest, store: Store, auth: SessionAuth): Promise<SessionRecord | null> {
  const session = await findRequestSession(request, store, auth);
  if (session === null) return null;
  checkCsrf(request, session);
  checkRole(request, session);
  return session;
}
