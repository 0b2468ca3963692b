/**
 * The template part of the Store contract, run against every driver: templates per tenant,
 * versions numbered 1, 2, ... and never changed, publishing only an existing version, and two
 * concurrent saves getting two numbers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store, TemplateLocaleParts } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0 } from './fixtures.js';

const en: Record<string, TemplateLocaleParts> = {
  en: { email: { subject: 'Hi {{ name }}', html: '<p>Hi {{ name }}</p>', mjml: null, text: null }, sms: { text: 'Hi {{ name }}' } },
};
const pt: Record<string, TemplateLocaleParts> = {
  ...en,
  pt: { sms: { text: 'Olá {{ name }}' }, push: { title: 'Olá', body: '{{ name }}', data: { k: 'v' } } },
};

export function templatesConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`templates conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: 't_alpha', name: 'Alpha' }, T0);
      await store.ensureTenant({ id: 't_beta', name: 'Beta' }, T0);
    });
    afterEach(() => f.cleanup());

    it('creates a template once per tenant id and lists a tenant its own, by id', async () => {
      const created = await store.templates.create({ tenantId: 't_alpha', id: 'welcome', name: 'Welcome', defaultLocale: 'en', now: T0 });
      expect(created).toEqual({
        tenantId: 't_alpha',
        id: 'welcome',
        name: 'Welcome',
        defaultLocale: 'en',
        publishedVersion: null,
        latestVersion: 0,
        createdAt: T0,
        updatedAt: T0,
      });
      expect(await store.templates.create({ tenantId: 't_alpha', id: 'welcome', name: 'Other', defaultLocale: 'pt', now: T0 + SECOND })).toBeNull();
      await store.templates.create({ tenantId: 't_alpha', id: 'code', name: 'Code', defaultLocale: 'en', now: T0 });
      expect(await store.templates.create({ tenantId: 't_beta', id: 'welcome', name: 'Beta welcome', defaultLocale: 'de', now: T0 })).not.toBeNull();
      expect((await store.templates.list('t_alpha')).map((t) => t.id)).toEqual(['code', 'welcome']);
      expect((await store.templates.get('t_beta', 'welcome'))?.name).toBe('Beta welcome');
      expect(await store.templates.get('t_beta', 'code')).toBeNull();
    });

    it('numbers versions 1, 2, ..., keeps each as saved, and publishes only one that exists', async () => {
      await store.templates.create({ tenantId: 't_alpha', id: 'welcome', name: 'Welcome', defaultLocale: 'en', now: T0 });
      const v1 = await store.templates.addVersion('t_alpha', 'welcome', en, false, T0 + SECOND);
      const v2 = await store.templates.addVersion('t_alpha', 'welcome', pt, true, T0 + 2 * SECOND);
      expect([v1?.version, v2?.version]).toEqual([1, 2]);
      expect(await store.templates.getVersion('t_alpha', 'welcome', 1)).toEqual({
        tenantId: 't_alpha',
        templateId: 'welcome',
        version: 1,
        locales: en,
        createdAt: T0 + SECOND,
      });
      expect((await store.templates.getVersion('t_alpha', 'welcome', 2))?.locales).toEqual(pt);
      expect(await store.templates.get('t_alpha', 'welcome')).toMatchObject({ publishedVersion: 2, latestVersion: 2, updatedAt: T0 + 2 * SECOND });
      expect(await store.templates.publish('t_alpha', 'welcome', 1, T0 + 3 * SECOND)).toMatchObject({ publishedVersion: 1, latestVersion: 2 });
      expect(await store.templates.publish('t_alpha', 'welcome', 3, T0 + 4 * SECOND)).toBeNull();
      expect((await store.templates.get('t_alpha', 'welcome'))?.publishedVersion).toBe(1);
      // Another tenant reaches neither the template nor its versions.
      expect(await store.templates.addVersion('t_beta', 'welcome', en, true, T0)).toBeNull();
      expect(await store.templates.getVersion('t_beta', 'welcome', 1)).toBeNull();
      expect(await store.templates.publish('t_beta', 'welcome', 1, T0)).toBeNull();
      expect(await store.templates.getVersion('t_alpha', 'welcome', 3)).toBeNull();
    });

    it('gives concurrent saves distinct consecutive numbers', async () => {
      await store.templates.create({ tenantId: 't_alpha', id: 'welcome', name: 'Welcome', defaultLocale: 'en', now: T0 });
      const saved = await Promise.all(Array.from({ length: 6 }, (_, i) => store.templates.addVersion('t_alpha', 'welcome', en, i % 2 === 0, T0 + i)));
      expect(saved.map((v) => v!.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await store.templates.get('t_alpha', 'welcome'))?.latestVersion).toBe(6);
    });
  });
}
