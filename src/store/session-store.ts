/**
 * The dashboard's sign-in part of the Store contract (`store.sessions`): users who sign in with
 * a username and password (an scrypt hash, never the password), and the sessions a sign-in
 * opens. A session is stored as the SHA-256 of its opaque cookie token, so a copy of the
 * database does not hand out live sessions. Both drivers implement it;
 * test/store/sessions-conformance.ts runs on each.
 */

/** What a signed-in person may do (docs/dashboard.md, Roles). */
export const USER_ROLES = ['admin', 'operator', 'viewer'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** Who a session speaks for: an API key (signed in with the key) or a user. */
export const SESSION_SUBJECT_KINDS = ['api_key', 'user'] as const;
export type SessionSubjectKind = (typeof SESSION_SUBJECT_KINDS)[number];

export interface NewUser {
  id: string;
  tenantId: string;
  /** Unique across tenants: a sign-in names the user, not the tenant. */
  username: string;
  /** `scrypt$N$r$p$salt$hash` (src/http/passwords.ts). */
  passwordHash: string;
  role: UserRole;
  now: number;
}

export interface UserRecord {
  id: string;
  tenantId: string;
  username: string;
  passwordHash: string;
  role: UserRole;
  createdAt: number;
}

export interface NewSession {
  id: string;
  tenantId: string;
  /** SHA-256 (hex) of the cookie's opaque token. */
  tokenHash: string;
  /** Sent back by the client in X-CSRF-Token on every mutating request. */
  csrfToken: string;
  subjectKind: SessionSubjectKind;
  /** The API key id or the user id. */
  subjectId: string;
  /** The key's label or the username, as shown in the audit trail. */
  subjectName: string;
  role: UserRole;
  now: number;
  /** Absolute end (config dashboard.session_ttl_s after sign-in). */
  expiresAt: number;
}

export interface SessionRecord {
  id: string;
  tenantId: string;
  csrfToken: string;
  subjectKind: SessionSubjectKind;
  subjectId: string;
  subjectName: string;
  role: UserRole;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** An API key as a sign-in sees it: its label names the session's subject. */
export interface SignInKey {
  id: string;
  tenantId: string;
  label: string;
}

/** `store.sessions`; implemented by sqlite/sessions.ts and postgres/sessions.ts. */
export interface SessionStore {
  /** The unrevoked API key with this hash, with its label, or null. */
  findSignInKey(keyHash: string): Promise<SignInKey | null>;
  /** Stores a new user; false (nothing written) when the username is taken. */
  createUser(u: NewUser): Promise<boolean>;
  /** The user with this username, or null. */
  findUser(username: string): Promise<UserRecord | null>;
  /** Every user, by username. */
  listUsers(): Promise<UserRecord[]>;
  /** Stores a new session. */
  createSession(s: NewSession): Promise<void>;
  /**
   * The live session with this token hash, or null: not revoked, `now` before its expiry, last
   * seen after `idleSince`, and its API key (for a key's session) not revoked.
   */
  findSession(tokenHash: string, now: number, idleSince: number): Promise<SessionRecord | null>;
  /** Records that the session was used at `now` (the idle clock restarts). */
  touchSession(id: string, now: number): Promise<void>;
  /** Revokes one session; false when it was already revoked or does not exist. */
  revokeSession(id: string, now: number): Promise<boolean>;
  /** Revokes every live session of a user; returns how many. */
  revokeUserSessions(userId: string, now: number): Promise<number>;
}
