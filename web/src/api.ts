/**
 * The dashboard's only way to the server: the public /v1 API, same origin, with the session
 * cookie (HttpOnly, so this code never sees it) and the CSRF token the session answer carries,
 * sent as X-CSRF-Token on every request that changes something.
 */

export interface Subject {
  kind: 'api_key' | 'user';
  id: string;
  name: string;
}

export type Role = 'admin' | 'operator' | 'viewer';

export interface Session {
  id: string;
  subject: Subject;
  role: Role;
  expires_at: string;
}

/** An RFC 9457 problem answer, with its stable code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
const unauthorizedListeners = new Set<() => void>();

/** Called whenever the server answers 401 to a signed-in request: the session expired or was revoked. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** Tells every onUnauthorized listener that the session ended (the event stream said so, or a request got 401). */
export function sessionEnded(): void {
  for (const l of unauthorizedListeners) l();
}

async function problemOf(res: Response): Promise<ApiError> {
  let body: { code?: string; detail?: string; title?: string; errors?: Array<{ field: string; message: string }> } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new ApiError(res.status, body.code ?? `http_${res.status}`, body.detail ?? body.title ?? res.statusText, body.errors ?? []);
}

/** One API call; resolves with the JSON answer (undefined for 204), rejects with an ApiError. */
export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (res.status === 401 && path !== '/v1/session') sessionEnded();
  if (!res.ok) throw await problemOf(res);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const get = <T>(path: string): Promise<T> => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}): Promise<T> => api<T>('POST', path, body);

interface SessionAnswer {
  session: Session;
  csrf_token: string;
}

/** The current session, or null when there is none (401). */
export async function currentSession(): Promise<Session | null> {
  try {
    const r = await get<SessionAnswer>('/v1/session');
    csrfToken = r.csrf_token;
    return r.session;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

/** Signs in with an API key or a username and password; the server sets the session cookie. */
export async function signIn(credentials: { api_key: string } | { username: string; password: string }): Promise<Session> {
  const r = await post<SessionAnswer>('/v1/session', credentials);
  csrfToken = r.csrf_token;
  return r.session;
}

export async function signOut(): Promise<void> {
  try {
    await api<void>('DELETE', '/v1/session');
  } finally {
    csrfToken = null;
  }
}

/** A query string from the set fields of `params` (empty ones left out), with its `?`. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}
