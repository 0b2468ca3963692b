/** The audit part of the Store contract, run against every driver: actions are kept as recorded, listed oldest first per delivery and per notification, per tenant. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewOperatorAction, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0 } from './fixtures.js';

export function auditConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`audit conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: 't_alpha', name: 'Alpha' }, T0);
      await store.ensureTenant({ id: 't_beta', name: 'Beta' }, T0);
    });
    afterEach(() => f.cleanup());

    const action = (over: Partial<NewOperatorAction>): NewOperatorAction => ({
      id: 'act_1',
      tenantId: 't_alpha',
      at: T0,
      action: 'retry',
      actor: { kind: 'user', id: 'usr_1', name: 'ada' },
      notificationId: 'ntf_1',
      deliveryId: 'dlv_1',
      campaignId: null,
      deviceId: null,
      subjectId: null,
      ip: null,
      detail: { accept_duplicate_risk: true, note: 'customer called' },
      ...over,
    });

    it('lists a delivery’s and a notification’s actions oldest first, for the tenant only', async () => {
      await store.audit.record([
        action({ id: 'act_2', at: T0 + SECOND, action: 'cancel', actor: { kind: 'api_key', id: 'key_1', name: null }, detail: {} }),
        action({}),
        action({ id: 'act_3', deliveryId: null, action: 'resend', at: T0 + 2 * SECOND, detail: { new_notification_id: 'ntf_2' } }),
        action({ id: 'act_4', tenantId: 't_beta' }),
      ]);
      await store.audit.record([]);
      const forDelivery = await store.audit.listForDelivery('t_alpha', 'dlv_1');
      expect(forDelivery.map((a) => a.id)).toEqual(['act_1', 'act_2']);
      expect(forDelivery[0]).toEqual(action({}));
      expect(forDelivery[1]!.actor).toEqual({ kind: 'api_key', id: 'key_1', name: null });
      expect((await store.audit.listForNotification('t_alpha', 'ntf_1')).map((a) => a.id)).toEqual(['act_1', 'act_2', 'act_3']);
      expect((await store.audit.listForNotification('t_beta', 'ntf_1')).map((a) => a.id)).toEqual(['act_4']);
      expect(await store.audit.listForDelivery('t_alpha', 'dlv_none')).toEqual([]);
    });

    it('lists a campaign’s and a device’s actions', async () => {
      const none = { notificationId: null, deliveryId: null };
      await store.audit.record([
        action({ ...none, id: 'act_c2', action: 'campaign_resume', campaignId: 'cmp_1', at: T0 + SECOND, detail: {} }),
        action({ ...none, id: 'act_c1', action: 'campaign_pause', campaignId: 'cmp_1', detail: {} }),
        action({ ...none, id: 'act_d1', action: 'device_retry_failed', deviceId: 'dev_1', detail: { retried: 3 } }),
        action({ ...none, id: 'act_d2', tenantId: 't_beta', action: 'device_retry_failed', deviceId: 'dev_1', detail: {} }),
      ]);
      expect((await store.audit.listForCampaign('t_alpha', 'cmp_1')).map((a) => a.action)).toEqual(['campaign_pause', 'campaign_resume']);
      expect((await store.audit.listForDevice('t_alpha', 'dev_1')).map((a) => [a.id, a.detail])).toEqual([['act_d1', { retried: 3 }]]);
    });

    // SQLite reads a negative LIMIT as "no limit" and PostgreSQL refuses it; a page of 0 once
    // failed on a row beyond it. The part clamps to a page of at least one, as the other pages do.
    it('a page limit below 1 answers a page of one, in both dialects', async () => {
      await store.audit.record([action({}), action({ id: 'act_2', at: T0 + SECOND })]);
      for (const limit of [0, -2]) {
        const page = await store.audit.list('t_alpha', null, limit);
        expect(page.items).toHaveLength(1);
        expect(page.next).toBe(page.items[0]!.id);
      }
    });
  });
}
