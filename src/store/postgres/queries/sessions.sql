-- name: sessions_sign_in_key
-- params: $1 key_hash
SELECT id, tenant_id, label FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL;

-- name: users_insert
-- Nothing is written when the username is taken.
-- params: $1 id, $2 tenant_id, $3 username, $4 password_hash, $5 role, $6 now
INSERT INTO users (id, tenant_id, username, password_hash, role, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (username) DO NOTHING;

-- name: users_find
-- params: $1 username
SELECT id, tenant_id, username, password_hash, role, created_at FROM users WHERE username = $1;

-- name: users_list
-- params: none
SELECT id, tenant_id, username, password_hash, role, created_at FROM users ORDER BY username;

-- name: sessions_insert
-- params: $1 id, $2 tenant_id, $3 token_hash, $4 csrf_token, $5 subject_kind, $6 subject_id, $7 subject_name, $8 role, $9 now, $10 expires_at
INSERT INTO sessions (id, tenant_id, token_hash, csrf_token, subject_kind, subject_id, subject_name, role, created_at, last_seen_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10);

-- name: sessions_find_live
-- A key's session ends with its key: revoking the key revokes what was signed in with it.
-- params: $1 token_hash, $2 now, $3 idle_since
SELECT s.id, s.tenant_id, s.csrf_token, s.subject_kind, s.subject_id, s.subject_name, s.role, s.created_at, s.last_seen_at, s.expires_at
FROM sessions s
WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND s.last_seen_at > $3
  AND (s.subject_kind <> 'api_key' OR EXISTS (SELECT 1 FROM api_keys k WHERE k.id = s.subject_id AND k.revoked_at IS NULL));

-- name: sessions_touch
-- params: $1 id, $2 now
UPDATE sessions SET last_seen_at = $2 WHERE id = $1 AND last_seen_at < $2;

-- name: sessions_revoke
-- params: $1 id, $2 now
UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL;

-- name: sessions_revoke_user
-- params: $1 user_id, $2 now
UPDATE sessions SET revoked_at = $2 WHERE subject_kind = 'user' AND subject_id = $1 AND revoked_at IS NULL;
