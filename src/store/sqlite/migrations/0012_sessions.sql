-- 0012_sessions: the dashboard's sign-in. Users sign in with a username and password (an scrypt
-- hash is stored, never the password); a sign-in (with a user or an API key) opens a session,
-- stored as the SHA-256 of its opaque cookie token with its CSRF token, role and clocks.
CREATE TABLE users (
  id             TEXT PRIMARY KEY,
  tenant_id      TEXT NOT NULL REFERENCES tenants (id),
  username       TEXT NOT NULL UNIQUE,
  password_hash  TEXT NOT NULL,
  role           TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  created_at     INTEGER NOT NULL
);

CREATE TABLE sessions (
  id            TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL REFERENCES tenants (id),
  token_hash    TEXT NOT NULL UNIQUE,
  csrf_token    TEXT NOT NULL,
  subject_kind  TEXT NOT NULL CHECK (subject_kind IN ('api_key', 'user')),
  subject_id    TEXT NOT NULL,
  subject_name  TEXT NOT NULL,
  role          TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  created_at    INTEGER NOT NULL,
  last_seen_at  INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  revoked_at    INTEGER
);
-- herald users revoke-sessions: a user's live sessions.
CREATE INDEX sessions_subject ON sessions (subject_kind, subject_id) WHERE revoked_at IS NULL;
