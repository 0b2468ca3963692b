/**
 * Checking a version before it is saved: every locale tag is a valid BCP 47 tag, the template's
 * default locale is among them, every part parses as strict Liquid (an unknown filter is a
 * parse error), MJML compiles under strict validation, and each e-mail has html or text. A
 * version that fails any of these is refused whole (422 template_invalid) and nothing is stored:
 * intake never meets a template that cannot even parse.
 */
import { createRequire } from 'node:module';
import { HeraldError, type FieldError } from '../errors.js';
import type { TemplateLocaleParts } from '../store/store.js';
import { engineFor } from './liquid-engines.js';

/** One locale's parts as the API takes them: e-mail HTML either as `html` or as `mjml`. */
export interface TemplateLocaleInput {
  email?: { subject: string; html?: string; mjml?: string; text?: string };
  sms?: { text: string };
  push?: { title?: string; body: string; data?: Record<string, string> };
}

/** Every Liquid source of a locale's parts, by part name (`email.subject`, `push.data.url`, ...). */
export function partSources(p: TemplateLocaleParts): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (p.email) {
    out.push(['email.subject', p.email.subject]);
    if (p.email.html != null) out.push(['email.html', p.email.html]);
    if (p.email.text != null) out.push(['email.text', p.email.text]);
  }
  if (p.sms) out.push(['sms.text', p.sms.text]);
  if (p.push) {
    if (p.push.title != null) out.push(['push.title', p.push.title]);
    out.push(['push.body', p.push.body]);
    for (const [k, v] of Object.entries(p.push.data ?? {})) out.push([`push.data.${k}`, v]);
  }
  return out;
}

type Mjml2Html = typeof import('mjml');
let mjml2html: Mjml2Html | undefined;
/**
 * MJML, loaded on the first MJML template saved: it takes ~0.5 s to load, and most processes
 * (workers, an API without MJML templates, every test file that builds an app) never need it.
 */
function mjml(): Mjml2Html {
  return (mjml2html ??= createRequire(import.meta.url)('mjml') as Mjml2Html);
}

function compileMjml(source: string): { html: string } | { error: string } {
  try {
    // Strict: an MJML validation error refuses the save instead of sending a half-broken layout.
    // mjml@4 compiles synchronously (its bundled types describe v5's promise).
    const out = mjml()(source, { validationLevel: 'strict', keepComments: false }) as unknown as { html: string };
    return { html: out.html };
  } catch (err) {
    const errors = (err as { errors?: Array<{ line?: number; message?: string }> }).errors;
    return { error: errors?.length ? errors.map((e) => `line ${e.line}: ${e.message}`).join('; ') : (err as Error).message };
  }
}

/**
 * The parts as stored, or throws HeraldError template_invalid listing every problem (field
 * `locales.<tag>.<part>`).
 */
export function compileVersion(locales: Record<string, TemplateLocaleInput>, defaultLocale: string): Record<string, TemplateLocaleParts> {
  const problems: FieldError[] = [];
  const out: Record<string, TemplateLocaleParts> = {};
  if (!Object.keys(locales).some((tag) => tag.toLowerCase() === defaultLocale.toLowerCase())) {
    problems.push({
      field: `locales.${defaultLocale}`,
      message: `is required: ${defaultLocale} is the template's default locale, the end of every fallback chain`,
    });
  }
  for (const [tag, input] of Object.entries(locales)) {
    try {
      Intl.getCanonicalLocales(tag);
    } catch {
      problems.push({ field: `locales.${tag}`, message: 'is not a BCP 47 language tag' });
      continue;
    }
    const parts: TemplateLocaleParts = {};
    if (input.email) {
      const { subject, html, mjml, text } = input.email;
      let compiled: string | null = html ?? null;
      if (html !== undefined && mjml !== undefined) problems.push({ field: `locales.${tag}.email.mjml`, message: 'and html are exclusive: give one' });
      else if (mjml !== undefined) {
        const r = compileMjml(mjml);
        if ('error' in r) problems.push({ field: `locales.${tag}.email.mjml`, message: `does not compile: ${r.error}` });
        else compiled = r.html;
      }
      if (compiled === null && text === undefined && mjml === undefined) problems.push({ field: `locales.${tag}.email`, message: 'needs html, mjml or text' });
      parts.email = { subject, html: compiled, mjml: mjml ?? null, text: text ?? null };
    }
    if (input.sms) parts.sms = { text: input.sms.text };
    if (input.push) parts.push = { title: input.push.title ?? null, body: input.push.body, data: input.push.data ?? null };
    if (!parts.email && !parts.sms && !parts.push) problems.push({ field: `locales.${tag}`, message: 'has no part for any channel' });
    const engine = engineFor(tag);
    for (const [name, source] of partSources(parts)) {
      try {
        engine.parse(source);
      } catch (err) {
        problems.push({ field: `locales.${tag}.${name}`, message: `is not valid Liquid: ${(err as Error).message}` });
      }
    }
    out[tag] = parts;
  }
  if (problems.length > 0) {
    throw new HeraldError('template_invalid', `the version cannot be saved: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`, problems);
  }
  return out;
}
