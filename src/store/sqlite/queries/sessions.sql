-- name: sessions_sign_in_key
-- params: @key_hash
SELECT id, tenant_id, label FROM api_keys WHERE key_hash = @key_hash AND revoked_at IS NULL;

-- name: users_insert
-- Nothing is written when the username is taken.
-- params: @id, @tenant_id, @username, @password_hash, @role, @now
INSERT INTO users (id, tenant_id, username, password_hash, role, created_at)
VALUES (@id, @tenant_id, @username, @password_hash, @role, @now)
ON CONFLICT (username) DO NOTHING;

-- name: users_find
-- params: @username
SELECT id, tenant_id, username, password_hash, role, created_at FROM users WHERE username = @username;

-- name: users_list
-- params: none
SELECT id, tenant_id, username, password_hash, role, created_at FROM users ORDER BY username;

-- name: sessions_insert
-- params: @id, @tenant_id, @token_hash, @csrf_token, @subject_kind, @subject_id, @subject_name, @role, @now, @expires_at
INSERT INTO sessions (id, tenant_id, token_hash, csrf_token, subject_kind, subject_id, subject_name, role, created_at, last_seen_at, expires_at)
VALUES (@id, @tenant_id, @token_hash, @csrf_token, @subject_kind, @subject_id, @subject_name, @role, @now, @now, @expires_at);

-- name: sessions_find_live
-- A key's session ends with its key: revoking the key revokes what was signed in with it.
-- params: @token_hash, @now, @idle_since
SELECT s.id, s.tenant_id, s.csrf_token, s.subject_kind, s.subject_id, s.subject_name, s.role, s.created_at, s.last_seen_at, s.expires_at
FROM sessions s
WHERE s.token_hash = @token_hash AND s.revoked_at IS NULL AND s.expires_at > @now AND s.last_seen_at > @idle_since
  AND (s.subject_kind <> 'api_key' OR EXISTS (SELECT 1 FROM api_keys k WHERE k.id = s.subject_id AND k.revoked_at IS NULL));

-- name: sessions_touch
-- params: @id, @now
UPDATE sessions SET last_seen_at = @now WHERE id = @id AND last_seen_at < @now;

-- name: sessions_revoke
-- params: @id, @now
UPDATE sessions SET revoked_at = @now WHERE id = @id AND revoked_at IS NULL;

-- name: sessions_revoke_user
-- params: @user_id, @now
UPDATE sessions SET revoked_at = @now WHERE subject_kind = 'user' AND subject_id = @user_id AND revoked_at IS NULL;
