/**
 * Rendering a pinned template version for one recipient: the locale from the fallback chain,
 * each requested channel's parts through strict Liquid, a missing e-mail text derived from the
 * rendered HTML, the rendered parts checked against their channel's limits, and a SHA-256 of
 * the inputs (template, version, locale, data) recorded with the message. Parsed parts are
 * cached per (tenant, template, version, locale): versions never change, so an entry never
 * goes stale, and the cache is bounded (least recently used out).
 */
import { createHash } from 'node:crypto';
import { convert } from 'html-to-text';
import type { Template } from 'liquidjs';
import { smsSegments, type Channel } from '../domain/index.js';
import { HeraldError } from '../errors.js';
import type { Store, TemplateLocaleParts, TemplateRecord, TemplateVersionRecord } from '../store/store.js';
import { partSources } from './template-compiler.js';
import { engineFor } from './liquid-engines.js';
import { localeChain, resolveLocale } from './locale-chain.js';

/** A request's template reference, as intake and campaigns take it. */
export interface TemplateRef {
  id: string;
  version?: number;
  locale?: string;
  data?: Record<string, unknown>;
}

/** A template and the version a message pinned. */
export interface PinnedVersion {
  template: TemplateRecord;
  version: TemplateVersionRecord;
}

/** What a channel sends, rendered. */
export interface RenderedParts {
  email?: { subject: string; html: string | null; text: string };
  sms?: { text: string };
  push?: { title: string | null; body: string; data: Record<string, string> | null };
}

export interface RenderedTemplate {
  templateId: string;
  version: number;
  locale: string;
  parts: RenderedParts;
  /** sha256 (hex) of the canonical JSON of template id, version, locale and data. */
  inputsHash: string;
}

/**
 * Channel limits for rendered parts. SMS: 10 segments (1,530 GSM-7 characters), the
 * concatenation most carriers deliver reliably and Twilio's recommended maximum. Push: 4,096
 * bytes of title, body and data as JSON, the payload both APNs and FCM accept.
 */
export const TEMPLATE_LIMITS = { smsSegments: 10, pushPayloadBytes: 4096 } as const;

const CACHE_ENTRIES = 500;

/** JSON with object keys sorted recursively (the same canonical form intake fingerprints with). */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** The SHA-256 recorded with a rendered message: equal inputs, equal hash. */
export function templateInputsHash(templateId: string, version: number, locale: string, data: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonical({ template: templateId, version, locale, data }))
    .digest('hex');
}

const where = (v: TemplateVersionRecord, locale: string) => `template ${v.templateId} version ${v.version} (locale ${locale})`;

export class TemplateRenderer {
  private readonly parsed = new Map<string, Map<string, Template[]>>();

  constructor(private readonly store: Store) {}

  /**
   * The version a reference names (or the published one), or throws 422 template_unknown /
   * template_not_published.
   */
  async pin(tenantId: string, ref: TemplateRef): Promise<PinnedVersion> {
    const template = await this.store.templates.get(tenantId, ref.id);
    if (!template)
      throw new HeraldError('template_unknown', `there is no template ${ref.id}`, [{ field: 'template.id', message: 'names no template of this tenant' }]);
    const number = ref.version ?? template.publishedVersion;
    if (number === null) {
      throw new HeraldError('template_not_published', `template ${ref.id} has no published version; publish one or name a version`, [
        { field: 'template.version', message: 'is required while the template has no published version' },
      ]);
    }
    const version = await this.store.templates.getVersion(tenantId, ref.id, number);
    if (!version)
      throw new HeraldError('template_unknown', `template ${ref.id} has no version ${number}`, [
        { field: 'template.version', message: `names no version of ${ref.id}` },
      ]);
    return { template, version };
  }

  /**
   * Renders the channels of a pinned version for a locale (the reference's, else the
   * recipient's) synchronously, so campaign fan-out can render inside its batch. Throws a 422
   * naming template, version, locale and part for a missing part, a render error or a limit.
   */
  render(pinned: PinnedVersion, ref: TemplateRef, recipientLocale: string | null | undefined, channels: readonly Channel[]): RenderedTemplate {
    const { version } = pinned;
    const locale = this.localeFor(pinned, ref.locale ?? recipientLocale, channels);
    const parts = version.locales[locale]!;
    for (const c of channels) {
      if (parts[c] === undefined) {
        throw new HeraldError('template_part_missing', `${where(version, locale)} has no ${c} part`, [
          { field: 'channels', message: `${c} has no part in ${where(version, locale)}` },
        ]);
      }
    }
    const data = ref.data ?? {};
    const rendered = this.renderParts(version, locale, parts, data, channels);
    const out: RenderedParts = {};
    if (channels.includes('email')) {
      const html = rendered.get('email.html') ?? null;
      // Derived text: links kept as "text [url]", no hard wrap (the mail client wraps).
      const text = rendered.get('email.text') ?? convert(html ?? '', { wordwrap: false });
      out.email = { subject: rendered.get('email.subject')!, html, text };
    }
    if (channels.includes('sms')) out.sms = { text: rendered.get('sms.text')! };
    if (channels.includes('push')) {
      const dataKeys = Object.keys(parts.push?.data ?? {});
      out.push = {
        title: rendered.get('push.title') ?? null,
        body: rendered.get('push.body')!,
        data: parts.push?.data ? Object.fromEntries(dataKeys.map((k) => [k, rendered.get(`push.data.${k}`)!])) : null,
      };
    }
    checkLimits(version, locale, out);
    return {
      templateId: version.templateId,
      version: version.version,
      locale,
      parts: out,
      inputsHash: templateInputsHash(version.templateId, version.version, locale, data),
    };
  }

