/** The report part of the Store contract, run against every driver: stored only for the tenant's own notification, listed oldest first, per tenant. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0, buildNotification } from './fixtures.js';

export function reportsConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`reports conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: 't_alpha', name: 'Alpha' }, T0);
      await store.ensureTenant({ id: 't_beta', name: 'Beta' }, T0);
    });
    afterEach(() => f.cleanup());

    it("stores a report of the tenant's own notification only, and lists them oldest first", async () => {
      const n = buildNotification({ tenantId: 't_alpha', recipientId: 'r1', purpose: 'otp', deliveries: [{ channel: 'sms', providerAccount: 'acct-sms' }] });
      await store.createNotification(n);
      const base = { tenantId: 't_alpha', notificationId: n.id, channel: null, note: null, reportedBy: 'key_1' };
      expect(await store.reports.addReport({ ...base, id: 'rpt_2', kind: 'not_received', now: T0 + SECOND })).toBe(true);
      expect(await store.reports.addReport({ ...base, id: 'rpt_1', kind: 'duplicate', channel: 'sms', note: 'twice', now: T0 })).toBe(true);
      expect(await store.reports.addReport({ ...base, id: 'rpt_3', tenantId: 't_beta', kind: 'duplicate', now: T0 })).toBe(false);
      expect(await store.reports.listReports('t_alpha', n.id)).toEqual([
        { id: 'rpt_1', notificationId: n.id, kind: 'duplicate', channel: 'sms', note: 'twice', reportedBy: 'key_1', createdAt: T0 },
        { id: 'rpt_2', notificationId: n.id, kind: 'not_received', channel: null, note: null, reportedBy: 'key_1', createdAt: T0 + SECOND },
      ]);
      expect(await store.reports.listReports('t_beta', n.id)).toEqual([]);
    });
  });
}
