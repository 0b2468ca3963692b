/**
 * The rendering rules without a server: the locale fallback chain, the Intl filters by locale,
 * strict variables and filters, the derived e-mail text, the inputs hash, the per-version parse
 * cache, and each channel sending its own part of the stored content.
 */
import { describe, expect, it } from 'vitest';
import { contentForChannel } from '../../src/domain/index.js';
import type { Store, TemplateRecord, TemplateVersionRecord } from '../../src/store/store.js';
import { compileVersion } from '../../src/templates/template-compiler.js';
import { localeChain, resolveLocale } from '../../src/templates/locale-chain.js';
import { templateInputsHash, TemplateRenderer } from '../../src/templates/template-renderer.js';

const template: TemplateRecord = {
  tenantId: 't',
  id: 'tpl',
  name: 'T',
  defaultLocale: 'en',
  publishedVersion: 1,
  latestVersion: 1,
  createdAt: 0,
  updatedAt: 0,
};
const version = (locales: TemplateVersionRecord['locales'], v = 1): TemplateVersionRecord => ({
  tenantId: 't',
  templateId: 'tpl',
  version: v,
  locales,
  createdAt: 0,
});
// Rendering a pinned version reads nothing from the store.
const renderer = () => new TemplateRenderer({} as Store);

describe('locale chain', () => {
  it('goes from the most specific tag to the default, without repeats, matching case-insensitively', () => {
    expect(localeChain('pt-BR', 'en')).toEqual(['pt-BR', 'pt', 'en']);
    expect(localeChain('zh-Hant-TW', 'zh')).toEqual(['zh-Hant-TW', 'zh-Hant', 'zh']);
    expect(localeChain(null, 'en')).toEqual(['en']);
    expect(localeChain('EN-gb', 'en')).toEqual(['EN-gb', 'EN']);
    expect(resolveLocale(['pt-BR', 'pt', 'en'], ['en', 'PT'])).toBe('PT');
    expect(resolveLocale(['pt-BR', 'pt', 'en'], ['en', 'pt'], (t) => t === 'en')).toBe('en');
    expect(resolveLocale(['de'], ['en'])).toBeNull();
  });
});

