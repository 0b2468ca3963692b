-- 0015_templates: message templates (src/store/template-store.ts). A template is a tenant's named
-- message; each save is a new immutable row of template_versions numbered 1, 2, ... from the
-- template's latest_version counter (bumped under the template row's lock). published_version is
-- the version intake uses when a request names none. Versions are never updated or deleted, so a
-- notification that pinned one can always be explained.
CREATE TABLE templates (
  tenant_id          TEXT NOT NULL REFERENCES tenants(id),
  id                 TEXT NOT NULL,
  name               TEXT NOT NULL,
  default_locale     TEXT NOT NULL,
  published_version  INTEGER,
  latest_version     INTEGER NOT NULL DEFAULT 0,
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE TABLE template_versions (
  tenant_id     TEXT NOT NULL,
  template_id   TEXT NOT NULL,
  version       INTEGER NOT NULL CHECK (version >= 1),
  -- Parts per locale, JSON ({"en": {"email": {...}, "sms": {...}, "push": {...}}}), Liquid source.
  locales_json  TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, template_id, version),
  FOREIGN KEY (tenant_id, template_id) REFERENCES templates (tenant_id, id)
);
