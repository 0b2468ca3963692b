/** The PostgreSQL driver's session part (see src/store/session-store.ts). */
import { toSessionRecord, toUserRecord } from '../session-rows.js';
import type { NewSession, NewUser, SessionRecord, SessionStore, SignInKey, UserRecord } from '../session-store.js';
import type { PostgresContext } from './sql-context.js';

/** `store.sessions` of the PostgreSQL store. */
export class PostgresSessions implements SessionStore {
  constructor(private readonly sql: PostgresContext) {}

  async findSignInKey(keyHash: string): Promise<SignInKey | null> {
    const [r] = await this.sql.q('sessions_sign_in_key', [keyHash]);
    return r ? { id: String(r.id), tenantId: String(r.tenant_id), label: String(r.label) } : null;
  }

  async createUser(u: NewUser): Promise<boolean> {
    return (await this.sql.count('users_insert', [u.id, u.tenantId, u.username, u.passwordHash, u.role, u.now])) === 1;
  }

  async findUser(username: string): Promise<UserRecord | null> {
    const [r] = await this.sql.q('users_find', [username]);
    return r ? toUserRecord(r) : null;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.sql.q('users_list')).map(toUserRecord);
  }

  async createSession(s: NewSession): Promise<void> {
    await this.sql.q('sessions_insert', [s.id, s.tenantId, s.tokenHash, s.csrfToken, s.subjectKind, s.subjectId, s.subjectName, s.role, s.now, s.expiresAt]);
  }

  async findSession(tokenHash: string, now: number, idleSince: number): Promise<SessionRecord | null> {
    const [r] = await this.sql.q('sessions_find_live', [tokenHash, now, idleSince]);
    return r ? toSessionRecord(r) : null;
  }

  async touchSession(id: string, now: number): Promise<void> {
    await this.sql.q('sessions_touch', [id, now]);
  }

  async revokeSession(id: string, now: number): Promise<boolean> {
    return (await this.sql.count('sessions_revoke', [id, now])) === 1;
  }

  async revokeUserSessions(userId: string, now: number): Promise<number> {
    return this.sql.count('sessions_revoke_user', [userId, now]);
  }
}
