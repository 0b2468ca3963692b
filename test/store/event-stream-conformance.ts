/** The event stream part of the Store contract, run against every driver: a tenant's outbox events in order, after a cursor, up to a limit. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { seedDeliveries, T0 } from './fixtures.js';

export function eventStreamConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`event stream conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: 't_alpha', name: 'Alpha' }, T0);
      await store.ensureTenant({ id: 't_beta', name: 'Beta' }, T0);
    });
    afterEach(() => f.cleanup());

    it('reads a tenant’s events after a cursor, oldest first, up to the limit', async () => {
      await seedDeliveries(store, { tenantId: 't_alpha', count: 3, providerAccount: 'acct-email' });
      await seedDeliveries(store, { tenantId: 't_beta', count: 1, providerAccount: 'acct-email' });
      const all = await store.eventStream.readOutbox('t_alpha', 0, 10);
      expect(all.map((e) => e.type)).toEqual(['notification.created', 'notification.created', 'notification.created']);
      const ids = all.map((e) => e.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect((await store.eventStream.readOutbox('t_alpha', ids[0]!, 1)).map((e) => e.id)).toEqual([ids[1]]);
      expect(await store.eventStream.lastOutboxId()).toBeGreaterThanOrEqual(ids[2]!);
    });

    // SQLite reads a negative LIMIT as "no limit" and PostgreSQL refuses it: the part clamps, so
    // both drivers answer the same (nothing), as every other list of the store does.
    it('a limit below 1 reads nothing, in both dialects', async () => {
      await seedDeliveries(store, { tenantId: 't_alpha', count: 2, providerAccount: 'acct-email' });
      expect(await store.eventStream.readOutbox('t_alpha', 0, 0)).toEqual([]);
      expect(await store.eventStream.readOutbox('t_alpha', 0, -1)).toEqual([]);
    });
  });
}
