/**
 * The dashboard's sign-in, on both drivers: an API key or a username and password opens a
 * session with an HttpOnly SameSite=Strict cookie; every /v1 route accepts the cookie; a
 * session request that changes something needs its CSRF token and a role that allows it;
 * sessions end when idle, at their lifetime, on sign-out and on revocation; failed sign-ins
 * are rate-limited; operator and viewer sessions see destinations masked.
 */
import selfsigned from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { buildApp } from '../../src/http/app.js';
import { IntakeService } from '../../src/intake/intake-service.js';
import { hashPassword } from '../../src/http/passwords.js';
import type { UserRole } from '../../src/store/store.js';
import { createHarness, DRIVERS, otpBody, T0, type Harness, silentLogger } from '../helpers/harness.js';

const PASSWORD = 'correct horse battery';

/** The herald_session cookie a Set-Cookie header sets (name=value), and its attributes. */
function sessionCookie(setCookie: unknown): { pair: string; attrs: string[] } {
  const all = (Array.isArray(setCookie) ? setCookie : [setCookie]) as string[];
  const c = all.find((x) => x.startsWith('herald_session='))!;
  const [pair, ...attrs] = c.split(/;\s*/);
  return { pair: pair!, attrs };
}

describe.each(DRIVERS)('dashboard sessions on %s', (driver) => {
  let h: Harness;
  afterEach(() => h.close());

  async function addUser(username: string, role: UserRole) {
    await h.store.sessions.createUser({ id: `usr_${username}`, tenantId: h.tenantId, username, passwordHash: await hashPassword(PASSWORD), role, now: T0 });
  }
  async function signIn(body: object) {
    const r = await h.app.inject({ method: 'POST', url: '/v1/session', payload: body });
    return { status: r.statusCode, json: r.json(), cookie: r.statusCode === 201 ? sessionCookie(r.headers['set-cookie']) : null, headers: r.headers };
  }
  const as = (cookie: string, csrf?: string) => ({ cookie, ...(csrf ? { 'x-csrf-token': csrf } : {}) });

  it('signs in with an API key (role admin), sets the cookie, and GET /v1/session answers the same session', async () => {
    h = await createHarness({ driver });
    const s = await signIn({ api_key: h.apiKey });
    expect(s.status, JSON.stringify(s.json)).toBe(201);
    expect(s.json).toEqual({
      session: {
        id: expect.stringMatching(/^ses_/),
        subject: { kind: 'api_key', id: 'key_test', name: 'test' },
        role: 'admin',
        expires_at: new Date(T0 + 28_800_000).toISOString(),
      },
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(s.cookie!.attrs).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=28800']));
    // Plain HTTP: no Secure attribute, or the browser would drop the cookie.
    expect(s.cookie!.attrs).not.toContain('Secure');
    const got = await h.app.inject({ method: 'GET', url: '/v1/session', headers: as(s.cookie!.pair) });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(s.json);
    expect((await h.app.inject({ method: 'GET', url: '/v1/session' })).statusCode).toBe(401);
    // The token is stored hashed: the cookie's value is not in the database.
    expect(await h.store.sessions.findSession(s.cookie!.pair.split('=')[1]!, T0, T0 - 1)).toBeNull();
  });

  it('the cookie authenticates /v1; a change needs X-CSRF-Token (403 csrf_required), a bearer request does not', async () => {
    h = await createHarness({ driver });
    const s = await signIn({ api_key: h.apiKey });
    expect((await h.app.inject({ method: 'GET', url: '/v1/deliveries', headers: as(s.cookie!.pair) })).statusCode).toBe(200);
    const post = (headers: Record<string, string>) => h.app.inject({ method: 'POST', url: '/v1/notifications', headers, payload: otpBody() });
    for (const headers of [as(s.cookie!.pair), as(s.cookie!.pair, 'not-the-token')]) {
      const r = await post(headers);
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ code: 'csrf_required' });
    }
    expect((await post(as(s.cookie!.pair, s.json.csrf_token))).statusCode).toBe(202);
    expect((await post({ authorization: `Bearer ${h.apiKey}` })).statusCode).toBe(202);
    // A bad bearer header is judged alone, even with a good cookie beside it.
    expect((await h.app.inject({ method: 'GET', url: '/v1/deliveries', headers: { ...as(s.cookie!.pair), authorization: 'Bearer nope' } })).statusCode).toBe(
      401,
    );
    // A cookie naming no live session is a 401 that says to sign in again.
    const dead = await h.app.inject({ method: 'GET', url: '/v1/deliveries', headers: as('herald_session=forged') });
    expect(dead.statusCode).toBe(401);
    expect(dead.json().detail).toMatch(/sign in again/);
  });

  it('a user signs in with the password; a wrong password and an unknown user get the same 401', async () => {
    h = await createHarness({ driver });
    await addUser('ada', 'operator');
    const ok = await signIn({ username: 'ada', password: PASSWORD });
    expect(ok.status).toBe(201);
    expect(ok.json.session).toMatchObject({ subject: { kind: 'user', id: 'usr_ada', name: 'ada' }, role: 'operator' });
    const wrong = await signIn({ username: 'ada', password: 'not it at all' });
    const unknown = await signIn({ username: 'bob', password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.json).toEqual(unknown.json);
    expect(wrong.json.code).toBe('invalid_credentials');
    expect((await signIn({ api_key: 'hld_sk_nope' })).json.code).toBe('invalid_credentials');
    for (const bad of [
      {},
      { api_key: h.apiKey, username: 'ada', password: PASSWORD },
      { username: 'ada' },
      { password: PASSWORD },
      { api_key: h.apiKey, extra: 1 },
    ]) {
      expect((await signIn(bad)).json.code, JSON.stringify(bad)).toBe('validation_failed');
    }
  });

  it('roles: a viewer only reads, an operator may act on deliveries but not change configuration (403 forbidden_role)', async () => {
    h = await createHarness({ driver });
    await addUser('vic', 'viewer');
    await addUser('ops', 'operator');
    const sent = await h.send(otpBody());
    await h.worker.drain();
    const deliveryId = sent.json.deliveries[0].id as string;
    const viewer = await signIn({ username: 'vic', password: PASSWORD });
    const operator = await signIn({ username: 'ops', password: PASSWORD });
    const retry = (s: typeof viewer) =>
      h.app.inject({ method: 'POST', url: `/v1/deliveries/${deliveryId}/retry`, headers: as(s.cookie!.pair, s.json.csrf_token), payload: {} });
    const viewed = await h.app.inject({ method: 'GET', url: `/v1/deliveries/${deliveryId}`, headers: as(viewer.cookie!.pair) });
    expect(viewed.statusCode).toBe(200);
    const refused = await retry(viewer);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'forbidden_role', detail: expect.stringContaining('viewer') });
    // The operator's retry reaches the route (a delivered one is not replayable: 409, not 403).
    const acted = await retry(operator);
    expect(acted.statusCode, acted.body).not.toBe(403);
    expect(acted.json().code).toBe('not_replayable');
    const send = await h.app.inject({
      method: 'POST',
      url: '/v1/notifications',
      headers: as(operator.cookie!.pair, operator.json.csrf_token),
      payload: otpBody(),
    });
    expect(send.statusCode).toBe(403);
    expect(send.json().code).toBe('forbidden_role');
  });

  it('masks destinations for operator and viewer sessions; admin sessions and API keys see them in full', async () => {
    h = await createHarness({ driver });
    await addUser('ops', 'operator');
    await addUser('boss', 'admin');
    const put = await h.app.inject({
      method: 'PUT',
      url: '/v1/recipients/r1',
      headers: { authorization: `Bearer ${h.apiKey}` },
      payload: { email: 'ada@example.com', phone: '+447911123789', push_token: 'fcm-token-abcdef' },
    });
    expect(put.statusCode, put.body).toBe(201);
    const read = async (headers: Record<string, string>) => (await h.app.inject({ method: 'GET', url: '/v1/recipients/r1', headers })).json();
    const operator = await signIn({ username: 'ops', password: PASSWORD });
    const admin = await signIn({ username: 'boss', password: PASSWORD });
    expect(await read(as(operator.cookie!.pair))).toMatchObject({ email: 'a•••@example.com', phone: '+44•••••789', push_token: null });
    const full = { email: 'ada@example.com', phone: '+447911123789', push_token: 'fcm-token-abcdef' };
    expect(await read(as(admin.cookie!.pair))).toMatchObject(full);
    expect(await read({ authorization: `Bearer ${h.apiKey}` })).toMatchObject(full);
  });

  it('a session ends when idle for session_idle_s, at session_ttl_s however used, and on sign-out', async () => {
    h = await createHarness({ driver, dashboard: { sessionTtlS: 7200, sessionIdleS: 1800 } });
    const s = await signIn({ api_key: h.apiKey });
    const get = async (pair: string) => (await h.app.inject({ method: 'GET', url: '/v1/session', headers: as(pair) })).statusCode;
    // Used every 20 minutes: alive past the idle timeout, until the absolute lifetime.
    for (let i = 0; i < 5; i++) {
      h.clock.advance(20 * 60_000);
      expect(await get(s.cookie!.pair), `after ${(i + 1) * 20} min`).toBe(200);
    }
    h.clock.advance(20 * 60_000);
    expect(await get(s.cookie!.pair), 'at 2 h').toBe(401);
    // Idle for more than 30 minutes.
    const t = await signIn({ api_key: h.apiKey });
    h.clock.advance(31 * 60_000);
    expect(await get(t.cookie!.pair)).toBe(401);
    // Sign-out needs the CSRF token, revokes the session and clears the cookie.
    const u = await signIn({ api_key: h.apiKey });
    expect((await h.app.inject({ method: 'DELETE', url: '/v1/session', headers: as(u.cookie!.pair) })).statusCode).toBe(403);
    const out = await h.app.inject({ method: 'DELETE', url: '/v1/session', headers: as(u.cookie!.pair, u.json.csrf_token) });
    expect(out.statusCode).toBe(204);
    expect(sessionCookie(out.headers['set-cookie']).pair).toBe('herald_session=');
    expect(await get(u.cookie!.pair)).toBe(401);
  });

  it('revoking a user’s sessions signs them out everywhere', async () => {
    h = await createHarness({ driver });
    await addUser('ada', 'viewer');
    const a = await signIn({ username: 'ada', password: PASSWORD });
    const b = await signIn({ username: 'ada', password: PASSWORD });
    expect(await h.store.sessions.revokeUserSessions('usr_ada', h.clock.now())).toBe(2);
    for (const s of [a, b]) expect((await h.app.inject({ method: 'GET', url: '/v1/deliveries', headers: as(s.cookie!.pair) })).statusCode).toBe(401);
  });

  it('rate-limits failed sign-ins per username (5) and per address (10) for 15 minutes, with Retry-After', async () => {
    h = await createHarness({ driver });
    await addUser('ada', 'viewer');
    for (let i = 0; i < 5; i++) expect((await signIn({ username: 'ada', password: `wrong password ${i}` })).status).toBe(401);
    // Now even the right password waits: the guesser must not learn it was right.
    const limited = await signIn({ username: 'ada', password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe('too_many_attempts');
    expect(limited.headers['retry-after']).toBe('900');
    h.clock.advance(15 * 60_000);
    expect((await signIn({ username: 'ada', password: PASSWORD })).status).toBe(201);
    // Per address: ten failures over any usernames or keys.
    for (let i = 0; i < 10; i++) await signIn({ api_key: `hld_sk_guess${i}` });
    expect((await signIn({ api_key: h.apiKey })).status).toBe(429);
  });
});

describe('the session cookie over HTTPS', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('is Secure when Herald serves TLS itself', async () => {
    h = await createHarness({ driver: 'sqlite' });
    const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048 });
    const app = await buildApp({
      https: { key: Buffer.from(pems.private), cert: Buffer.from(pems.cert) },
      store: h.store,
      intake: new IntakeService({ store: h.store, accounts: [], clock: h.clock, logger: silentLogger }),
      replay: new ReplayService({ store: h.store, clock: h.clock }),
      clock: h.clock,
    });
    try {
      const r = await app.inject({ method: 'POST', url: '/v1/session', payload: { api_key: h.apiKey } });
      expect(r.statusCode).toBe(201);
      expect(sessionCookie(r.headers['set-cookie']).attrs).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Strict']));
    } finally {
      await app.close();
    }
  });
});
