/** The SQLite driver's template part (see src/store/template-store.ts). */
import type { NewTemplate, TemplateLocaleParts, TemplateRecord, TemplateStore, TemplateVersionRecord } from '../template-store.js';
import { toTemplate, toTemplateVersion } from '../template-rows.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.templates` of the SQLite store. */
export class SqliteTemplates implements TemplateStore {
  constructor(private readonly sql: SqliteContext) {}

  async create(t: NewTemplate): Promise<TemplateRecord | null> {
    const row = this.sql.stmt('template_insert').get({ tenant_id: t.tenantId, id: t.id, name: t.name, default_locale: t.defaultLocale, now: t.now }) as
      Row | undefined;
    return row ? toTemplate(row) : null;
  }

  async get(tenantId: string, id: string): Promise<TemplateRecord | null> {
    const row = this.sql.stmt('template_get').get({ tenant_id: tenantId, id }) as Row | undefined;
    return row ? toTemplate(row) : null;
  }

  async list(tenantId: string): Promise<TemplateRecord[]> {
    return (this.sql.stmt('template_list').all({ tenant_id: tenantId }) as Row[]).map(toTemplate);
  }

  async addVersion(
    tenantId: string,
    templateId: string,
    locales: Record<string, TemplateLocaleParts>,
    publish: boolean,
    now: number,
  ): Promise<TemplateVersionRecord | null> {
    // BEGIN IMMEDIATE: the counter is read and bumped under the write lock, so two saves get two numbers.
    return this.sql.write(() => {
      const next = this.sql.stmt('template_next_version').get({ tenant_id: tenantId, id: templateId, now }) as Row | undefined;
      if (!next) return null;
      const version = Number(next.latest_version);
      this.sql.stmt('template_version_insert').run({ tenant_id: tenantId, template_id: templateId, version, locales_json: JSON.stringify(locales), now });
      if (publish) this.sql.stmt('template_publish').get({ tenant_id: tenantId, id: templateId, version, now });
      return { tenantId, templateId, version, locales, createdAt: now };
    });
  }

  async publish(tenantId: string, templateId: string, version: number, now: number): Promise<TemplateRecord | null> {
    const row = this.sql.stmt('template_publish').get({ tenant_id: tenantId, id: templateId, version, now }) as Row | undefined;
    return row ? toTemplate(row) : null;
  }

  async getVersion(tenantId: string, templateId: string, version: number): Promise<TemplateVersionRecord | null> {
    const row = this.sql.stmt('template_version_get').get({ tenant_id: tenantId, template_id: templateId, version }) as Row | undefined;
    return row ? toTemplateVersion(row) : null;
  }
}
