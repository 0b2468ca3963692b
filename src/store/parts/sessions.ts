/** `store.sessions`, written once for both drivers (see ../session-store.ts). */
import type { Executor } from '../sql-executor.js';
import { toSessionRecord, toUserRecord } from '../session-rows.js';
import type { NewSession, NewUser, SessionRecord, SessionStore, SignInKey, UserRecord } from '../session-store.js';

/** Dashboard users and sign-in sessions. */
export class SessionsPart implements SessionStore {
  constructor(private readonly x: Executor) {}

  async findSignInKey(keyHash: string): Promise<SignInKey | null> {
    const r = await this.x.one('sessions_sign_in_key', { key_hash: keyHash });
    return r ? { id: String(r.id), tenantId: String(r.tenant_id), label: String(r.label) } : null;
  }

  async createUser(u: NewUser): Promise<boolean> {
    const params = { id: u.id, tenant_id: u.tenantId, username: u.username, password_hash: u.passwordHash, role: u.role, now: u.now };
    return (await this.x.count('users_insert', params)) === 1;
  }

  async findUser(username: string): Promise<UserRecord | null> {
    const r = await this.x.one('users_find', { username });
    return r ? toUserRecord(r) : null;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.x.all('users_list')).map(toUserRecord);
  }

  async createSession(s: NewSession): Promise<void> {
    await this.x.count('sessions_insert', {
      id: s.id,
      tenant_id: s.tenantId,
      token_hash: s.tokenHash,
      csrf_token: s.csrfToken,
      subject_kind: s.subjectKind,
      subject_id: s.subjectId,
      subject_name: s.subjectName,
      role: s.role,
      now: s.now,
      expires_at: s.expiresAt,
    });
  }

  async findSession(tokenHash: string, now: number, idleSince: number): Promise<SessionRecord | null> {
    const r = await this.x.one('sessions_find_live', { token_hash: tokenHash, now, idle_since: idleSince });
    return r ? toSessionRecord(r) : null;
  }

  async touchSession(id: string, now: number): Promise<void> {
    await this.x.count('sessions_touch', { id, now });
  }

  async revokeSession(id: string, now: number): Promise<boolean> {
    return (await this.x.count('sessions_revoke', { id, now })) === 1;
  }

  revokeUserSessions(userId: string, now: number): Promise<number> {
    return this.x.count('sessions_revoke_user', { user_id: userId, now });
  }
}
