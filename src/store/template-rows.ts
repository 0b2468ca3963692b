/** Row mapping shared by both drivers' template parts. */
import type { TemplateLocaleParts, TemplateRecord, TemplateVersionRecord } from './template-store.js';
import { json, num, numOrNull, str, type Row } from './rows.js';

/** A `templates` row as the contract's record. */
export function toTemplate(r: Row): TemplateRecord {
  return {
    tenantId: str(r.tenant_id),
    id: str(r.id),
    name: str(r.name),
    defaultLocale: str(r.default_locale),
    publishedVersion: numOrNull(r.published_version),
    latestVersion: num(r.latest_version),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** A `template_versions` row as the contract's record. */
export function toTemplateVersion(r: Row): TemplateVersionRecord {
  return {
    tenantId: str(r.tenant_id),
    templateId: str(r.template_id),
    version: num(r.version),
    locales: json<Record<string, TemplateLocaleParts>>(r.locales_json),
    createdAt: num(r.created_at),
  };
}
