/**
 * The preferences part of the Store contract, run against every driver: opt-outs are
 * replaced, added and listed per (tenant, recipient); manual suppressions are added and
 * removed; the send-time check answers for a whole claimed batch at once, from opt-outs and
 * suppressions; a server secret is the same for every process.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel, Purpose } from '../../src/domain/index.js';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0, buildNotification } from './fixtures.js';

const TENANT = 't_alpha';
const OTHER = 't_beta';

/** One notification for `recipientId` with one delivery per channel; returns the delivery ids by channel. */
async function notify(
  store: Store,
  o: { recipientId: string; purpose: Purpose; channels: Channel[]; tenantId?: string; email?: string },
): Promise<Record<string, string>> {
  const n = buildNotification({
    tenantId: o.tenantId ?? TENANT,
    recipientId: o.recipientId,
    purpose: o.purpose,
    deliveries: o.channels.map((channel) => ({
      channel,
      providerAccount: `acct-${channel}`,
      ...(channel === 'email' && o.email ? { destination: o.email } : {}),
    })),
  });
  await store.createNotification(n);
  return Object.fromEntries(n.deliveries.map((d) => [d.channel, d.id]));
}

/** Runs the preferences contract against one driver. */
export function preferencesConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Preferences store conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
      await store.ensureTenant({ id: OTHER, name: 'Beta' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it('replaces a recipient’s opt-outs: kept ones keep their time and source, new ones are added, the rest removed', async () => {
      expect(await store.preferences.listOptOuts(TENANT, 'r1')).toEqual([]);
      const first = await store.preferences.replaceOptOuts({
        tenantId: TENANT,
        recipientId: 'r1',
        optOuts: [
          { channel: 'email', purpose: 'marketing' },
          { channel: null, purpose: 'conversational' },
          { channel: 'email', purpose: 'marketing' },
        ],
        source: 'api',
        now: T0,
      });
      expect(first).toEqual([
        { channel: null, purpose: 'conversational', source: 'api', optedOutAt: T0 },
        { channel: 'email', purpose: 'marketing', source: 'api', optedOutAt: T0 },
      ]);
      const second = await store.preferences.replaceOptOuts({
        tenantId: TENANT,
        recipientId: 'r1',
        optOuts: [
          { channel: 'email', purpose: 'marketing' },
          { channel: 'sms', purpose: null },
        ],
        source: 'one_click',
        now: T0 + SECOND,
      });
      expect(second).toEqual([
        { channel: 'email', purpose: 'marketing', source: 'api', optedOutAt: T0 },
        { channel: 'sms', purpose: null, source: 'one_click', optedOutAt: T0 + SECOND },
      ]);
      expect(await store.preferences.listOptOuts(TENANT, 'r1')).toEqual(second);
      // Per tenant and per recipient.
      expect(await store.preferences.listOptOuts(OTHER, 'r1')).toEqual([]);
      expect(await store.preferences.listOptOuts(TENANT, 'r2')).toEqual([]);
      expect(await store.preferences.replaceOptOuts({ tenantId: TENANT, recipientId: 'r1', optOuts: [], source: 'api', now: T0 + 2 * SECOND })).toEqual([]);
    });

    it('adds one opt-out once: a repeat leaves the first as it was', async () => {
      const optOut = { channel: 'email' as const, purpose: 'marketing' as const };
      expect(await store.preferences.addOptOut({ tenantId: TENANT, recipientId: 'r1', optOut, source: 'one_click', now: T0 })).toBe(true);
      expect(await store.preferences.addOptOut({ tenantId: TENANT, recipientId: 'r1', optOut, source: 'api', now: T0 + SECOND })).toBe(false);
      expect(await store.preferences.addOptOut({ tenantId: TENANT, recipientId: 'r1', optOut: { channel: null, purpose: null }, source: 'api', now: T0 })).toBe(
        true,
      );
      expect(await store.preferences.listOptOuts(TENANT, 'r1')).toEqual([
        { channel: null, purpose: null, source: 'api', optedOutAt: T0 },
        { channel: 'email', purpose: 'marketing', source: 'one_click', optedOutAt: T0 },
      ]);
    });

    it('adds and removes manual suppressions per tenant, never replacing a bounce or complaint already there', async () => {
      expect(await store.preferences.addSuppression({ tenantId: TENANT, channel: 'email', destination: 'ada@example.test', now: T0 })).toBe(true);
      expect(await store.preferences.addSuppression({ tenantId: TENANT, channel: 'email', destination: 'ada@example.test', now: T0 + SECOND })).toBe(false);
      expect(await store.preferences.getSuppression(TENANT, 'email', 'ada@example.test')).toEqual({
        tenantId: TENANT,
        channel: 'email',
        destination: 'ada@example.test',
        reason: 'manual',
        sourceDeliveryId: null,
        createdAt: T0,
      });
      expect(await store.preferences.getSuppression(OTHER, 'email', 'ada@example.test')).toBeNull();
      expect(await store.preferences.removeSuppression({ tenantId: OTHER, channel: 'email', destination: 'ada@example.test' })).toBe(false);
      expect(await store.preferences.removeSuppression({ tenantId: TENANT, channel: 'sms', destination: 'ada@example.test' })).toBe(false);
      expect(await store.preferences.removeSuppression({ tenantId: TENANT, channel: 'email', destination: 'ada@example.test' })).toBe(true);
      expect(await store.preferences.removeSuppression({ tenantId: TENANT, channel: 'email', destination: 'ada@example.test' })).toBe(false);
      expect(await store.preferences.listSuppressions(TENANT, 10)).toEqual([]);
    });

    it('answers the send-time check for a whole batch from opt-outs and suppressions', async () => {
      const mkt = await notify(store, { recipientId: 'r1', purpose: 'marketing', channels: ['email', 'sms'] });
      const otp = await notify(store, { recipientId: 'r1', purpose: 'otp', channels: ['email'] });
      const conv = await notify(store, { recipientId: 'r1', purpose: 'conversational', channels: ['email'] });
      const other = await notify(store, { recipientId: 'r2', purpose: 'marketing', channels: ['email'], email: 'bob@example.test' });
      const otherTenant = await notify(store, { tenantId: OTHER, recipientId: 'r1', purpose: 'marketing', channels: ['email'] });
      const ids = [mkt.email!, mkt.sms!, otp.email!, conv.email!, other.email!, otherTenant.email!];
      const verdicts = async () => Object.fromEntries((await store.preferences.sendabilityOf(ids)).map((c) => [c.deliveryId, c.verdict]));

      expect(await verdicts()).toEqual(Object.fromEntries(ids.map((id) => [id, 'send'])));
      // Marketing e-mail opt-out: that channel and purpose only, that tenant only; never the code.
      await store.preferences.addOptOut({ tenantId: TENANT, recipientId: 'r1', optOut: { channel: 'email', purpose: 'marketing' }, source: 'api', now: T0 });
      expect(await verdicts()).toMatchObject({
        [mkt.email!]: 'unsubscribed',
        [mkt.sms!]: 'send',
        [otp.email!]: 'send',
        [conv.email!]: 'send',
        [other.email!]: 'send',
        [otherTenant.email!]: 'send',
      });
      // Every channel, every optional purpose.
      await store.preferences.addOptOut({ tenantId: TENANT, recipientId: 'r1', optOut: { channel: null, purpose: null }, source: 'api', now: T0 });
      expect(await verdicts()).toMatchObject({ [mkt.sms!]: 'unsubscribed', [conv.email!]: 'unsubscribed', [otp.email!]: 'send' });
      // A manual suppression of r2's address: everything to it, whatever the purpose.
      await store.preferences.addSuppression({ tenantId: TENANT, channel: 'email', destination: 'bob@example.test', now: T0 });
      // And of r1's address: suppressed wins over unsubscribed, and stops the code too.
      await store.preferences.addSuppression({ tenantId: TENANT, channel: 'email', destination: 'ada@example.test', now: T0 });
      expect(await verdicts()).toEqual({
        [mkt.email!]: 'suppressed',
        [mkt.sms!]: 'unsubscribed',
        [otp.email!]: 'suppressed',
        [conv.email!]: 'suppressed',
        [other.email!]: 'suppressed',
        [otherTenant.email!]: 'send',
      });
      const checks = await store.preferences.sendabilityOf([mkt.email!, 'dlv_unknown']);
      expect(checks).toEqual([{ deliveryId: mkt.email!, recipientId: 'r1', timeZone: null, verdict: 'suppressed' }]);
      expect(await store.preferences.sendabilityOf([])).toEqual([]);
    });

    it('a complaint suppresses the optional purposes only; a code to the same address still goes', async () => {
      const mkt = await notify(store, { recipientId: 'r1', purpose: 'marketing', channels: ['email'] });
      const otp = await notify(store, { recipientId: 'r1', purpose: 'otp', channels: ['email'] });
      // The complaint goes on the list the way evidence puts it there: with a callback event's evidence write.
      const d = (await store.getDelivery(mkt.email!))!;
      await store.evidence.recordProviderEvents([
        {
          providerAccount: 'acct-email',
          eventId: 'c1',
          status: 'complained',
          providerMessageId: null,
          reference: d.idempotencyKey,
          occurredAt: null,
          suppress: 'complained',
          receivedAt: T0,
        },
      ]);
      const [pending] = await store.evidence.listPendingEvidence(10);
      expect(pending?.eventId).toBe('c1');
      await store.evidence.applyEvidence([
        {
          rowIds: [pending!.rowId],
          deliveryId: d.id,
          expect: { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus },
          downstreamStatus: d.downstreamStatus,
          transition: null,
          providerMessageId: null,
          resolvesAttempt: null,
          suppress: { tenantId: TENANT, channel: 'email', destination: 'ada@example.test', reason: 'complained', sourceDeliveryId: d.id },
          now: T0,
        },
      ]);
      const checks = await store.preferences.sendabilityOf([mkt.email!, otp.email!]);
      expect(Object.fromEntries(checks.map((c) => [c.deliveryId, c.verdict]))).toEqual({ [mkt.email!]: 'suppressed', [otp.email!]: 'send' });
      // An operator's entry cannot be added over the complaint; removing the entry lifts it.
      expect(await store.preferences.addSuppression({ tenantId: TENANT, channel: 'email', destination: 'ada@example.test', now: T0 })).toBe(false);
      expect(await store.preferences.removeSuppression({ tenantId: TENANT, channel: 'email', destination: 'ada@example.test' })).toBe(true);
      expect((await store.preferences.sendabilityOf([mkt.email!])).map((c) => c.verdict)).toEqual(['send']);
    });

    it('keeps one server secret: the first value stored wins, for this process and another', async () => {
      const a = await store.preferences.serverSecret('unsubscribe_key', () => 'first', T0);
      const b = await store.preferences.serverSecret('unsubscribe_key', () => 'second', T0 + SECOND);
      expect([a, b]).toEqual(['first', 'first']);
      if (fx.openPeer) {
        const peer = await fx.openPeer();
        expect(await peer.preferences.serverSecret('unsubscribe_key', () => 'third', T0)).toBe('first');
        expect(await peer.preferences.serverSecret('another', () => 'own', T0)).toBe('own');
      }
    });
  });
}
