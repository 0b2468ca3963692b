/** The SQLite driver's session part (see src/store/session-store.ts). */
import type { Row } from '../rows.js';
import { toSessionRecord, toUserRecord } from '../session-rows.js';
import type { NewSession, NewUser, SessionRecord, SessionStore, SignInKey, UserRecord } from '../session-store.js';
import type { SqliteContext } from './sql-context.js';

/** `store.sessions` of the SQLite store. */
export class SqliteSessions implements SessionStore {
  constructor(private readonly sql: SqliteContext) {}

  async findSignInKey(keyHash: string): Promise<SignInKey | null> {
    const r = this.sql.stmt('sessions_sign_in_key').get({ key_hash: keyHash }) as Row | undefined;
    return r ? { id: String(r.id), tenantId: String(r.tenant_id), label: String(r.label) } : null;
  }

  async createUser(u: NewUser): Promise<boolean> {
    const params = { id: u.id, tenant_id: u.tenantId, username: u.username, password_hash: u.passwordHash, role: u.role, now: u.now };
    return this.sql.stmt('users_insert').run(params).changes === 1;
  }

  async findUser(username: string): Promise<UserRecord | null> {
    const r = this.sql.stmt('users_find').get({ username }) as Row | undefined;
    return r ? toUserRecord(r) : null;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (this.sql.stmt('users_list').all() as Row[]).map(toUserRecord);
  }

  async createSession(s: NewSession): Promise<void> {
    this.sql.stmt('sessions_insert').run({
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
    const r = this.sql.stmt('sessions_find_live').get({ token_hash: tokenHash, now, idle_since: idleSince }) as Row | undefined;
    return r ? toSessionRecord(r) : null;
  }

  async touchSession(id: string, now: number): Promise<void> {
    this.sql.stmt('sessions_touch').run({ id, now });
  }

  async revokeSession(id: string, now: number): Promise<boolean> {
    return this.sql.stmt('sessions_revoke').run({ id, now }).changes === 1;
  }

  async revokeUserSessions(userId: string, now: number): Promise<number> {
    return this.sql.stmt('sessions_revoke_user').run({ user_id: userId, now }).changes;
  }
}