  /**
   * The locale a message renders in: the first of the chain (requested or recipient's, its
   * shorter tags, the default) with a part for every channel; else the first the version has
   * at all, so a missing channel is reported against the locale the message would have used.
   */
  localeFor(pinned: PinnedVersion, requested: string | null | undefined, channels: readonly Channel[]): string {
    const { template, version } = pinned;
    const chain = localeChain(requested, template.defaultLocale);
    const available = Object.keys(version.locales);
    const has = (tag: string) => channels.every((c) => version.locales[tag]?.[c] !== undefined);
    // The default locale is in every version (checked at save), so the last resort always resolves.
    return resolveLocale(chain, available, has) ?? resolveLocale(chain, available) ?? available[0]!;
  }

  private renderParts(
    version: TemplateVersionRecord,
    locale: string,
    parts: TemplateLocaleParts,
    data: Record<string, unknown>,
    channels: readonly Channel[],
  ): Map<string, string> {
    const engine = engineFor(locale);
    const parsed = this.parsedParts(version, locale, parts);
    const out = new Map<string, string>();
    for (const [name, tpl] of parsed) {
      // Only the requested channels' parts: an SMS needs no variable only the e-mail uses.
      if (!channels.includes(name.slice(0, name.indexOf('.')) as Channel)) continue;
      try {
        out.set(name, engine.renderSync(tpl, data) as string);
      } catch (err) {
        const message = (err as Error).message;
        throw new HeraldError(
          'template_render_failed',
          `${where(version, locale)} ${name}: ${message}`,
          [{ field: `template.data`, message: `${name}: ${message}` }],
          { cause: err },
        );
      }
    }
    return out;
  }

  private parsedParts(version: TemplateVersionRecord, locale: string, parts: TemplateLocaleParts): Map<string, Template[]> {
    const key = `${version.tenantId}\u0000${version.templateId}\u0000${version.version}\u0000${locale}`;
    const hit = this.parsed.get(key);
    if (hit) {
      // Re-insert: Map keeps insertion order, so the first key is the least recently used.
      this.parsed.delete(key);
      this.parsed.set(key, hit);
      return hit;
    }
    const engine = engineFor(locale);
    const entry = new Map(partSources(parts).map(([name, source]) => [name, engine.parse(source)] as const));
    this.parsed.set(key, entry);
    if (this.parsed.size > CACHE_ENTRIES) this.parsed.delete(this.parsed.keys().next().value!);
    return entry;
  }
}

function tooLarge(version: TemplateVersionRecord, locale: string, part: string, message: string): HeraldError {
  return new HeraldError('template_content_too_large', `${where(version, locale)} ${part} ${message}`, [
    { field: `template.${part}`, message: `${message} (${where(version, locale)})` },
  ]);
}

/** The channel limits a rendered message must fit; e-mail HTML is checked against its account's max_html_bytes by intake. */
function checkLimits(version: TemplateVersionRecord, locale: string, parts: RenderedParts): void {
  if (parts.sms) {
    const { segments } = smsSegments(parts.sms.text);
    if (segments > TEMPLATE_LIMITS.smsSegments)
      throw tooLarge(version, locale, 'sms.text', `renders to ${segments} SMS segments; at most ${TEMPLATE_LIMITS.smsSegments}`);
  }
  if (parts.push) {
    const bytes = Buffer.byteLength(JSON.stringify(parts.push), 'utf8');
    if (bytes > TEMPLATE_LIMITS.pushPayloadBytes)
      throw tooLarge(version, locale, 'push', `renders to a ${bytes}-byte payload; at most ${TEMPLATE_LIMITS.pushPayloadBytes}`);
  }
  if (parts.email && parts.email.subject.length > 998)
    throw tooLarge(version, locale, 'email.subject', `renders to ${parts.email.subject.length} characters; at most 998 (RFC 5322)`);
  for (const [part, value] of [
    ['email.subject', parts.email?.subject],
    ['email.text', parts.email?.text],
    ['sms.text', parts.sms?.text],
    ['push.body', parts.push?.body],
  ] as const) {
    if (value !== undefined && value.trim() === '') {
      throw new HeraldError('template_render_failed', `${where(version, locale)} ${part} renders to an empty string`, [
        { field: 'template.data', message: `${part} renders to an empty string` },
      ]);
    }
  }
}
