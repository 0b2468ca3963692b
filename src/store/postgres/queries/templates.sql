-- name: template_insert
-- A template the tenant does not have yet (no row when it does).
-- params: $1 tenant_id, $2 id, $3 name, $4 default_locale, $5 now
INSERT INTO templates (tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at)
VALUES ($1, $2, $3, $4, NULL, 0, $5, $5)
ON CONFLICT (tenant_id, id) DO NOTHING
RETURNING tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at;

-- name: template_get
-- params: $1 tenant_id, $2 id
SELECT tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at
FROM templates WHERE tenant_id = $1 AND id = $2;

-- name: template_list
-- params: $1 tenant_id
SELECT tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at
FROM templates WHERE tenant_id = $1 ORDER BY id;

-- name: template_next_version
-- Takes the next version number; the UPDATE's row lock holds a concurrent save until this transaction ends.
-- params: $1 tenant_id, $2 id, $3 now
UPDATE templates SET latest_version = latest_version + 1, updated_at = $3
WHERE tenant_id = $1 AND id = $2
RETURNING latest_version;

-- name: template_version_insert
-- params: $1 tenant_id, $2 template_id, $3 version, $4 locales_json, $5 now
INSERT INTO template_versions (tenant_id, template_id, version, locales_json, created_at)
VALUES ($1, $2, $3, $4, $5);

-- name: template_publish
-- Only a version that exists; no row otherwise.
-- params: $1 tenant_id, $2 id, $3 version, $4 now
UPDATE templates SET published_version = $3, updated_at = $4
WHERE tenant_id = $1 AND id = $2
  AND EXISTS (SELECT 1 FROM template_versions v WHERE v.tenant_id = $1 AND v.template_id = $2 AND v.version = $3)
RETURNING tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at;

-- name: template_version_get
-- params: $1 tenant_id, $2 template_id, $3 version
SELECT tenant_id, template_id, version, locales_json, created_at
FROM template_versions WHERE tenant_id = $1 AND template_id = $2 AND version = $3;
