/**
 * The inbound part of the Store contract, run against every driver: an incoming message is
 * stored once (a repeated event id or external id writes nothing, not even its effects), STOP
 * writes a keyword suppression with its source and START lifts it in the same transaction, the
 * `message.received` event goes to the outbox with the reply link to the account's last SMS
 * notification to that number, listing filters and pages, retention erases sender and text,
 * health reports keep the newest per device and a history.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundEffects, NewInboundMessage, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { buildNotification, HOUR, MINUTE, newId, SECOND, T0 } from './fixtures.js';

const TENANT = 't_in';
const ACCOUNT = 'phones';
const NUMBER = '+15550100001';

function message(over: Partial<NewInboundMessage> = {}): NewInboundMessage {
  return {
    id: newId('inb', over.now ?? T0),
    tenantId: TENANT,
    providerAccount: ACCOUNT,
    source: 'phone',
    externalId: `ext-${Math.random().toString(36).slice(2)}`,
    deviceId: 'dev_1',
    simNumber: 1,
    kind: 'sms',
    sender: NUMBER,
    senderHash: 'hash-of-number',
    content: 'hello',
    keyword: null,
    receivedAt: T0,
    now: T0,
    ...over,
  };
}

const none: InboundEffects = { suppress: false, lift: false, event: null };

export function inboundConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`inbound conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
      await store.ensureTenant({ id: TENANT, name: 'Inbound' }, T0);
    });
    afterEach(() => f.cleanup());

    it('stores a message once: a repeated event id or external id changes nothing', async () => {
      const m = message({ externalId: 'ext-1' });
      const event = { source: 'device:dev_1', eventId: 'evt-1' };
      expect(await store.inbound.recordInbound(m, event, none, 100)).toEqual({ recorded: true, replyToNotificationId: null });
      expect(await store.inbound.recordInbound({ ...m, id: newId('inb') }, event, none, 100)).toEqual({ recorded: false, duplicate: 'event' });
      // The app's known duplicates: the same SMS under a new event id.
      const again = { ...m, id: newId('inb') };
      expect(
        await store.inbound.recordInbound(again, { source: 'device:dev_1', eventId: 'evt-2' }, { suppress: true, lift: false, event: { x: 1 } }, 100),
      ).toEqual({
        recorded: false,
        duplicate: 'message',
      });
      expect(await store.inbound.keywordSuppressionsOf(TENANT, [NUMBER])).toEqual([]);
      expect(await store.eventStream.readOutbox(TENANT, 0, 10)).toEqual([]);
      const got = await store.inbound.getInbound(TENANT, m.id);
      expect(got).toMatchObject({
        id: m.id,
        sender: NUMBER,
        content: 'hello',
        senderHash: 'hash-of-number',
        deviceId: 'dev_1',
        simNumber: 1,
        kind: 'sms',
        source: 'phone',
      });
      expect(await store.inbound.getInbound('t_other', m.id)).toBeNull();
      // Another account may use the same external id.
      expect((await store.inbound.recordInbound({ ...m, id: newId('inb'), providerAccount: 'twilio-main' }, null, none, 100)).recorded).toBe(true);
    });

    it('STOP suppresses with its source, START lifts, and the event carries the reply link', async () => {
      const n = buildNotification({
        tenantId: TENANT,
        purpose: 'marketing',
        createdAt: T0 - HOUR,
        deliveries: [{ channel: 'sms', providerAccount: ACCOUNT, destination: NUMBER }],
      });
      await store.createNotification(n);
      // A later SMS to another number and one on another account are not the conversation.
      await store.createNotification(
        buildNotification({
          tenantId: TENANT,
          createdAt: T0 - MINUTE,
          deliveries: [{ channel: 'sms', providerAccount: ACCOUNT, destination: '+15550100002' }],
        }),
      );
      await store.createNotification(
        buildNotification({ tenantId: TENANT, createdAt: T0 - MINUTE, deliveries: [{ channel: 'sms', providerAccount: 'other', destination: NUMBER }] }),
      );
      const before = (await store.eventStream.readOutbox(TENANT, 0, 100)).length;

      const stop = message({ content: 'STOP', keyword: 'stop' });
      const r = await store.inbound.recordInbound(stop, null, { suppress: true, lift: false, event: { from: NUMBER, text: 'STOP' } }, 100);
      expect(r).toEqual({ recorded: true, replyToNotificationId: n.id });
      expect(await store.inbound.keywordSuppressionsOf(TENANT, [NUMBER, '+15550100009'])).toEqual([
        { tenantId: TENANT, channel: 'sms', destination: NUMBER, keyword: 'stop', providerAccount: ACCOUNT, inboundId: stop.id, createdAt: T0 },
      ]);
      expect(await store.inbound.keywordSuppressionsOf('t_other', [NUMBER])).toEqual([]);
      const events = (await store.eventStream.readOutbox(TENANT, 0, 100)).slice(before);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'message.received',
        notificationId: stop.id,
        payload: { from: NUMBER, text: 'STOP', reply_to_notification_id: n.id },
      });
      expect((await store.inbound.getInbound(TENANT, stop.id))?.replyToNotificationId).toBe(n.id);

      // A second STOP keeps the first entry.
      await store.inbound.recordInbound(message({ keyword: 'stop', now: T0 + SECOND }), null, { suppress: true, lift: false, event: null }, 100);
      expect((await store.inbound.listKeywordSuppressions(TENANT, 10)).map((s) => s.inboundId)).toEqual([stop.id]);

      await store.inbound.recordInbound(
        message({ content: 'start', keyword: 'start', now: T0 + 2 * SECOND }),
        null,
        { suppress: false, lift: true, event: null },
        100,
      );
      expect(await store.inbound.keywordSuppressionsOf(TENANT, [NUMBER])).toEqual([]);
    });

    it('links a reply by the masked hash, and only within the scan', async () => {
      const n = buildNotification({
        tenantId: TENANT,
        createdAt: T0 - HOUR,
        deliveries: [{ channel: 'sms', providerAccount: ACCOUNT, destination: '+15550100007' }],
      });
      await store.createNotification(n);
      expect((await store.inbound.recordInbound(message({ sender: '+15550100007', senderHash: 'h7' }), null, none, 100)).recorded).toBe(true);
      const linked = await store.inbound.listInbound({ tenantId: TENANT, senderHash: 'h7', limit: 10 });
      expect(linked[0]?.replyToNotificationId).toBe(n.id);
      await store.createNotification(
        buildNotification({
          tenantId: TENANT,
          createdAt: T0 - MINUTE,
          deliveries: [{ channel: 'sms', providerAccount: ACCOUNT, destination: '+15550100008' }],
        }),
      );
      // The newest delivery of the account is another number's, and the scan covers only it.
      const r = await store.inbound.recordInbound(message({ sender: '+15550100007', senderHash: 'h7', now: T0 + SECOND }), null, none, 1);
      expect(r).toEqual({ recorded: true, replyToNotificationId: null });
    });

    it('lists newest first by account, device, sender and time, in pages', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const m = message({ receivedAt: T0 + i * MINUTE, now: T0 + i * MINUTE, deviceId: i % 2 ? 'dev_2' : 'dev_1', senderHash: i < 3 ? 'ha' : 'hb' });
        await store.inbound.recordInbound(m, null, none, 10);
        ids.push(m.id);
      }
      const all = await store.inbound.listInbound({ tenantId: TENANT, limit: 10 });
      expect(all.map((m) => m.id)).toEqual([...ids].reverse());
      expect((await store.inbound.listInbound({ tenantId: TENANT, deviceId: 'dev_2', limit: 10 })).map((m) => m.id)).toEqual([ids[3], ids[1]]);
      expect((await store.inbound.listInbound({ tenantId: TENANT, senderHash: 'hb', limit: 10 })).map((m) => m.id)).toEqual([ids[4], ids[3]]);
      expect((await store.inbound.listInbound({ tenantId: TENANT, since: T0 + MINUTE, until: T0 + 3 * MINUTE, limit: 10 })).map((m) => m.id)).toEqual([
        ids[2],
        ids[1],
      ]);
      expect(await store.inbound.listInbound({ tenantId: TENANT, providerAccount: 'other', limit: 10 })).toEqual([]);
      const page1 = await store.inbound.listInbound({ tenantId: TENANT, limit: 2 });
      const last = page1[1]!;
      const page2 = await store.inbound.listInbound({ tenantId: TENANT, limit: 2, after: { receivedAt: last.receivedAt, id: last.id } });
      expect(page2.map((m) => m.id)).toEqual([ids[2], ids[1]]);
      expect(await store.inbound.listInbound({ tenantId: 't_other', limit: 10 })).toEqual([]);
    });

    it('erases sender and text for retention, and keeps the rest', async () => {
      const old = message({ now: T0 });
      const recent = message({ now: T0 + HOUR });
      await store.inbound.recordInbound(old, null, none, 10);
      await store.inbound.recordInbound(recent, null, none, 10);
      expect(await store.inbound.inboundContentDue(T0 + MINUTE, 10)).toEqual([old.id]);
      expect(await store.inbound.eraseInboundContent([old.id], T0 + 2 * HOUR)).toBe(1);
      expect(await store.inbound.eraseInboundContent([old.id], T0 + 2 * HOUR)).toBe(0);
      expect(await store.inbound.getInbound(TENANT, old.id)).toMatchObject({
        sender: null,
        content: null,
        contentErasedAt: T0 + 2 * HOUR,
        senderHash: 'hash-of-number',
      });
      expect((await store.inbound.getInbound(TENANT, recent.id))?.content).toBe('hello');
      expect(await store.inbound.inboundContentDue(T0 + 2 * HOUR, 10)).toEqual([recent.id]);
    });

    it('keeps health reports once per event, the newest per device, a history, and prunes', async () => {
      const sample = (deviceId: string, at: number, batteryPercent: number) => ({
        deviceId,
        at,
        batteryPercent,
        charging: false,
        internet: true,
        transports: ['wifi'],
        cellular: '4g',
        signal: null,
        failedLastHour: 0,
        appVersion: '1.40.0',
      });
      expect(await store.inbound.recordHealth(sample('dev_1', T0, 50), { source: 'device:dev_1', eventId: 'p1' })).toBe(true);
      expect(await store.inbound.recordHealth(sample('dev_1', T0 + SECOND, 49), { source: 'device:dev_1', eventId: 'p1' })).toBe(false);
      await store.inbound.recordHealth(sample('dev_1', T0 + MINUTE, 48), null);
      await store.inbound.recordHealth({ ...sample('dev_2', T0, 90), charging: null, internet: null, transports: null }, null);
      const latest = await store.inbound.latestHealth(['dev_1', 'dev_2', 'dev_3']);
      expect(latest.sort((a, b) => a.deviceId.localeCompare(b.deviceId))).toEqual([
        sample('dev_1', T0 + MINUTE, 48),
        { ...sample('dev_2', T0, 90), charging: null, internet: null, transports: null },
      ]);
      expect((await store.inbound.healthHistory('dev_1', T0)).map((s) => s.batteryPercent)).toEqual([50, 48]);
      expect(await store.inbound.takeEvent({ source: 'device:dev_1', eventId: 'p1' }, T0)).toBe(false);
      expect(await store.inbound.takeEvent({ source: 'device:dev_1', eventId: 'p9' }, T0)).toBe(true);
      // Event ids before T0 + 1 s: p1 and p9 (2); health before T0 + 1 s: dev_1's and dev_2's first (2).
      expect(await store.inbound.prune(T0 + SECOND, T0 + SECOND, 100)).toBe(4);
      expect(await store.inbound.takeEvent({ source: 'device:dev_1', eventId: 'p1' }, T0 + HOUR)).toBe(true);
      expect((await store.inbound.healthHistory('dev_1', 0)).map((s) => s.batteryPercent)).toEqual([48]);
    });
  });
}
