/**
 * The template part of the Store contract (`store.templates`): a tenant's message templates and
 * their immutable, numbered versions. A version holds, per locale, the channel parts as saved
 * (Liquid source; e-mail HTML already compiled from MJML when the version asked for it), so
 * rendering never compiles MJML again. Versions are never updated or deleted: a notification
 * pins one at intake and a later publish moves only the template's default. Both drivers
 * implement it; test/store/templates-conformance.ts runs on each.
 */

/** One locale's channel parts, Liquid source. Every part is optional; a channel needs its own. */
export interface TemplateLocaleParts {
  email?: {
    subject: string;
    /** HTML as sent (compiled from `mjml` when the version was saved with it). */
    html?: string | null;
    /** The MJML source `html` was compiled from, kept for editing; null without MJML. */
    mjml?: string | null;
    /** Plain text; when absent, derived from the rendered HTML at intake. */
    text?: string | null;
  };
  sms?: { text: string };
  push?: { title?: string | null; body: string; data?: Record<string, string> | null };
}

export interface TemplateRecord {
  tenantId: string;
  id: string;
  name: string;
  /** The last locale of every fallback chain; every version has parts for it. */
  defaultLocale: string;
  /** The version intake uses when a request names none; null until one is published. */
  publishedVersion: number | null;
  /** The highest version number saved (0: none yet). */
  latestVersion: number;
  createdAt: number;
  updatedAt: number;
}

export interface TemplateVersionRecord {
  tenantId: string;
  templateId: string;
  version: number;
  /** Parts per locale tag (BCP 47, as saved). */
  locales: Record<string, TemplateLocaleParts>;
  createdAt: number;
}

export interface NewTemplate {
  tenantId: string;
  id: string;
  name: string;
  defaultLocale: string;
  now: number;
}

/** `store.templates`; implemented by sqlite/templates.ts and postgres/templates.ts. */
export interface TemplateStore {
  /** Creates a template without versions; null when the tenant already has one with this id. */
  create(t: NewTemplate): Promise<TemplateRecord | null>;
  get(tenantId: string, id: string): Promise<TemplateRecord | null>;
  /** A tenant's templates, by id. */
  list(tenantId: string): Promise<TemplateRecord[]>;
  /**
   * Saves the next version (latest + 1, assigned under the template row's lock so two
   * concurrent saves get two numbers) and, with `publish`, makes it the published one, in one
   * transaction. Null when there is no such template.
   */
  addVersion(
    tenantId: string,
    templateId: string,
    locales: Record<string, TemplateLocaleParts>,
    publish: boolean,
    now: number,
  ): Promise<TemplateVersionRecord | null>;
  /** Makes an existing version the published one; the template as now, or null when the template or version does not exist. */
  publish(tenantId: string, templateId: string, version: number, now: number): Promise<TemplateRecord | null>;
  getVersion(tenantId: string, templateId: string, version: number): Promise<TemplateVersionRecord | null>;
}
