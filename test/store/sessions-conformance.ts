/**
 * The session part of the Store contract, run against every driver: usernames are unique,
 * a session is found by its token hash only while it is live (not revoked, not expired, not
 * idle, its API key not revoked), touching restarts the idle clock, and revoking a user's
 * sessions leaves other subjects' alone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewSession, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { HOUR, MINUTE, T0 } from './fixtures.js';

export function sessionsConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`sessions conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: 't_alpha', name: 'Alpha' }, T0);
      await store.createApiKey({ id: 'key_1', tenantId: 't_alpha', keyHash: 'kh1', label: 'ops', now: T0 });
    });
    afterEach(() => f.cleanup());

    const user = { tenantId: 't_alpha', passwordHash: 'scrypt$16384$8$1$c2FsdA$aGFzaA', now: T0 };
    const session = (over: Partial<NewSession> = {}): NewSession => ({
      id: 'ses_1',
      tenantId: 't_alpha',
      tokenHash: 'th1',
      csrfToken: 'csrf1',
      subjectKind: 'user',
      subjectId: 'usr_1',
      subjectName: 'ada',
      role: 'operator',
      now: T0,
      expiresAt: T0 + 8 * HOUR,
      ...over,
    });

    it('finds an unrevoked API key by hash with its label, for a sign-in', async () => {
      expect(await store.sessions.findSignInKey('kh1')).toEqual({ id: 'key_1', tenantId: 't_alpha', label: 'ops' });
      expect(await store.sessions.findSignInKey('nope')).toBeNull();
    });

    it('stores users with unique usernames and lists them by username', async () => {
      expect(await store.sessions.createUser({ ...user, id: 'usr_2', username: 'zoe', role: 'viewer' })).toBe(true);
      expect(await store.sessions.createUser({ ...user, id: 'usr_1', username: 'ada', role: 'admin' })).toBe(true);
      expect(await store.sessions.createUser({ ...user, id: 'usr_3', username: 'ada', role: 'viewer' })).toBe(false);
      expect(await store.sessions.findUser('ada')).toEqual({
        id: 'usr_1',
        tenantId: 't_alpha',
        username: 'ada',
        passwordHash: user.passwordHash,
        role: 'admin',
        createdAt: T0,
      });
      expect(await store.sessions.findUser('nobody')).toBeNull();
      expect((await store.sessions.listUsers()).map((u) => [u.username, u.role])).toEqual([
        ['ada', 'admin'],
        ['zoe', 'viewer'],
      ]);
    });

    it('finds a session by token hash only while it is live, and touching restarts the idle clock', async () => {
      await store.sessions.createSession(session());
      const live = await store.sessions.findSession('th1', T0 + MINUTE, T0 + MINUTE - HOUR);
      expect(live).toEqual({
        id: 'ses_1',
        tenantId: 't_alpha',
        csrfToken: 'csrf1',
        subjectKind: 'user',
        subjectId: 'usr_1',
        subjectName: 'ada',
        role: 'operator',
        createdAt: T0,
        lastSeenAt: T0,
        expiresAt: T0 + 8 * HOUR,
      });
      expect(await store.sessions.findSession('other', T0 + MINUTE, T0)).toBeNull();
      // Idle for more than an hour: gone; touched before that, alive again.
      expect(await store.sessions.findSession('th1', T0 + 2 * HOUR, T0 + HOUR)).toBeNull();
      await store.sessions.touchSession('ses_1', T0 + 90 * MINUTE);
      expect((await store.sessions.findSession('th1', T0 + 2 * HOUR, T0 + HOUR))?.lastSeenAt).toBe(T0 + 90 * MINUTE);
      // A touch never moves the clock back.
      await store.sessions.touchSession('ses_1', T0 + MINUTE);
      expect((await store.sessions.findSession('th1', T0 + 2 * HOUR, T0 + HOUR))?.lastSeenAt).toBe(T0 + 90 * MINUTE);
      // Past its absolute expiry it is gone however fresh.
      await store.sessions.touchSession('ses_1', T0 + 8 * HOUR - 1);
      expect(await store.sessions.findSession('th1', T0 + 8 * HOUR, T0 + 7 * HOUR)).toBeNull();
    });

    it('revokes one session, or all of a user, and leaves the others', async () => {
      await store.sessions.createSession(session());
      await store.sessions.createSession(session({ id: 'ses_2', tokenHash: 'th2' }));
      await store.sessions.createSession(
        session({ id: 'ses_3', tokenHash: 'th3', subjectKind: 'api_key', subjectId: 'key_1', subjectName: 'ops', role: 'admin' }),
      );
      expect(await store.sessions.revokeSession('ses_1', T0 + MINUTE)).toBe(true);
      expect(await store.sessions.revokeSession('ses_1', T0 + MINUTE)).toBe(false);
      expect(await store.sessions.findSession('th1', T0 + MINUTE, T0 - 1)).toBeNull();
      expect(await store.sessions.revokeUserSessions('usr_1', T0 + MINUTE)).toBe(1);
      expect(await store.sessions.findSession('th2', T0 + MINUTE, T0 - 1)).toBeNull();
      expect((await store.sessions.findSession('th3', T0 + MINUTE, T0 - 1))?.subjectKind).toBe('api_key');
      expect(await store.sessions.revokeUserSessions('usr_1', T0 + MINUTE)).toBe(0);
    });
  });
}
