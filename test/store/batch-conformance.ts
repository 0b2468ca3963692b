/**
 * The batch intake write (`createNotifications`, POST /v1/notifications/batch) on every driver:
 * each item written exactly as `createNotification` writes it (deliveries, outbox event, key
 * completion, supersede), a conflicting item refused alone, and the call atomic: a failure that
 * is not an item's conflict leaves nothing of the batch.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deriveDeliveryKey } from '../../src/domain/index.js';
import type { BatchItemOutcome, NewNotification, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { HOUR, MINUTE, SECOND, T0, buildNotification } from './fixtures.js';

const TENANT = 't_alpha';
const IDEM = { lockMs: MINUTE, retentionMs: 24 * HOUR };

/** A notification that is its own group, as intake builds one without `group` (the multi-row path on PostgreSQL). */
function ownGroup(n: NewNotification): NewNotification {
  const groupKey = `ntf:${n.id}`;
  return {
    ...n,
    groupKey,
    deliveries: n.deliveries.map((d) => ({
      ...d,
      idempotencyKey: deriveDeliveryKey({ tenantId: n.tenantId, recipientId: n.recipient.id, groupKey, generation: 1, channel: d.channel, purpose: n.purpose }),
    })),
  };
}

const single = (createdAt = T0) => ownGroup(buildNotification({ tenantId: TENANT, createdAt }));
const constraintOf = (o: BatchItemOutcome) => (o.ok ? 'ok' : 'conflict' in o ? o.conflict.detail.constraint : `key:${o.key.kind}`);

async function reserve(store: Store, key: string, now = T0): Promise<void> {
  expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key, fingerprint: `fp-${key}`, now, ...IDEM })).toEqual({ kind: 'reserved' });
}

async function stored(store: Store, n: NewNotification): Promise<boolean> {
  const view = await store.getNotification(TENANT, n.id);
  const deliveries = await Promise.all(n.deliveries.map((d) => store.getDelivery(d.id)));
  // All or nothing per notification: a half-written one is a failure of the test.
  expect(deliveries.every((d) => (d !== null) === (view !== null))).toBe(true);
  return view !== null;
}

