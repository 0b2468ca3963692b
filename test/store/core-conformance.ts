/**
 * The core of the Store contract (`parts/core.ts`): a second instance migrating the same database,
 * tenants and API keys. Part of the Store conformance suite (`conformance.ts`), run against every
 * driver.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { ACCOUNT, OTHER_TENANT, TENANT, useStoreFixture } from './core-support.js';
import { SECOND, T0, seedDeliveries } from './fixtures.js';

/** Runs this part of the contract against one driver. */
export function coreConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${name}`, () => {
    const fx = useStoreFixture(name, makeStore);
    let store: Store;
    beforeEach(() => {
      store = fx.store;
    });
    const peer = fx.peer;

    describe('migrations', () => {
      it('applies nothing the second time', async () => {
        expect(await store.migrate()).toEqual([]);
      });

      it('lets a second instance on the same database migrate and share the data', async () => {
        const other = await peer();
        expect(await other.migrate()).toEqual([]);
        const [id] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
        expect((await other.getDelivery(id!))?.state).toBe('ready');
      });
    });

    describe('tenants and API keys', () => {
      it('ensureTenant is idempotent', async () => {
        await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0 + SECOND);
        await store.ensureTenant({ id: TENANT, name: 'Alpha renamed' }, T0 + 2 * SECOND);
        await store.createApiKey({ id: 'key_1', tenantId: TENANT, keyHash: 'h1', label: 'live', now: T0 });
        expect(await store.findApiKey('h1')).toMatchObject({ id: 'key_1', tenantId: TENANT });
      });

      it('hasApiKeys is false until a key exists', async () => {
        expect(await store.hasApiKeys()).toBe(false);
        await store.createApiKey({ id: 'key_1', tenantId: TENANT, keyHash: 'h1', label: 'live', now: T0 });
        expect(await store.hasApiKeys()).toBe(true);
      });

      it('findApiKey finds by hash, and null for an unknown hash', async () => {
        await store.createApiKey({ id: 'key_a', tenantId: TENANT, keyHash: 'hash-a', label: 'live', now: T0 });
        await store.createApiKey({ id: 'key_b', tenantId: OTHER_TENANT, keyHash: 'hash-b', label: 'live', now: T0 });
        expect(await store.findApiKey('hash-a')).toMatchObject({ id: 'key_a', tenantId: TENANT });
        expect(await store.findApiKey('hash-b')).toMatchObject({ id: 'key_b', tenantId: OTHER_TENANT });
        expect(await store.findApiKey('hash-c')).toBeNull();
      });
    });
  });
}
