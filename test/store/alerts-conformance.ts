/**
 * The alert part of the Store contract, run against every driver: states written with a
 * compare-and-set over a whole evaluation (all or nothing, one winner of two processes), and
 * the history of sent alerts listed newest first with a cursor.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlertState } from '../../src/domain/index.js';
import type { NewAlertSent, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0 } from './fixtures.js';

const state = (over: Partial<AlertState> = {}): AlertState => ({
  rule: 'provider_failures',
  subject: 'sms-main',
  status: 'firing',
  since: T0,
  clearSince: null,
  line: '4 messages failed on sms-main in the last 15 minutes',
  value: 4,
  announced: null,
  announcedAt: null,
  memory: null,
  version: 0,
  ...over,
});

const sent = (over: Partial<NewAlertSent> = {}): NewAlertSent => ({
  sentAt: T0,
  rule: 'provider_failures',
  subject: 'sms-main',
  kind: 'firing',
  targetKind: 'webhook',
  target: 'https://hooks.example.com/…',
  providerAccount: null,
  outcome: 'sent',
  errorClass: null,
  ...over,
});

export function alertsConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`alerts conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
    });
    afterEach(() => f.cleanup());

    it('stores new states at version 1 and updates them only at the version they were read at', async () => {
      const review = state({ rule: 'review_queue_growing', subject: 'all', status: 'clear', line: '', value: 0, memory: '[{"at":1,"size":0}]' });
      const written = await store.alerts.commitStates([state(), review], T0);
      expect(written?.map((s) => s.version)).toEqual([1, 1]);
      expect(await store.alerts.listStates()).toEqual([
        { ...state(), version: 1 },
        { ...review, version: 1 },
      ]);
      const announced = await store.alerts.commitStates([{ ...state(), version: 1, announced: 'firing', announcedAt: T0 + SECOND }], T0 + SECOND);
      expect(announced).toEqual([{ ...state(), version: 2, announced: 'firing', announcedAt: T0 + SECOND }]);
      // A stale version (1, now 2) and a second insert of a stored key are both refused.
      expect(await store.alerts.commitStates([{ ...state(), version: 1, status: 'clear' }], T0 + 2 * SECOND)).toBeNull();
      expect(await store.alerts.commitStates([state({ subject: 'sms-main' })], T0 + 2 * SECOND)).toBeNull();
      expect((await store.alerts.listStates())[0]).toMatchObject({ status: 'firing', version: 2, announced: 'firing' });
    });

    it('writes nothing of an evaluation when one of its states has moved', async () => {
      await store.alerts.commitStates([state()], T0);
      const refused = await store.alerts.commitStates([state({ rule: 'deadline_misses', subject: 'all' }), { ...state(), version: 7 }], T0 + SECOND);
      expect(refused).toBeNull();
      expect((await store.alerts.listStates()).map((s) => s.rule)).toEqual(['provider_failures']);
      expect(await store.alerts.commitStates([], T0)).toEqual([]);
    });

    it('lets exactly one of two processes commit the same evaluation at the same time', async () => {
      await store.alerts.commitStates([state()], T0);
      const peer = await f.openPeer!();
      for (let round = 1; round <= 5; round++) {
        const change = { ...state(), version: round, announced: 'firing' as const, announcedAt: T0 + round * SECOND };
        const results = await Promise.all([store.alerts.commitStates([change], T0 + round * SECOND), peer.alerts.commitStates([change], T0 + round * SECOND)]);
        expect(results.filter((r) => r !== null)).toHaveLength(1);
      }
      expect((await store.alerts.listStates())[0]!.version).toBe(6);
    });

    it('lists the history newest first, a page at a time', async () => {
      await store.alerts.recordSent([
        sent(),
        sent({ targetKind: 'sms', target: '+4915*******89', providerAccount: 'sms-backup', outcome: 'failed', errorClass: 'retryable', sentAt: T0 + SECOND }),
        sent({ kind: 'test', rule: null, subject: null, targetKind: 'email', target: 'o***@example.com', providerAccount: 'mail', sentAt: T0 + 2 * SECOND }),
      ]);
      await store.alerts.recordSent([]);
      const first = await store.alerts.listHistory(null, 2);
      expect(first.items.map((i) => i.kind)).toEqual(['test', 'firing']);
      expect(first.items[0]).toMatchObject({
        rule: null,
        subject: null,
        targetKind: 'email',
        providerAccount: 'mail',
        outcome: 'sent',
        errorClass: null,
        sentAt: T0 + 2 * SECOND,
      });
      expect(first.items[1]).toMatchObject({ targetKind: 'sms', outcome: 'failed', errorClass: 'retryable' });
      expect(first.nextBefore).toBe(first.items[1]!.id);
      const second = await store.alerts.listHistory(first.nextBefore, 2);
      expect(second).toEqual({ items: [{ ...sent(), id: second.items[0]!.id }], nextBefore: null });
      expect(second.items[0]!.id).toBeLessThan(first.items[1]!.id);
    });

    it('prunes history sent before a time, and only that', async () => {
      await store.alerts.recordSent([sent({ sentAt: T0 - 2 * SECOND }), sent({ sentAt: T0 - SECOND }), sent({ sentAt: T0 })]);
      expect(await store.alerts.pruneHistory(T0 - SECOND)).toBe(1);
      expect((await store.alerts.listHistory(null, 10)).items.map((i) => i.sentAt)).toEqual([T0, T0 - SECOND]);
      expect(await store.alerts.pruneHistory(T0 - SECOND)).toBe(0);
    });
  });
}