describe('strict rendering', () => {
  const v = version(
    compileVersion(
      {
        en: {
          sms: {
            text: '{{ n | number }} / {{ total | currency: "USD" }} / {{ r | percent }} / {{ at | localdate: "long" }} / {{ n | plural: one: "# file", other: "# files" }}',
          },
        },
        de: {
          sms: {
            text: '{{ n | number }} / {{ total | currency: "EUR" }} / {{ at | localdate: "long" }} / {{ n | plural: one: "# Datei", other: "# Dateien" }}',
          },
        },
        ru: { sms: { text: '{{ n | plural: one: "# файл", few: "# файла", many: "# файлов", other: "# файла" }}' } },
        fr: { email: { subject: 'Bonjour {{ name }}', html: '<h1>Bonjour {{ name }}</h1><p>Voir <a href="https://x.example/{{ id }}">le lien</a></p>' } },
      },
      'en',
    ),
  );
  const data = { n: 1234, total: 1234.5, r: 0.25, at: '2026-12-01T10:00:00Z', name: 'Zoé', id: '7' };

  it('formats numbers, currencies, dates and plurals by locale through Intl', () => {
    const r = renderer();
    expect(r.render({ template, version: v }, { id: 'tpl', data }, 'en-US', ['sms']).parts.sms!.text).toBe(
      '1,234 / $1,234.50 / 25% / December 1, 2026 / 1,234 files',
    );
    expect(r.render({ template, version: v }, { id: 'tpl', data }, 'de-AT', ['sms']).parts.sms!.text).toBe(
      '1.234 / 1.234,50\u00a0€ / 1. Dezember 2026 / 1.234 Dateien',
    );
    expect(r.render({ template, version: v }, { id: 'tpl', data: { n: 3 } }, 'ru', ['sms']).parts.sms!.text).toBe('3 файла');
    expect(r.render({ template, version: v }, { id: 'tpl', data: { n: 5 } }, 'ru', ['sms']).parts.sms!.text).toBe('5 файлов');
    expect(r.render({ template, version: v }, { id: 'tpl', data: { ...data, n: 1 } }, 'en', ['sms']).parts.sms!.text).toMatch(/ 1 file$/);
  });

  it('refuses an undefined variable and a value a filter cannot format, naming template, version, locale and part', () => {
    const r = renderer();
    expect(() => r.render({ template, version: v }, { id: 'tpl', data: {} }, 'en', ['sms'])).toThrow(
      /template tpl version 1 \(locale en\) sms.text: undefined variable: n/,
    );
    expect(() => r.render({ template, version: v }, { id: 'tpl', data: { ...data, at: 'yesterday' } }, 'en', ['sms'])).toThrow(/not a date/);
    expect(() => compileVersion({ en: { sms: { text: '{{ n | nonsense }}' } } }, 'en')).toThrow(/undefined filter: nonsense/);
  });

  it('derives the e-mail text from the HTML and falls back to the default locale for a channel the chain lacks', () => {
    const r = renderer();
    const fr = r.render({ template, version: v }, { id: 'tpl', data }, 'fr-CA', ['email']);
    expect(fr.locale).toBe('fr');
    expect(fr.parts.email!.text).toContain('Voir le lien [https://x.example/7]');
    // fr has no SMS part: the chain goes on to en. No locale has push: reported against fr, the locale the chain chose.
    expect(r.render({ template, version: v }, { id: 'tpl', data }, 'fr-CA', ['sms']).locale).toBe('en');
    expect(() => r.render({ template, version: v }, { id: 'tpl', data }, 'fr', ['push'])).toThrow(/template tpl version 1 \(locale fr\) has no push part/);
  });

  it('hashes the inputs: the same inputs the same hash, any change another', () => {
    const a = templateInputsHash('tpl', 1, 'en', { b: 1, a: [1, 2] });
    expect(a).toBe(templateInputsHash('tpl', 1, 'en', { a: [1, 2], b: 1 }));
    expect(a).not.toBe(templateInputsHash('tpl', 2, 'en', { a: [1, 2], b: 1 }));
    expect(a).not.toBe(templateInputsHash('tpl', 1, 'pt', { a: [1, 2], b: 1 }));
    expect(a).not.toBe(templateInputsHash('tpl', 1, 'en', { a: [1, 2], b: 2 }));
  });

  it('caches parsed parts per version: another version with other source renders its own', () => {
    const r = renderer();
    const v1 = version({ en: { sms: { text: 'one {{ x }}' } } }, 1);
    const v2 = version({ en: { sms: { text: 'two {{ x }}' } } }, 2);
    expect(r.render({ template, version: v1 }, { id: 'tpl', data: { x: 1 } }, 'en', ['sms']).parts.sms!.text).toBe('one 1');
    expect(r.render({ template, version: v2 }, { id: 'tpl', data: { x: 1 } }, 'en', ['sms']).parts.sms!.text).toBe('two 1');
    // The cache key is the version: version 1 is not re-read (an edited record of it would not be seen).
    const edited = version({ en: { sms: { text: 'edited {{ x }}' } } }, 1);
    expect(r.render({ template, version: edited }, { id: 'tpl', data: { x: 2 } }, 'en', ['sms']).parts.sms!.text).toBe('one 2');
  });
});

describe('contentForChannel', () => {
  it('sends each channel its own rendered part, e-mail the top-level fields', () => {
    const content = {
      subject: 'S',
      text: 'email text',
      html: '<p>x</p>',
      channels: { sms: { text: 'sms text' }, push: { subject: 'title', text: 'body', data: { k: 'v' } } },
    };
    expect(contentForChannel(content, 'email')).toBe(content);
    expect(contentForChannel(content, 'sms')).toMatchObject({ text: 'sms text', html: null });
    expect(contentForChannel(content, 'push')).toMatchObject({ subject: 'title', text: 'body', html: null });
    expect(contentForChannel({ text: 'plain' }, 'sms')).toEqual({ text: 'plain' });
  });
});
