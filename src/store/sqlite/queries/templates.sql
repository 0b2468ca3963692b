-- name: template_insert
-- A template the tenant does not have yet (no row when it does).
-- params: @tenant_id, @id, @name, @default_locale, @now
INSERT INTO templates (tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at)
VALUES (@tenant_id, @id, @name, @default_locale, NULL, 0, @now, @now)
ON CONFLICT (tenant_id, id) DO NOTHING
RETURNING tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at;

-- name: template_get
-- params: @tenant_id, @id
SELECT tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at
FROM templates WHERE tenant_id = @tenant_id AND id = @id;

-- name: template_list
-- params: @tenant_id
SELECT tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at
FROM templates WHERE tenant_id = @tenant_id ORDER BY id;

-- name: template_next_version
-- Takes the next version number (the caller's transaction holds the write lock); no row without the template.
-- params: @tenant_id, @id, @now
UPDATE templates SET latest_version = latest_version + 1, updated_at = @now
WHERE tenant_id = @tenant_id AND id = @id
RETURNING latest_version;

-- name: template_version_insert
-- params: @tenant_id, @template_id, @version, @locales_json, @now
INSERT INTO template_versions (tenant_id, template_id, version, locales_json, created_at)
VALUES (@tenant_id, @template_id, @version, @locales_json, @now);

-- name: template_publish
-- Only a version that exists; no row otherwise.
-- params: @tenant_id, @id, @version, @now
UPDATE templates SET published_version = @version, updated_at = @now
WHERE tenant_id = @tenant_id AND id = @id
  AND EXISTS (SELECT 1 FROM template_versions v WHERE v.tenant_id = @tenant_id AND v.template_id = @id AND v.version = @version)
RETURNING tenant_id, id, name, default_locale, published_version, latest_version, created_at, updated_at;

-- name: template_version_get
-- params: @tenant_id, @template_id, @version
SELECT tenant_id, template_id, version, locales_json, created_at
FROM template_versions WHERE tenant_id = @tenant_id AND template_id = @template_id AND version = @version;
