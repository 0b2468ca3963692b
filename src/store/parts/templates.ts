/** `store.templates`, written once for both drivers (see ../template-store.ts). */
import { type Executor, count, one } from '../sql-executor.js';
import type { NewTemplate, TemplateLocaleParts, TemplateRecord, TemplateStore, TemplateVersionRecord } from '../template-store.js';
import { toTemplate, toTemplateVersion } from '../template-rows.js';

/** Message templates and their immutable versions. */
export class TemplatesPart implements TemplateStore {
  constructor(private readonly x: Executor) {}

  async create(t: NewTemplate): Promise<TemplateRecord | null> {
    const row = await this.x.one('template_insert', { tenant_id: t.tenantId, id: t.id, name: t.name, default_locale: t.defaultLocale, now: t.now });
    return row ? toTemplate(row) : null;
  }

  async get(tenantId: string, id: string): Promise<TemplateRecord | null> {
    const row = await this.x.one('template_get', { tenant_id: tenantId, id });
    return row ? toTemplate(row) : null;
  }

  async list(tenantId: string): Promise<TemplateRecord[]> {
    return (await this.x.all('template_list', { tenant_id: tenantId })).map(toTemplate);
  }

  addVersion(
    tenantId: string,
    templateId: string,
    locales: Record<string, TemplateLocaleParts>,
    publish: boolean,
    now: number,
  ): Promise<TemplateVersionRecord | null> {
    // The counter is read and bumped under a lock (SQLite's write lock from BEGIN IMMEDIATE;
    // PostgreSQL's row lock from the UPDATE until COMMIT), so two saves get two numbers.
    return this.x.transaction(function* () {
      const next = yield* one('template_next_version', { tenant_id: tenantId, id: templateId, now });
      if (!next) return null;
      const version = Number(next.latest_version);
      yield* count('template_version_insert', { tenant_id: tenantId, template_id: templateId, version, locales_json: JSON.stringify(locales), now });
      if (publish) yield* count('template_publish', { tenant_id: tenantId, id: templateId, version, now });
      return { tenantId, templateId, version, locales, createdAt: now };
    });
  }

  async publish(tenantId: string, templateId: string, version: number, now: number): Promise<TemplateRecord | null> {
    const row = await this.x.one('template_publish', { tenant_id: tenantId, id: templateId, version, now });
    return row ? toTemplate(row) : null;
  }

  async getVersion(tenantId: string, templateId: string, version: number): Promise<TemplateVersionRecord | null> {
    const row = await this.x.one('template_version_get', { tenant_id: tenantId, template_id: templateId, version });
    return row ? toTemplateVersion(row) : null;
  }
}
