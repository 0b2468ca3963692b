/**
 * The devices part of the Store contract, run against every driver: registration and presence,
 * single-use login codes, offers and the pull that hands each one out once, phone reports folded
 * forward and applied with a guarded write, withdrawal of what was never pulled, re-offers, and
 * what a heartbeat sweep picks and records.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gatewayMessageId, type SubmitOutcome } from '../../src/domain/index.js';
import { StoreConflictError } from '../../src/store/core-store.js';
import type { NewDevice, Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { buildNotification, HOUR, MINUTE, mustDecide, mustGetDelivery, SECOND, T0 } from './fixtures.js';

const TENANT = 't_phones';
const ACCOUNT = 'phones';
const AWAY = 2 * MINUTE;

const device = (id: string, over: Partial<NewDevice> = {}): NewDevice => ({
  id,
  tenantId: TENANT,
  providerAccount: ACCOUNT,
  login: 'LOGIN1',
  name: 'Google/sdk_gphone64',
  tokenHash: `hash-${id}`,
  simCards: [{ slotIndex: 0, simNumber: 1, phoneNumber: '********0123', carrierName: '**ne', iccid: null }],
  appVersion: '1.40.0',
  now: T0,
  ...over,
});

/** Runs the devices contract against one driver. */
export function deviceConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Devices conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Phones' }, T0);
      await store.devices.registerDevice({
        login: { login: 'LOGIN1', providerAccount: ACCOUNT, tenantId: TENANT, passwordHash: 'scrypt$x', now: T0 },
        device: device('dev_a'),
      });
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    /** An sms delivery on the account, claimed (attempt 1 open) at `now`. */
    async function claimed(opts: { ttlMs?: number; metadata?: Record<string, unknown> | null; now?: number; purpose?: 'otp' | 'transactional' } = {}) {
      const now = opts.now ?? T0;
      const n = buildNotification({
        tenantId: TENANT,
        createdAt: now,
        ttlMs: opts.ttlMs ?? HOUR,
        purpose: opts.purpose ?? 'otp',
        metadata: opts.metadata ?? null,
        deliveries: [{ channel: 'sms', providerAccount: ACCOUNT, destination: '+14155550123' }],
      });
      await store.createNotification(n);
      const [c] = await store.claimBatch({ providerAccount: ACCOUNT, workerId: 'w1', now, leaseMs: 30 * SECOND, limit: 1 });
      expect(c?.deliveryId).toBe(n.deliveries[0]!.id);
      return c!;
    }

    /** Writes the call's outcome for a claim. */
    async function outcome(c: Awaited<ReturnType<typeof claimed>>, o: SubmitOutcome, now = T0) {
      const [r] = await store.applyTransitions([
        {
          deliveryId: c.deliveryId,
          expect: { state: 'submitting', leaseVersion: c.leaseVersion },
          transition: mustDecide(
            { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null },
            { type: 'outcome', outcome: o },
            now,
          ),
          now,
          attempt: { number: c.attemptNumber, outcome: o },
        },
      ]);
      expect(r?.applied).toBe(true);
    }

    const offer = (c: Awaited<ReturnType<typeof claimed>>, over: { deviceId?: string; priority?: number; now?: number; simNumber?: number | null } = {}) =>
      store.devices.createOffer({
        deliveryId: c.deliveryId,
        idempotencyKey: c.idempotencyKey,
        deviceId: over.deviceId ?? 'dev_a',
        providerAccount: ACCOUNT,
        simNumber: over.simNumber ?? null,
        priority: over.priority ?? 0,
        validUntil: c.expiresAt,
        now: over.now ?? T0,
      });
    const UNKNOWN: SubmitOutcome = { kind: 'unknown', code: 'offered', message: 'offered to dev_a' };

    describe('registration and presence', () => {
      it('finds a device by its token hash, lists it by tenant and account, refuses a duplicate id', async () => {
        expect(await store.devices.findDeviceByToken('hash-dev_a')).toMatchObject({
          id: 'dev_a',
          tenantId: TENANT,
          providerAccount: ACCOUNT,
          login: 'LOGIN1',
          lastSeenAt: T0,
          returnedAt: null,
          appVersion: '1.40.0',
        });
        expect(await store.devices.findDeviceByToken('nope')).toBeNull();
        await store.devices.registerDevice({ login: null, device: device('dev_b', { tokenHash: 'hash-b', now: T0 + 1 }) });
        expect((await store.devices.listDevices({ tenantId: TENANT })).map((d) => d.id)).toEqual(['dev_a', 'dev_b']);
        expect(await store.devices.listDevices({ providerAccount: 'other' })).toEqual([]);
        await expect(store.devices.registerDevice({ login: null, device: device('dev_b', { tokenHash: 'hash-c' }) })).rejects.toBeInstanceOf(
          StoreConflictError,
        );
        // A refused registration wrote nothing: no half-registered login either.
        await expect(
          store.devices.registerDevice({
            login: { login: 'LOGIN2', providerAccount: ACCOUNT, tenantId: TENANT, passwordHash: 'h', now: T0 },
            device: device('dev_a', { tokenHash: 'hash-d' }),
          }),
        ).rejects.toBeInstanceOf(StoreConflictError);
        expect(await store.devices.findLogin('LOGIN2')).toBeNull();
      });

      it('updates SIM cards and app version, keeping what is not reported', async () => {
        expect(await store.devices.updateDevice({ id: 'dev_a', simCards: [], appVersion: null, now: T0 })).toBe(true);
        expect(await store.devices.getDevice('dev_a')).toMatchObject({ simCards: [], appVersion: '1.40.0' });
        expect(await store.devices.updateDevice({ id: 'ghost', simCards: null, appVersion: null, now: T0 })).toBe(false);
      });

      it('moves last seen forward only, and marks a return after an absence longer than the threshold, once', async () => {
        expect(await store.devices.touchDevice({ id: 'dev_a', now: T0 + MINUTE, awayMs: AWAY })).toEqual({
          lastSeenAt: T0 + MINUTE,
          returned: false,
          awaySince: null,
        });
        expect(await store.devices.touchDevice({ id: 'dev_a', now: T0, awayMs: AWAY })).toMatchObject({ lastSeenAt: T0 + MINUTE, returned: false });
        const back = T0 + MINUTE + 5 * MINUTE;
        expect(await store.devices.touchDevice({ id: 'dev_a', now: back, awayMs: AWAY })).toEqual({ lastSeenAt: back, returned: true, awaySince: T0 + MINUTE });
        expect(await store.devices.touchDevice({ id: 'dev_a', now: back + SECOND, awayMs: AWAY })).toMatchObject({ returned: false });
        expect((await store.devices.listReturnedDevices(10)).map((d) => [d.id, d.returnedAt, d.awaySince])).toEqual([['dev_a', back, T0 + MINUTE]]);
        expect(await store.devices.touchDevice({ id: 'ghost', now: back, awayMs: AWAY })).toBeNull();
      });

      it('spends a login code once, and never after it expired', async () => {
        await store.devices.createLoginCode({ codeHash: 'c1', login: 'LOGIN1', validUntil: T0 + MINUTE, now: T0 });
        await store.devices.createLoginCode({ codeHash: 'c2', login: 'LOGIN1', validUntil: T0 + MINUTE, now: T0 });
        expect(await store.devices.useLoginCode('c1', T0 + SECOND)).toBe('LOGIN1');
        expect(await store.devices.useLoginCode('c1', T0 + SECOND)).toBeNull();
        expect(await store.devices.useLoginCode('c2', T0 + MINUTE)).toBeNull();
        expect(await store.devices.setLoginPassword('LOGIN1', 'scrypt$y')).toBe(true);
        expect((await store.devices.findLogin('LOGIN1'))?.passwordHash).toBe('scrypt$y');
        expect(await store.devices.setLoginPassword('NOPE', 'x')).toBe(false);
      });
    });

    describe('offers and pulls', () => {
      it('numbers a delivery’s offers and derives the message id from its key', async () => {
        const c = await claimed();
        const o = await offer(c);
        expect(o).toMatchObject({
          seq: 1,
          attemptNumber: 1,
          messageId: gatewayMessageId(c.idempotencyKey, 1),
          state: 'offered',
          deviceId: 'dev_a',
          pulledAt: null,
          phoneState: null,
          sent: false,
        });
        expect(o.messageId.length).toBeLessThanOrEqual(36);
        expect(await store.devices.currentOffer({ providerAccount: ACCOUNT, idempotencyKey: c.idempotencyKey })).toMatchObject({ id: o.id });
      });

      it('hands each listed offer out once, in the app’s order, with what the phone needs', async () => {
        const a = await claimed();
        const oa = await offer(a, { priority: 0 });
        const b = await claimed();
        const ob = await offer(b, { priority: 100 });
        const lifo = await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 100, now: T0 + SECOND });
        expect(lifo.map((m) => m.messageId)).toEqual([ob.messageId, oa.messageId]);
        expect(lifo[0]).toMatchObject({ phoneNumber: '+14155550123', priority: 100, validUntil: b.expiresAt, simNumber: null });
        expect(lifo[0]!.text).toMatch(/^Body of /);
        expect(await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 100, now: T0 + SECOND })).toEqual([]);
        // Re-offered: listed again under the same ids; fifo puts the higher priority first, then the older.
        expect(await store.devices.reofferOffers([oa.id, ob.id], T0 + 2 * SECOND)).toBe(2);
        const fifo = await store.devices.pullOffers({ deviceId: 'dev_a', order: 'fifo', limit: 1, now: T0 + 3 * SECOND });
        expect(fifo.map((m) => m.messageId)).toEqual([ob.messageId]);
        expect(await store.devices.currentOffer({ providerAccount: ACCOUNT, idempotencyKey: b.idempotencyKey })).toMatchObject({
          state: 'pulled',
          pullCount: 2,
          reofferCount: 1,
          pulledAt: T0 + SECOND,
          lastPulledAt: T0 + 3 * SECOND,
        });
      });

      it('does not hand out an offer past its validity, or another device’s', async () => {
        await store.devices.registerDevice({ login: null, device: device('dev_b', { tokenHash: 'hash-b' }) });
        const c = await claimed({ ttlMs: MINUTE });
        await offer(c, { deviceId: 'dev_b' });
        expect(await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 100, now: T0 })).toEqual([]);
        expect(await store.devices.pullOffers({ deviceId: 'dev_b', order: 'lifo', limit: 100, now: T0 + MINUTE })).toEqual([]);
      });

      it('never hands the same offer to two concurrent pulls (another process too)', async () => {
        const peer = fx.openPeer ? await fx.openPeer() : store;
        for (let i = 0; i < 6; i++) await offer(await claimed());
        const pulls = await Promise.all(
          [0, 1, 2].map((i) => (i === 1 ? peer : store).devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 2, now: T0 + SECOND })),
        );
        const ids = pulls.flat().map((m) => m.messageId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toHaveLength(6);
      });

      it('withdraws only an offer that was never pulled', async () => {
        const a = await claimed();
        const oa = await offer(a);
        const b = await claimed();
        const ob = await offer(b);
        await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 1, now: T0 }); // b, the newest
        expect(await store.devices.withdrawOffer(ob.id, T0)).toBe(false);
        expect(await store.devices.withdrawOffer(oa.id, T0)).toBe(true);
        expect(await store.devices.withdrawOffer(oa.id, T0)).toBe(false);
        expect(await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 10, now: T0 })).toEqual([]);
        // A withdrawn offer cannot be re-offered: it never reached a phone.
        expect(await store.devices.reofferOffers([oa.id], T0)).toBe(0);
      });
    });

    describe('reports', () => {
      it('folds reports forward, skips ids the device was not offered, and waits while the delivery is in flight', async () => {
        const c = await claimed();
        const o = await offer(c);
        await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 10, now: T0 });
        const rec = await store.devices.recordReports({
          deviceId: 'dev_a',
          now: T0 + SECOND,
          reports: [
            { messageId: o.messageId, state: 'Sent', sent: true, error: null },
            { messageId: o.messageId, state: 'Processed', sent: false, error: null },
            { messageId: 'not-ours', state: 'Sent', sent: true, error: null },
          ],
        });
        expect(rec).toEqual({ recorded: 1, unknown: 1 });
        // Still submitting: the worker's own outcome comes first.
        expect(await store.devices.listUnappliedReports(10)).toEqual([]);
        await outcome(c, UNKNOWN);
        const [u] = await store.devices.listUnappliedReports(10);
        expect(u).toMatchObject({
          messageId: o.messageId,
          phoneState: 'Sent',
          sent: true,
          current: true,
          delivery: { deliveryId: c.deliveryId, state: 'unknown', purpose: 'otp' },
        });
        // Another device cannot report this one.
        await store.devices.registerDevice({ login: null, device: device('dev_b', { tokenHash: 'hash-b' }) });
        expect(
          await store.devices.recordReports({ deviceId: 'dev_b', now: T0, reports: [{ messageId: o.messageId, state: 'Failed', sent: false, error: null }] }),
        ).toEqual({ recorded: 0, unknown: 1 });
        // A repeated report of the same state changes nothing.
        expect(
          await store.devices.recordReports({
            deviceId: 'dev_a',
            now: T0 + 2 * SECOND,
            reports: [{ messageId: o.messageId, state: 'Sent', sent: true, error: null }],
          }),
        ).toEqual({ recorded: 0, unknown: 0 });
      });

      it('applies a report with a guarded write and marks it applied in the same transaction', async () => {
        const c = await claimed();
        const o = await offer(c);
        await outcome(c, UNKNOWN);
        await store.devices.recordReports({ deviceId: 'dev_a', now: T0, reports: [{ messageId: o.messageId, state: 'Pending', sent: false, error: null }] });
        const [u] = await store.devices.listUnappliedReports(10);
        const d = await mustGetDelivery(store, c.deliveryId);
        const transition = mustDecide(d, { type: 'evidence', found: true, providerMessageId: o.messageId }, T0 + SECOND);
        const write = {
          offerId: u!.offerId,
          reportSeq: u!.reportSeq,
          deliveryId: d.id,
          transition,
          downstreamStatus: 'accepted' as const,
          providerMessageId: o.messageId,
          lastErrorCode: null,
          resolvesAttempt: 1,
          now: T0 + SECOND,
        };
        // A stale guard: nothing written, the report stays unapplied.
        expect(
          await store.devices.applyReports([{ ...write, expect: { state: 'unknown', leaseVersion: d.leaseVersion + 1, downstreamStatus: null } }]),
        ).toEqual([false]);
        expect(await store.devices.listUnappliedReports(10)).toHaveLength(1);
        expect(await store.devices.applyReports([{ ...write, expect: { state: 'unknown', leaseVersion: d.leaseVersion, downstreamStatus: null } }])).toEqual([
          true,
        ]);
        expect(await store.devices.listUnappliedReports(10)).toEqual([]);
        const after = await store.getNotification(TENANT, d.notificationId);
        expect(after!.deliveries[0]).toMatchObject({ state: 'accepted', downstreamStatus: 'accepted', providerMessageId: o.messageId });
        expect(after!.deliveries[0]!.attempts[0]).toMatchObject({ outcome: 'unknown', resolution: 'callback' });
        // A report that arrived after the applier read it wins: the older write is refused.
        await store.devices.recordReports({
          deviceId: 'dev_a',
          now: T0 + 2 * SECOND,
          reports: [{ messageId: o.messageId, state: 'Sent', sent: true, error: null }],
        });
        expect(await store.devices.applyReports([{ ...write, expect: null, transition: null }])).toEqual([false]);
      });

      it('a not-sent report retries the delivery and records the phone’s error code', async () => {
        const c = await claimed();
        const o = await offer(c);
        await outcome(c, UNKNOWN);
        await store.devices.recordReports({
          deviceId: 'dev_a',
          now: T0,
          reports: [{ messageId: o.messageId, state: 'Failed', sent: false, error: 'RESULT_ERROR_NO_SERVICE' }],
        });
        const [u] = await store.devices.listUnappliedReports(10);
        expect(u).toMatchObject({ phoneState: 'Failed', sent: false, phoneError: 'RESULT_ERROR_NO_SERVICE' });
        const d = await mustGetDelivery(store, c.deliveryId);
        const transition = mustDecide(d, { type: 'not_sent', permanent: false }, T0);
        expect(
          await store.devices.applyReports([
            {
              offerId: u!.offerId,
              reportSeq: u!.reportSeq,
              deliveryId: d.id,
              expect: { state: 'unknown', leaseVersion: d.leaseVersion, downstreamStatus: null },
              transition,
              downstreamStatus: null,
              providerMessageId: null,
              lastErrorCode: 'phone_no_service',
              resolvesAttempt: 1,
              now: T0,
            },
          ]),
        ).toEqual([true]);
        expect(await mustGetDelivery(store, c.deliveryId)).toMatchObject({ state: 'retryable', lastErrorCode: 'phone_no_service', nextAttemptAt: T0 + SECOND });
        expect(await store.devices.deviceLoads(ACCOUNT, T0 - HOUR)).toEqual([{ deviceId: 'dev_a', queueDepth: 0, recentFailures: 1 }]);
      });
    });

    describe('heartbeat sweeps', () => {
      it('picks the device’s failed and unknown deliveries of the window, counts the expired ones, and records a sweep once', async () => {
        await store.devices.registerDevice({ login: null, device: device('dev_b', { tokenHash: 'hash-b' }) });
        // Failed on this phone before sending: retryable.
        const failed = await claimed();
        const of = await offer(failed);
        await outcome(failed, UNKNOWN);
        await store.devices.recordReports({
          deviceId: 'dev_a',
          now: T0,
          reports: [{ messageId: of.messageId, state: 'Failed', sent: false, error: 'RESULT_ERROR_RADIO_OFF' }],
        });
        const df = await mustGetDelivery(store, failed.deliveryId);
        const [u] = await store.devices.listUnappliedReports(10);
        await store.devices.applyReports([
          {
            offerId: u!.offerId,
            reportSeq: u!.reportSeq,
            deliveryId: df.id,
            expect: { state: 'unknown', leaseVersion: df.leaseVersion, downstreamStatus: null },
            transition: mustDecide(df, { type: 'not_sent', permanent: false }, T0),
            downstreamStatus: null,
            providerMessageId: null,
            lastErrorCode: 'phone_radio_off',
            resolvesAttempt: 1,
            now: T0,
          },
        ]);
        // No device online: nothing offered; pinned to dev_b (not this one) and unpinned.
        const pinnedElsewhere = await claimed({ metadata: { herald_device_id: 'dev_b' } });
        await outcome(pinnedElsewhere, { kind: 'retryable', code: 'device_offline', message: 'dev_b is offline' });
        const unpinned = await claimed();
        await outcome(unpinned, { kind: 'retryable', code: 'no_device_online', message: 'no device online' });
        // Pulled, never reported: unknown.
        const unknown = await claimed();
        const ou = await offer(unknown);
        await outcome(unknown, UNKNOWN);
        await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 10, now: T0 });
        // Unknown too, but its code expired.
        const expired = await claimed({ ttlMs: 2 * MINUTE });
        await offer(expired);
        await outcome(expired, UNKNOWN);
        await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 10, now: T0 });

        const now = T0 + 5 * MINUTE;
        const c = await store.devices.sweepCandidates({ deviceId: 'dev_a', providerAccount: ACCOUNT, since: now - 24 * HOUR, now, limit: 100 });
        expect(c.failed.map((f) => f.deliveryId).sort()).toEqual([failed.deliveryId, unpinned.deliveryId].sort());
        expect(c.unknown).toEqual([{ offerId: ou.id, messageId: ou.messageId, deliveryId: unknown.deliveryId }]);
        expect(c.expired).toBe(1);
        // dev_b sees the delivery pinned to it and the unpinned one; not dev_a's phone failure.
        const b = await store.devices.sweepCandidates({ deviceId: 'dev_b', providerAccount: ACCOUNT, since: now - 24 * HOUR, now, limit: 100 });
        expect(b.failed.map((f) => f.deliveryId).sort()).toEqual([pinnedElsewhere.deliveryId, unpinned.deliveryId].sort());

        // The sweep of a return: once; a second sweeper of the same return writes nothing.
        await store.devices.touchDevice({ id: 'dev_a', now, awayMs: AWAY });
        const retries = c.failed.map((f) => ({
          write: {
            deliveryId: f.deliveryId,
            expect: { state: f.state, leaseVersion: f.leaseVersion },
            transition: mustDecide(f, { type: 'replay', acceptDuplicateRisk: false }, now),
            now,
          },
          fromReason: f.terminalReason,
        }));
        const sweep = {
          deviceId: 'dev_a',
          cause: 'return' as const,
          returnedAt: now,
          awaySince: T0,
          finishReturn: true,
          retries,
          reofferIds: c.unknown.map((x) => x.offerId),
          skippedExpired: c.expired,
          requestedBy: 'heartbeat-sweep',
          now,
        };
        const record = await store.devices.recordSweep(sweep);
        expect(record).toMatchObject({
          deviceId: 'dev_a',
          tenantId: TENANT,
          cause: 'return',
          retried: 2,
          reoffered: 1,
          skippedExpired: 1,
          sweptAt: now,
          returnedAt: now,
          awaySince: T0,
        });
        expect(await store.devices.recordSweep(sweep)).toBeNull();
        expect(await store.devices.listReturnedDevices(10)).toEqual([]);
        expect(await mustGetDelivery(store, failed.deliveryId)).toMatchObject({ state: 'ready', nextAttemptAt: now });
        expect((await store.review.listReplays(TENANT, failed.deliveryId))[0]).toMatchObject({
          requestedBy: 'heartbeat-sweep',
          fromState: 'retryable',
          acceptDuplicateRisk: false,
        });
        expect((await store.devices.pullOffers({ deviceId: 'dev_a', order: 'lifo', limit: 10, now })).map((m) => m.messageId)).toEqual([ou.messageId]);
        expect((await store.devices.listSweeps('dev_a', 10)).map((s) => s.id)).toEqual([record!.id]);
        const msgs = await store.devices.listDeviceMessages('dev_a', { phoneState: 'Failed' }, null, 10);
        expect(msgs.map((m) => [m.messageId, m.deliveryState, m.current])).toEqual([[of.messageId, 'ready', true]]);
        expect((await store.devices.listDeliveryOffers(failed.deliveryId)).map((m) => [m.seq, m.messageId, m.phoneState])).toEqual([
          [1, of.messageId, 'Failed'],
        ]);
        expect(await store.devices.listDeliveryOffers('dlv_none')).toEqual([]);
      });
    });
  });
}
