/** The PostgreSQL driver's template part (see src/store/template-store.ts). */
import type { NewTemplate, TemplateLocaleParts, TemplateRecord, TemplateStore, TemplateVersionRecord } from '../template-store.js';
import { toTemplate, toTemplateVersion } from '../template-rows.js';
import type { PostgresContext } from './sql-context.js';

/** `store.templates` of the PostgreSQL store. */
export class PostgresTemplates implements TemplateStore {
  constructor(private readonly sql: PostgresContext) {}

  async create(t: NewTemplate): Promise<TemplateRecord | null> {
    const [row] = await this.sql.q('template_insert', [t.tenantId, t.id, t.name, t.defaultLocale, t.now]);
    return row ? toTemplate(row) : null;
  }

  async get(tenantId: string, id: string): Promise<TemplateRecord | null> {
    const [row] = await this.sql.q('template_get', [tenantId, id]);
    return row ? toTemplate(row) : null;
  }

  async list(tenantId: string): Promise<TemplateRecord[]> {
    return (await this.sql.q('template_list', [tenantId])).map(toTemplate);
  }

  async addVersion(
    tenantId: string,
    templateId: string,
    locales: Record<string, TemplateLocaleParts>,
    publish: boolean,
    now: number,
  ): Promise<TemplateVersionRecord | null> {
    return this.sql.tx(async (c) => {
      // The UPDATE locks the template row until COMMIT: a concurrent save waits and takes the next number.
      const [next] = await this.sql.q('template_next_version', [tenantId, templateId, now], c);
      if (!next) return null;
      const version = Number(next.latest_version);
      await this.sql.q('template_version_insert', [tenantId, templateId, version, JSON.stringify(locales), now], c);
      if (publish) await this.sql.q('template_publish', [tenantId, templateId, version, now], c);
      return { tenantId, templateId, version, locales, createdAt: now };
    });
  }

  async publish(tenantId: string, templateId: string, version: number, now: number): Promise<TemplateRecord | null> {
    const [row] = await this.sql.q('template_publish', [tenantId, templateId, version, now]);
    return row ? toTemplate(row) : null;
  }

  async getVersion(tenantId: string, templateId: string, version: number): Promise<TemplateVersionRecord | null> {
    const [row] = await this.sql.q('template_version_get', [tenantId, templateId, version]);
    return row ? toTemplateVersion(row) : null;
  }
}
