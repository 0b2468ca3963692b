/** Maps `users` and `sessions` rows to the session part's records (session-store.ts). */
import { num, str, type Row } from './rows.js';
import type { SessionRecord, SessionSubjectKind, UserRecord, UserRole } from './session-store.js';

/** A `users` row as the contract's record. */
export function toUserRecord(r: Row): UserRecord {
  return {
    id: str(r.id),
    tenantId: str(r.tenant_id),
    username: str(r.username),
    passwordHash: str(r.password_hash),
    role: str(r.role) as UserRole,
    createdAt: num(r.created_at),
  };
}

/** A `sessions` row as the contract's record. */
export function toSessionRecord(r: Row): SessionRecord {
  return {
    id: str(r.id),
    tenantId: str(r.tenant_id),
    csrfToken: str(r.csrf_token),
    subjectKind: str(r.subject_kind) as SessionSubjectKind,
    subjectId: str(r.subject_id),
    subjectName: str(r.subject_name),
    role: str(r.role) as UserRole,
    createdAt: num(r.created_at),
    lastSeenAt: num(r.last_seen_at),
    expiresAt: num(r.expires_at),
  };
}