export function batchConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance (createNotifications): ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    it('writes every item with its ready deliveries, one outbox event each, and completes their keys', async () => {
      const items = Array.from({ length: 50 }, (_, i) => single(T0 + i));
      for (let i = 0; i < items.length; i += 2) await reserve(store, `k${i}`);
      const outcomes = await store.createNotifications(
        items.map((n, i) =>
          i % 2 === 0
            ? { notification: n, idempotency: { tenantId: TENANT, key: `k${i}`, fingerprint: `fp-k${i}`, statusCode: 202, body: { id: n.id } } }
            : { notification: n },
        ),
      );
      expect(outcomes).toEqual(items.map(() => ({ ok: true, superseded: [] })));
      for (const n of items) expect(await stored(store, n)).toBe(true);
      expect(await store.countByState()).toMatchObject({ ready: 50 });
      expect((await store.webhooks.relayOutbox({ now: T0 + MINUTE, limit: 1000 })).published).toBe(50);
      expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'k4', fingerprint: 'fp-k4', now: T0 + SECOND, ...IDEM })).toEqual({
        kind: 'replay',
        statusCode: 202,
        body: { id: items[4]!.id },
      });
      // Claimable at once, as createNotification's are.
      const claimed = await store.claimBatch({ providerAccount: 'acct-email', workerId: 'w', now: T0 + MINUTE, leaseMs: 30 * SECOND, limit: 100 });
      expect(claimed).toHaveLength(50);
      expect(await store.createNotifications([])).toEqual([]);
    });

    it('refuses a conflicting item alone (a delivery identity taken, a reservation not ours) and writes the others', async () => {
      const existing = single();
      await store.createNotification(existing);
      const clash = { ...single(), deliveries: [{ ...single().deliveries[0]!, idempotencyKey: existing.deliveries[0]!.idempotencyKey }] };
      const before = single();
      const after = single();
      const unreserved = single();
      await reserve(store, 'mine');
      const keyed = single();
      const outcomes = await store.createNotifications([
        { notification: before },
        { notification: clash },
        { notification: unreserved, idempotency: { tenantId: TENANT, key: 'never-reserved', fingerprint: 'fp', statusCode: 202, body: {} } },
        { notification: keyed, idempotency: { tenantId: TENANT, key: 'mine', fingerprint: 'fp-mine', statusCode: 202, body: { id: keyed.id } } },
        { notification: after },
      ]);
      expect(outcomes.map(constraintOf)).toEqual(['ok', 'deliveries.idempotency_key', 'idempotency_keys', 'ok', 'ok']);
      expect(await stored(store, before)).toBe(true);
      expect(await stored(store, clash)).toBe(false);
      expect(await stored(store, unreserved)).toBe(false);
      expect(await stored(store, keyed)).toBe(true);
      expect(await stored(store, after)).toBe(true);
      expect(await store.countByState()).toMatchObject({ ready: 4 });
      expect((await store.webhooks.relayOutbox({ now: T0 + MINUTE, limit: 1000 })).published).toBe(4);
    });

    it('takes generations of one challenge in the order given: a later one supersedes, a repeated or older one is refused', async () => {
      const g = (generation: number) => buildNotification({ tenantId: TENANT, groupKey: 'login-42', generation, recipientId: 'ada' });
      const [g1, g2, g2again, g1late] = [g(1), g(2), g(2), g(1)];
      const other = single();
      const outcomes = await store.createNotifications([
        { notification: g1 },
        { notification: other },
        { notification: g2 },
        { notification: g2again },
        { notification: g1late },
      ]);
      expect(outcomes.map(constraintOf)).toEqual(['ok', 'ok', 'ok', 'notifications.challenge', 'notifications.stale_generation']);
      expect(outcomes[2]).toEqual({ ok: true, superseded: [{ deliveryId: g1.deliveries[0]!.id, channel: 'email', purpose: 'transactional' }] });
      expect(await store.getDelivery(g1.deliveries[0]!.id)).toMatchObject({ state: 'terminal', terminalReason: 'superseded' });
      expect(await store.getDelivery(g2.deliveries[0]!.id)).toMatchObject({ state: 'ready' });
      expect(await stored(store, g2again)).toBe(false);
      expect(await stored(store, g1late)).toBe(false);
      expect(await stored(store, other)).toBe(true);
    });

    it('is atomic: a failure that is no item conflict rejects the call and leaves nothing of the batch, keys still reserved', async () => {
      await reserve(store, 'k-crash');
      const items = [single(), single(), single()];
      // A value the schema's CHECK refuses: the statement fails the way a lost disk or a killed
      // server fails it, after the items before it were written in the same transaction.
      const broken = { ...single(), deliveries: [{ ...single().deliveries[0]!, channel: 'fax' as never }] };
      const named = buildNotification({ tenantId: TENANT, groupKey: 'login-7', generation: 1 });
      await expect(
        store.createNotifications([
          { notification: items[0]!, idempotency: { tenantId: TENANT, key: 'k-crash', fingerprint: 'fp-k-crash', statusCode: 202, body: {} } },
          { notification: named },
          { notification: items[1]! },
          { notification: broken },
          { notification: items[2]! },
        ]),
      ).rejects.toThrow();
      for (const n of [...items, named, broken]) expect(await stored(store, n)).toBe(false);
      expect(Object.values(await store.countByState()).reduce((a, b) => a + b, 0)).toBe(0);
      expect((await store.webhooks.relayOutbox({ now: T0 + MINUTE, limit: 1000 })).published).toBe(0);
      // The key was not completed: its holder may still commit it.
      expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'k-crash', fingerprint: 'fp-k-crash', now: T0 + SECOND, ...IDEM })).toEqual({
        kind: 'in_progress',
      });
    });

    it('with key terms: takes new keys in the batch transaction (stored completed), replays, refuses and waits as reserveIdempotencyKey would', async () => {
      const keyed = (n: NewNotification, key: string, fingerprint = `fp-${key}`) => ({
        notification: n,
        idempotency: { tenantId: TENANT, key, fingerprint, statusCode: 202, body: { id: n.id } },
      });
      // A completed key, a key whose request is still in flight, one whose lock ran out (its
      // holder died), and one completed past its retention.
      const done = single();
      await reserve(store, 'done');
      expect(await store.createNotifications([keyed(done, 'done')])).toEqual([{ ok: true, superseded: [] }]);
      await reserve(store, 'busy', T0 + 10 * MINUTE);
      await reserve(store, 'lapsed', T0 - 2 * MINUTE);
      const old = single(T0 - 25 * HOUR);
      await reserve(store, 'old', T0 - 25 * HOUR);
      await store.createNotifications([keyed(old, 'old')]);
      const now = T0 + 10 * MINUTE + SECOND;
      const items = [single(now), single(now), single(now), single(now), single(now), single(now), single(now)];
      const outcomes = await store.createNotifications(
        [
          keyed(items[0]!, 'new-1'),
          keyed(items[1]!, 'done'),
          keyed(items[2]!, 'done', 'another body'),
          keyed(items[3]!, 'busy'),
          keyed(items[4]!, 'lapsed'),
          keyed(items[5]!, 'old', 'a new body'),
          { notification: items[6]! },
        ],
        { now, ...IDEM },
      );
      expect(outcomes).toEqual([
        { ok: true, superseded: [] },
        { ok: false, key: { kind: 'replay', statusCode: 202, body: { id: done.id } } },
        { ok: false, key: { kind: 'mismatch', fingerprint: 'fp-done' } },
        { ok: false, key: { kind: 'in_progress' } },
        { ok: true, superseded: [] },
        { ok: true, superseded: [] },
        { ok: true, superseded: [] },
      ]);
      expect(await Promise.all(items.map((n) => stored(store, n)))).toEqual([true, false, false, false, true, true, true]);
      // Every key taken is stored completed with its item's answer: it replays at once, no reservation left open.
      for (const [key, i, fp] of [
        ['new-1', 0, 'fp-new-1'],
        ['lapsed', 4, 'fp-lapsed'],
        ['old', 5, 'a new body'],
      ] as const) {
        expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key, fingerprint: fp, now: now + SECOND, ...IDEM })).toEqual({
          kind: 'replay',
          statusCode: 202,
          body: { id: items[i]!.id },
        });
      }
      // The busy key is still its holder's.
      expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'busy', fingerprint: 'fp-busy', now: now + SECOND, ...IDEM })).toEqual({
        kind: 'in_progress',
      });
    });

    it('with key terms: an item refused by a uniqueness rule leaves its key free, the others are written with theirs', async () => {
      const existing = single();
      await store.createNotification(existing);
      const clash = { ...single(), deliveries: [{ ...single().deliveries[0]!, idempotencyKey: existing.deliveries[0]!.idempotencyKey }] };
      const good = single();
      const named = buildNotification({ tenantId: TENANT, groupKey: 'login-9', generation: 1 });
      const key = (n: NewNotification, k: string) => ({
        notification: n,
        idempotency: { tenantId: TENANT, key: k, fingerprint: `fp-${k}`, statusCode: 202, body: { id: n.id } },
      });
      const outcomes = await store.createNotifications([key(good, 'g'), key(clash, 'c'), key(named, 'n')], { now: T0, ...IDEM });
      expect(outcomes.map(constraintOf)).toEqual(['ok', 'deliveries.idempotency_key', 'ok']);
      expect(await stored(store, clash)).toBe(false);
      expect(await stored(store, good)).toBe(true);
      expect(await stored(store, named)).toBe(true);
      expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'c', fingerprint: 'fp-c', now: T0 + SECOND, ...IDEM })).toEqual({ kind: 'reserved' });
      expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'n', fingerprint: 'fp-n', now: T0 + SECOND, ...IDEM })).toMatchObject({
        kind: 'replay',
      });
    });

    it('with key terms: a failure that is no item conflict leaves nothing of the batch and takes no key', async () => {
      const ok = single();
      const broken = { ...single(), deliveries: [{ ...single().deliveries[0]!, channel: 'fax' as never }] };
      const key = (n: NewNotification, k: string) => ({
        notification: n,
        idempotency: { tenantId: TENANT, key: k, fingerprint: `fp-${k}`, statusCode: 202, body: {} },
      });
      await expect(store.createNotifications([key(ok, 'a'), key(broken, 'b')], { now: T0, ...IDEM })).rejects.toThrow();
      expect(await stored(store, ok)).toBe(false);
      for (const k of ['a', 'b']) {
        expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: k, fingerprint: `fp-${k}`, now: T0 + SECOND, ...IDEM })).toEqual({
          kind: 'reserved',
        });
      }
    });

    it('tells another process of the ready work once per batch, not once per item (where the driver signals: PostgreSQL NOTIFY)', async () => {
      if (!fx.openPeer) throw new Error(`${name}: the factory must provide openPeer()`);
      const listener = await fx.openPeer();
      const heard: string[] = [];
      const stop = await listener.listenForReady((account) => heard.push(account));
      try {
        const items = Array.from({ length: 40 }, () => single());
        await store.createNotifications(items.map((notification) => ({ notification })));
        /** Waits (bounded) until `account` has been heard. */
        const until = async (account: string) => {
          const deadline = Date.now() + 5_000;
          while (!heard.includes(account) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        };
        if (store.driver === 'postgres') {
          await until('acct-email');
          // A sentinel: the store's own wake-up for another account, committed after the batch's.
          // PostgreSQL delivers notifications in commit order, so once it arrives, a NOTIFY per item
          // (the bug) would have arrived before it: no sleep needed to prove none did.
          const sentinel = ownGroup(buildNotification({ tenantId: TENANT, deliveries: [{ channel: 'sms', providerAccount: 'acct-sentinel' }] }));
          await store.createNotifications([{ notification: sentinel }]);
          await until('acct-sentinel');
          expect(heard).toEqual(['acct-email', 'acct-sentinel']);
        } else {
          expect(heard).toEqual([]);
        }
      } finally {
        await stop();
      }
    });
  });
}
