/**
 * The Store conformance suite (River's `riverdrivertest`): every driver runs exactly these
 * tests through the Store contract only, with no SQL and no driver internals. Time is
 * always passed in; nothing sleeps. Each test gets a fresh, migrated, isolated store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decide, decideAtStage, DELIVERY_STATES, type RolloutStage, type SubmitOutcome, type Transition } from '../../src/domain/index.js';
import { StoreConflictError, type ClaimedDelivery, type DeliveryView, type Store, type TransitionResult } from '../../src/store/store.js';
import { HOUR, MINUTE, SECOND, T0, TEST_POLICY, buildNotification, mustDecide, mustGetDelivery, seedDeliveries, type DecisionFacts } from './fixtures.js';

/** What a driver's factory hands the suite for one test. */
export interface StoreFixture {
  /** A migrated store on a database no other test uses. */
  store: Store;
  /** Closes every store opened for this test (peers included) and removes the database. */
  cleanup(): Promise<void>;
  /**
   * Opens another Store on the same database, not migrated, as a second process would.
   * Optional in the type so the factory signature stays `{ store, cleanup }`, but the
   * two-process tests fail without it: every driver is expected to provide it.
   */
  openPeer?(): Promise<Store>;
}

const TENANT = 't_alpha';
const OTHER_TENANT = 't_beta';
const ACCOUNT = 'acct-email';
const LEASE_MS = 30 * SECOND;
const IDEM = { lockMs: MINUTE, retentionMs: 24 * HOUR };

const accepted = (id = 'pm-1'): SubmitOutcome => ({ kind: 'accepted', providerMessageId: id });
const retryable: SubmitOutcome = { kind: 'retryable', code: 'http_503', message: 'service unavailable' };
const permanent: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: 'http_400', message: 'no such mailbox' };
const ambiguous: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no response within 10 s' };

/** What a worker knows from its claim alone: it decides from this, not from a fresh read. */
function claimFacts(c: ClaimedDelivery): DecisionFacts {
  return { state: 'submitting', attemptCount: c.attemptNumber, expiresAt: c.expiresAt, nextAttemptAt: null };
}

/** A worker reporting its call's outcome with its own fencing token. */
async function report(store: Store, c: ClaimedDelivery, outcome: SubmitOutcome, now: number): Promise<TransitionResult> {
  const transition = mustDecide(claimFacts(c), { type: 'outcome', outcome }, now);
  const results = await store.applyTransitions([
    {
      deliveryId: c.deliveryId,
      expect: { state: 'submitting', leaseVersion: c.leaseVersion },
      transition,
      now,
      attempt: { number: c.attemptNumber, outcome },
    },
  ]);
  expect(results).toHaveLength(1);
  return results[0]!;
}

/** The lease rescuer's write for one expired lease, built from what listExpiredLeases returned. */
async function rescue(store: Store, deliveryId: string, now: number): Promise<TransitionResult> {
  const facts = (await store.listExpiredLeases(now, 100)).find((f) => f.deliveryId === deliveryId);
  if (!facts) throw new Error(`${deliveryId} is not an expired lease at ${now}`);
  const transition = mustDecide(facts, { type: 'lease_expired' }, now);
  const [r] = await store.applyTransitions([
    {
      deliveryId,
      expect: { state: facts.state, leaseVersion: facts.leaseVersion },
      transition,
      now,
      attempt: { number: facts.attemptCount, outcome: { kind: 'lease_expired' } },
    },
  ]);
  return r!;
}

async function claim(store: Store, now: number, limit = 10, account = ACCOUNT, workerId = 'w1'): Promise<ClaimedDelivery[]> {
  return store.claimBatch({ providerAccount: account, workerId, now, leaseMs: LEASE_MS, limit });
}

async function claimOne(store: Store, now: number, workerId = 'w1'): Promise<ClaimedDelivery> {
  const claimed = await claim(store, now, 1, ACCOUNT, workerId);
  expect(claimed).toHaveLength(1);
  return claimed[0]!;
}

async function attemptsOf(store: Store, d: DeliveryView) {
  const n = await store.getNotification(d.tenantId, d.notificationId);
  return n!.deliveries.find((x) => x.id === d.id)!.attempts;
}

/** An operator's replay decision for a delivery as read (terminal reason included); throws if refused. */
function replayOf(d: DeliveryView, now: number, acceptDuplicateRisk = false): Transition {
  const decision = decide(
    { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt },
    { type: 'replay', acceptDuplicateRisk },
    { now, policy: TEST_POLICY, random: () => 0.5 },
  );
  if (!decision.ok) throw new Error(`decide refused replay in ${d.state}/${d.terminalReason}: ${decision.reason}`);
  return decision;
}

/** Runs the whole contract against one driver. */
export function storeConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${name}`, () => {
    let fx: StoreFixture;
    let store: Store;

    beforeEach(async () => {
      fx = await makeStore();
      store = fx.store;
      await store.ensureTenant({ id: TENANT, name: 'Alpha' }, T0);
      await store.ensureTenant({ id: OTHER_TENANT, name: 'Beta' }, T0);
    });
    afterEach(async () => {
      await fx.cleanup();
    });

    async function peer(): Promise<Store> {
      if (!fx.openPeer) throw new Error(`${name}: the factory must provide openPeer() for the two-process tests`);
      return fx.openPeer();
    }

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

    describe('idempotency reservations', () => {
      const reserve = (key: string, fingerprint: string, now: number, tenantId = TENANT, o = IDEM) =>
        store.reserveIdempotencyKey({ tenantId, key, fingerprint, now, ...o });

      it('reserves first, then says in_progress for the same body and mismatch for another while locked', async () => {
        expect(await reserve('k1', 'fp1', T0)).toEqual({ kind: 'reserved' });
        expect(await reserve('k1', 'fp1', T0 + SECOND)).toEqual({ kind: 'in_progress' });
        expect(await reserve('k1', 'fp2', T0 + SECOND)).toEqual({ kind: 'mismatch', fingerprint: 'fp1' });
      });

      it('replays the stored status and body after the notification committed with its completion', async () => {
        expect(await reserve('k1', 'fp1', T0)).toEqual({ kind: 'reserved' });
        const n = buildNotification({ tenantId: TENANT });
        const body = { id: n.id, deliveries: n.deliveries.map((d) => ({ id: d.id, state: 'ready' })), note: 'ünïcode ✓' };
        await store.createNotification(n, { tenantId: TENANT, key: 'k1', fingerprint: 'fp1', statusCode: 202, body });
        expect(await reserve('k1', 'fp1', T0 + 2 * MINUTE)).toEqual({ kind: 'replay', statusCode: 202, body });
        expect(await reserve('k1', 'fp2', T0 + 2 * MINUTE)).toEqual({ kind: 'mismatch', fingerprint: 'fp1' });
      });

      it('takes over a lock older than lockMs (its holder crashed), not a younger one', async () => {
        await reserve('k1', 'fp1', T0);
        expect(await reserve('k1', 'fp1', T0 + IDEM.lockMs - 1)).toEqual({ kind: 'in_progress' });
        expect(await reserve('k1', 'fp1', T0 + IDEM.lockMs + 1)).toEqual({ kind: 'reserved' });
        // The new holder's lock is live again.
        expect(await reserve('k1', 'fp1', T0 + IDEM.lockMs + 2)).toEqual({ kind: 'in_progress' });
      });

      it('treats a completed key past retention as a new request', async () => {
        await reserve('k1', 'fp1', T0);
        await store.completeIdempotencyKey({ tenantId: TENANT, key: 'k1', fingerprint: 'fp1', statusCode: 400, body: { error: 'bad' } });
        expect(await reserve('k1', 'fp1', T0 + IDEM.retentionMs - 1)).toEqual({ kind: 'replay', statusCode: 400, body: { error: 'bad' } });
        expect(await reserve('k1', 'fp2', T0 + IDEM.retentionMs + 1)).toEqual({ kind: 'reserved' });
        expect(await reserve('k1', 'fp2', T0 + IDEM.retentionMs + 2)).toEqual({ kind: 'in_progress' });
      });

      it('releaseIdempotencyKey frees an uncompleted key, and never drops a completed one', async () => {
        await reserve('k1', 'fp1', T0);
        await store.releaseIdempotencyKey({ tenantId: TENANT, key: 'k1' });
        expect(await reserve('k1', 'fp2', T0 + SECOND)).toEqual({ kind: 'reserved' });

        await reserve('k2', 'fp1', T0);
        await store.completeIdempotencyKey({ tenantId: TENANT, key: 'k2', fingerprint: 'fp1', statusCode: 201, body: { ok: true } });
        await store.releaseIdempotencyKey({ tenantId: TENANT, key: 'k2' });
        expect(await reserve('k2', 'fp1', T0 + SECOND)).toEqual({ kind: 'replay', statusCode: 201, body: { ok: true } });

        // A null body replays as null, not as a missing response.
        await reserve('k3', 'fp1', T0);
        await store.completeIdempotencyKey({ tenantId: TENANT, key: 'k3', fingerprint: 'fp1', statusCode: 204, body: null });
        expect(await reserve('k3', 'fp1', T0 + SECOND)).toEqual({ kind: 'replay', statusCode: 204, body: null });
      });

      it('pruneIdempotencyKeys removes only completed keys past retention, never in-flight ones', async () => {
        const short = { lockMs: MINUTE, retentionMs: HOUR };
        await reserve('done-old', 'fp', T0, TENANT, short);
        await store.completeIdempotencyKey({ tenantId: TENANT, key: 'done-old', fingerprint: 'fp', statusCode: 202, body: { n: 1 } });
        await reserve('done-new', 'fp', T0 + 2 * HOUR, TENANT, short);
        await store.completeIdempotencyKey({ tenantId: TENANT, key: 'done-new', fingerprint: 'fp', statusCode: 202, body: { n: 2 } });
        // Still locked at prune time although its retention has passed: a slow request in flight.
        await reserve('inflight', 'fp', T0, TENANT, { lockMs: 10 * HOUR, retentionMs: HOUR });

        expect(await store.pruneIdempotencyKeys(T0 + 2 * HOUR + 1)).toBe(1);
        expect(await store.pruneIdempotencyKeys(T0 + 2 * HOUR + 1)).toBe(0);
        expect(await reserve('inflight', 'fp', T0 + 2 * HOUR + 2, TENANT, short)).toEqual({ kind: 'in_progress' });
        expect(await reserve('done-new', 'fp', T0 + 2 * HOUR + 2, TENANT, short)).toEqual({ kind: 'replay', statusCode: 202, body: { n: 2 } });
      });

      it("a request whose lock was taken over cannot complete the newcomer's reservation", async () => {
        expect(await reserve('k1', 'fp-a', T0)).toEqual({ kind: 'reserved' });
        // A stalls past its lock; B, with a different body, takes the key over.
        expect(await reserve('k1', 'fp-b', T0 + IDEM.lockMs + 1)).toEqual({ kind: 'reserved' });
        const a = buildNotification({ tenantId: TENANT });
        await expect(
          store.createNotification(a, { tenantId: TENANT, key: 'k1', fingerprint: 'fp-a', statusCode: 202, body: { id: a.id } }),
        ).rejects.toBeInstanceOf(StoreConflictError);
        expect(await store.getNotification(TENANT, a.id)).toBeNull();
        const b = buildNotification({ tenantId: TENANT });
        await store.createNotification(b, { tenantId: TENANT, key: 'k1', fingerprint: 'fp-b', statusCode: 202, body: { id: b.id } });
        expect(await reserve('k1', 'fp-b', T0 + IDEM.lockMs + 2)).toEqual({ kind: 'replay', statusCode: 202, body: { id: b.id } });
      });

      it('prunes a reservation whose holder died (lock and retention both past)', async () => {
        await reserve('abandoned', 'fp', T0, TENANT, { lockMs: MINUTE, retentionMs: HOUR });
        expect(await store.pruneIdempotencyKeys(T0 + HOUR - 1)).toBe(0);
        expect(await store.pruneIdempotencyKeys(T0 + HOUR)).toBe(1);
      });

      it('keeps the same key of two tenants independent', async () => {
        expect(await reserve('shared', 'fp-a', T0, TENANT)).toEqual({ kind: 'reserved' });
        expect(await reserve('shared', 'fp-b', T0, OTHER_TENANT)).toEqual({ kind: 'reserved' });
        await store.completeIdempotencyKey({ tenantId: TENANT, key: 'shared', fingerprint: 'fp-a', statusCode: 202, body: { tenant: 'a' } });
        expect(await reserve('shared', 'fp-b', T0 + SECOND, OTHER_TENANT)).toEqual({ kind: 'in_progress' });
        await store.releaseIdempotencyKey({ tenantId: OTHER_TENANT, key: 'shared' });
        expect(await reserve('shared', 'fp-a', T0 + SECOND, TENANT)).toEqual({ kind: 'replay', statusCode: 202, body: { tenant: 'a' } });
        expect(await reserve('shared', 'fp-a', T0 + SECOND, OTHER_TENANT)).toEqual({ kind: 'reserved' });
      });
    });

    describe('createNotification', () => {
      it('writes the notification and its ready deliveries, readable by getNotification and listDeliveries', async () => {
        const n = buildNotification({
          tenantId: TENANT,
          purpose: 'otp',
          groupKey: 'login-42',
          generation: 2,
          deliveries: [
            { channel: 'sms', providerAccount: 'acct-sms' },
            { channel: 'email', providerAccount: ACCOUNT },
          ],
        });
        await store.createNotification(n);

        const view = await store.getNotification(TENANT, n.id);
        expect(view).toMatchObject({
          id: n.id,
          tenantId: TENANT,
          recipientId: n.recipient.id,
          purpose: 'otp',
          channels: ['sms', 'email'],
          groupKey: 'login-42',
          generation: 2,
          metadata: n.metadata,
          expiresAt: n.expiresAt,
          createdAt: n.createdAt,
        });
        expect(view!.deliveries.map((d) => d.id)).toEqual(n.deliveries.map((d) => d.id));
        n.deliveries.forEach((planned, i) => {
          expect(view!.deliveries[i]).toEqual({
            id: planned.id,
            notificationId: n.id,
            tenantId: TENANT,
            channel: planned.channel,
            purpose: 'otp',
            providerAccount: planned.providerAccount,
            idempotencyKey: planned.idempotencyKey,
            state: 'ready',
            terminalReason: null,
            downstreamStatus: null,
            providerMessageId: null,
            attemptCount: 0,
            leaseVersion: 0,
            nextAttemptAt: expect.any(Number),
            expiresAt: n.expiresAt,
            lastErrorCode: null,
            createdAt: n.createdAt,
            updatedAt: n.createdAt,
            attempts: [],
          });
        });
        // Claimable from the moment it was created.
        expect(view!.deliveries[0]!.nextAttemptAt).toBeLessThanOrEqual(n.createdAt);

        const page = await store.listDeliveries(TENANT, {}, null, 10);
        expect(page.items.map((d) => d.id).sort()).toEqual(n.deliveries.map((d) => d.id).sort());
        const { attempts: _attempts, ...first } = view!.deliveries[0]!;
        expect(await store.getDelivery(n.deliveries[0]!.id)).toEqual(first);
      });

      it('stores a null metadata as null', async () => {
        const n = buildNotification({ tenantId: TENANT, metadata: null });
        await store.createNotification(n);
        expect((await store.getNotification(TENANT, n.id))!.metadata).toBeNull();
      });

      it('hides a notification from another tenant, and returns null for an unknown id', async () => {
        const n = buildNotification({ tenantId: TENANT });
        await store.createNotification(n);
        expect(await store.getNotification(OTHER_TENANT, n.id)).toBeNull();
        expect(await store.getNotification(TENANT, 'ntf_missing')).toBeNull();
        expect(await store.getDelivery('dlv_missing')).toBeNull();
      });

      it('refuses a second notification reusing a delivery key with StoreConflictError and keeps nothing of it', async () => {
        const first = buildNotification({ tenantId: TENANT, groupKey: 'g', generation: 1 });
        await store.createNotification(first);
        // Same identity on email (conflicts) plus a fresh sms delivery that must not survive either.
        const second = buildNotification({
          tenantId: TENANT,
          recipientId: first.recipient.id,
          groupKey: 'g',
          generation: 1,
          deliveries: [
            { channel: 'sms', providerAccount: 'acct-sms' },
            { channel: 'email', providerAccount: ACCOUNT },
          ],
        });
        expect(second.deliveries[1]!.idempotencyKey).toBe(first.deliveries[0]!.idempotencyKey);

        const err = await store.createNotification(second).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StoreConflictError);
        expect((err as StoreConflictError).code).toBe('store_conflict');

        expect(await store.getNotification(TENANT, second.id)).toBeNull();
        for (const d of second.deliveries) expect(await store.getDelivery(d.id)).toBeNull();
        expect((await store.listDeliveries(TENANT, {}, null, 10)).items.map((d) => d.id)).toEqual([first.deliveries[0]!.id]);
        expect(await store.countByState()).toMatchObject({ ready: 1 });
        expect(await claim(store, T0, 10, 'acct-sms')).toEqual([]);
      });

      it('rolls the whole notification back when its idempotency completion fails', async () => {
        const unreserved = buildNotification({ tenantId: TENANT });
        await expect(
          store.createNotification(unreserved, { tenantId: TENANT, key: 'never-reserved', fingerprint: 'fp', statusCode: 202, body: {} }),
        ).rejects.toThrow();
        expect(await store.getNotification(TENANT, unreserved.id)).toBeNull();
        expect(await store.getDelivery(unreserved.deliveries[0]!.id)).toBeNull();

        // A key that already completed cannot be completed by a second notification either.
        await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'k1', fingerprint: 'fp', now: T0, ...IDEM });
        const winner = buildNotification({ tenantId: TENANT });
        await store.createNotification(winner, { tenantId: TENANT, key: 'k1', fingerprint: 'fp', statusCode: 202, body: { id: winner.id } });
        const loser = buildNotification({ tenantId: TENANT });
        await expect(
          store.createNotification(loser, { tenantId: TENANT, key: 'k1', fingerprint: 'fp', statusCode: 202, body: { id: loser.id } }),
        ).rejects.toThrow();
        expect(await store.getNotification(TENANT, loser.id)).toBeNull();
        expect(await store.getDelivery(loser.deliveries[0]!.id)).toBeNull();
        expect(await store.reserveIdempotencyKey({ tenantId: TENANT, key: 'k1', fingerprint: 'fp', now: T0 + SECOND, ...IDEM })).toEqual({
          kind: 'replay',
          statusCode: 202,
          body: { id: winner.id },
        });
        expect(await store.countByState()).toMatchObject({ ready: 1 });
      });
    });

    describe('listDeliveries', () => {
      it('walks 25 deliveries newest first in pages of 10, each exactly once', async () => {
        const ids = await seedDeliveries(store, { tenantId: TENANT, count: 25, providerAccount: ACCOUNT });
        const seen: DeliveryView[] = [];
        const sizes: number[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < 10; page++) {
          const p = await store.listDeliveries(TENANT, {}, cursor, 10);
          sizes.push(p.items.length);
          seen.push(...p.items);
          cursor = p.nextCursor;
          if (cursor === null) break;
        }
        expect(cursor).toBeNull();
        expect(sizes).toEqual([10, 10, 5]);
        expect(seen.map((d) => d.id)).toEqual([...ids].reverse());
        const created = seen.map((d) => d.createdAt);
        expect(created).toEqual([...created].sort((a, b) => b - a));
      });

      it('says the last page is last when the items divide evenly', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 20, providerAccount: ACCOUNT });
        const p1 = await store.listDeliveries(TENANT, {}, null, 10);
        expect(p1.nextCursor).not.toBeNull();
        const p2 = await store.listDeliveries(TENANT, {}, p1.nextCursor, 10);
        expect(p2.items).toHaveLength(10);
        expect(p2.nextCursor).toBeNull();
      });

      it('filters by state, channel and purpose, also combined and across pages', async () => {
        const email = await seedDeliveries(store, { tenantId: TENANT, count: 6, providerAccount: ACCOUNT, channel: 'email', purpose: 'marketing' });
        const sms = await seedDeliveries(store, { tenantId: TENANT, count: 4, providerAccount: 'acct-sms', channel: 'sms', purpose: 'otp' });
        const claimed = (await claim(store, T0 + HOUR / 2, 2)).map((c) => c.deliveryId);
        expect(claimed).toHaveLength(2);

        const all = async (filter: Parameters<Store['listDeliveries']>[1]) => {
          const out: string[] = [];
          let cursor: string | null = null;
          do {
            const p: Awaited<ReturnType<Store['listDeliveries']>> = await store.listDeliveries(TENANT, filter, cursor, 3);
            out.push(...p.items.map((d) => d.id));
            cursor = p.nextCursor;
          } while (cursor !== null);
          return out.sort();
        };
        expect(await all({ channel: 'sms' })).toEqual([...sms].sort());
        expect(await all({ purpose: 'marketing' })).toEqual([...email].sort());
        expect(await all({ state: 'submitting' })).toEqual([...claimed].sort());
        expect(await all({ state: 'ready', channel: 'email' })).toEqual(email.filter((id) => !claimed.includes(id)).sort());
        expect(await all({ state: 'ready', purpose: 'otp' })).toEqual([...sms].sort());
        expect(await all({ state: 'terminal' })).toEqual([]);
        expect(await all({ channel: 'push' })).toEqual([]);
      });

      it('lists only the asking tenant', async () => {
        const mine = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: ACCOUNT });
        const theirs = await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 4, providerAccount: ACCOUNT });
        expect((await store.listDeliveries(TENANT, {}, null, 50)).items.map((d) => d.id).sort()).toEqual([...mine].sort());
        expect((await store.listDeliveries(OTHER_TENANT, {}, null, 50)).items.map((d) => d.id).sort()).toEqual([...theirs].sort());
        expect((await store.listDeliveries('t_nobody', {}, null, 50)).items).toEqual([]);
      });
    });

    describe('claimBatch', () => {
      it('claims only due, unexpired, ready deliveries of the account, up to the limit, each once', async () => {
        const now = T0 + 10 * SECOND;
        const due = await seedDeliveries(store, { tenantId: TENANT, count: 5, providerAccount: ACCOUNT });
        await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: 'acct-other' });
        // Created after `now`: not due yet.
        const later = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: now + 1 });
        // Expired before `now`.
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0, ttlMs: 5 * SECOND });

        const first = await claim(store, now, 3, ACCOUNT, 'worker-1');
        expect(first).toHaveLength(3);
        const second = await claim(store, now, 10, ACCOUNT, 'worker-2');
        expect(second).toHaveLength(2);
        expect(await claim(store, now, 10)).toEqual([]);
        const ids = [...first, ...second].map((c) => c.deliveryId);
        expect(new Set(ids).size).toBe(5);
        expect([...ids].sort()).toEqual([...due].sort());

        for (const c of first) {
          expect(c).toMatchObject({ providerAccount: ACCOUNT, tenantId: TENANT, attemptNumber: 1, leaseVersion: 1, leaseUntil: now + LEASE_MS });
          const d = await mustGetDelivery(store, c.deliveryId);
          expect(d).toMatchObject({ state: 'submitting', attemptCount: 1, leaseVersion: 1, updatedAt: now });
          expect(c).toMatchObject({
            notificationId: d.notificationId,
            channel: d.channel,
            purpose: d.purpose,
            idempotencyKey: d.idempotencyKey,
            expiresAt: d.expiresAt,
            destination: 'ada@example.test',
            content: { subject: `Subject ${d.notificationId}`, text: `Body of ${d.notificationId}`, html: null },
          });
          expect(await attemptsOf(store, d)).toEqual([
            {
              number: 1,
              startedAt: now,
              finishedAt: null,
              outcome: null,
              providerMessageId: null,
              errorCode: null,
              errorMessage: null,
              retryAfterMs: null,
              workerId: 'worker-1',
              lateOutcome: null,
              ambiguityPolicy: null,
              resolution: null,
              decision: null,
              nextStageDecision: null,
            },
          ]);
        }
        expect((await claim(store, now + 1, 10)).map((c) => c.deliveryId)).toEqual(later);
      });

      it('never claims a delivery at its expires_at, and does one just before', async () => {
        const [a] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, ttlMs: MINUTE });
        const [b] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-b', ttlMs: MINUTE, createdAt: T0 });
        expect(await claim(store, T0 + MINUTE, 10, ACCOUNT)).toEqual([]);
        expect((await mustGetDelivery(store, a!)).state).toBe('ready');
        expect((await claim(store, T0 + MINUTE - 1, 10, 'acct-b')).map((c) => c.deliveryId)).toEqual([b]);
      });

      it('never reclaims a submitting delivery, even after its lease ran out', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
        const c = await claimOne(store, T0);
        expect(await claim(store, c.leaseUntil + MINUTE)).toEqual([]);
        expect(await rescue(store, c.deliveryId, c.leaseUntil + MINUTE)).toEqual({ deliveryId: c.deliveryId, applied: true });
        // An expired lease becomes unknown, never ready: the call may have happened.
        expect(await claim(store, c.leaseUntil + 2 * MINUTE)).toEqual([]);
        expect((await mustGetDelivery(store, c.deliveryId)).state).toBe('unknown');
      });

      it('lets two store instances claiming in interleaved batches never share a delivery', async () => {
        const other = await peer();
        await other.migrate();
        const all = await seedDeliveries(store, { tenantId: TENANT, count: 200, providerAccount: ACCOUNT, ttlMs: 2 * HOUR });
        const now = T0 + HOUR;
        const byA: string[] = [];
        const byB: string[] = [];
        for (let round = 0; round < 100; round++) {
          const [a, b] = await Promise.all([claim(store, now, 7, ACCOUNT, 'A'), claim(other, now, 7, ACCOUNT, 'B')]);
          byA.push(...a.map((c) => c.deliveryId));
          byB.push(...b.map((c) => c.deliveryId));
          if (a.length === 0 && b.length === 0) break;
        }
        expect(byA.length).toBeGreaterThan(0);
        expect(byB.length).toBeGreaterThan(0);
        expect(byA.length + byB.length).toBe(200);
        expect(new Set([...byA, ...byB]).size).toBe(200);
        expect([...byA, ...byB].sort()).toEqual([...all].sort());
        expect(byA.filter((id) => byB.includes(id))).toEqual([]);
        expect(await store.countByState()).toMatchObject({ submitting: 200, ready: 0 });
        for (const id of all) expect((await mustGetDelivery(other, id)).leaseVersion).toBe(1);
      });
    });

    describe('applyTransitions', () => {
      beforeEach(async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
      });

      it('applies accepted: downstream accepted, provider id kept, attempt closed', async () => {
        const c = await claimOne(store, T0);
        expect(await report(store, c, accepted('pm-42'), T0 + 2 * SECOND)).toEqual({ deliveryId: c.deliveryId, applied: true });
        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d).toMatchObject({
          state: 'accepted',
          downstreamStatus: 'accepted',
          providerMessageId: 'pm-42',
          terminalReason: null,
          leaseVersion: 1,
          attemptCount: 1,
          updatedAt: T0 + 2 * SECOND,
        });
        expect(await attemptsOf(store, d)).toEqual([
          expect.objectContaining({ number: 1, finishedAt: T0 + 2 * SECOND, outcome: 'accepted', providerMessageId: 'pm-42', lateOutcome: null }),
        ]);
        expect(await claim(store, T0 + HOUR / 2)).toEqual([]);
      });

      it('rejects a write with a stale lease version or a wrong expected state and changes nothing', async () => {
        const c = await claimOne(store, T0);
        const before = await mustGetDelivery(store, c.deliveryId);
        const attemptsBefore = await attemptsOf(store, before);
        const transition = mustDecide(claimFacts(c), { type: 'outcome', outcome: accepted() }, T0 + SECOND);
        const write = (state: DeliveryView['state'], leaseVersion: number) => ({
          deliveryId: c.deliveryId,
          expect: { state, leaseVersion },
          transition,
          now: T0 + SECOND,
          attempt: { number: 1, outcome: accepted() },
        });
        expect(await store.applyTransitions([write('submitting', 0), write('submitting', 2), write('ready', 1), write('unknown', 1)])).toEqual(
          [0, 1, 2, 3].map(() => ({ deliveryId: c.deliveryId, applied: false })),
        );
        expect(await mustGetDelivery(store, c.deliveryId)).toEqual(before);
        expect(await attemptsOf(store, before)).toEqual(attemptsBefore);
        expect(await store.applyTransitions([])).toEqual([]);
      });

      it('reports each write of a batch separately, in order', async () => {
        const [second] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + SECOND });
        const [c1, c2] = await claim(store, T0 + SECOND, 2);
        expect(c2!.deliveryId).toBe(second);
        const ok = mustDecide(claimFacts(c1!), { type: 'outcome', outcome: ambiguous }, T0 + 2 * SECOND);
        const results = await store.applyTransitions([
          {
            deliveryId: c1!.deliveryId,
            expect: { state: 'submitting', leaseVersion: 1 },
            transition: ok,
            now: T0 + 2 * SECOND,
            attempt: { number: 1, outcome: ambiguous },
          },
          {
            deliveryId: c2!.deliveryId,
            expect: { state: 'submitting', leaseVersion: 9 },
            transition: ok,
            now: T0 + 2 * SECOND,
            attempt: { number: 1, outcome: ambiguous },
          },
        ]);
        expect(results).toEqual([
          { deliveryId: c1!.deliveryId, applied: true },
          { deliveryId: c2!.deliveryId, applied: false },
        ]);
        expect((await mustGetDelivery(store, c1!.deliveryId)).state).toBe('unknown');
        expect((await mustGetDelivery(store, c2!.deliveryId)).state).toBe('submitting');
      });

      it('applies a batch all or nothing: a write the schema refuses undoes the others', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + SECOND });
        const [c1, c2] = await claim(store, T0 + SECOND, 2);
        const good = mustDecide(claimFacts(c1!), { type: 'outcome', outcome: accepted() }, T0 + 2 * SECOND);
        // A terminal transition without its reason: a programming error, refused by "terminal iff reason".
        const broken: Transition = { ...mustDecide(claimFacts(c2!), { type: 'outcome', outcome: permanent }, T0 + 2 * SECOND), terminalReason: null };
        const before = await Promise.all([c1!, c2!].map((c) => mustGetDelivery(store, c.deliveryId)));
        await expect(
          store.applyTransitions([
            {
              deliveryId: c1!.deliveryId,
              expect: { state: 'submitting', leaseVersion: 1 },
              transition: good,
              now: T0 + 2 * SECOND,
              attempt: { number: 1, outcome: accepted() },
            },
            {
              deliveryId: c2!.deliveryId,
              expect: { state: 'submitting', leaseVersion: 1 },
              transition: broken,
              now: T0 + 2 * SECOND,
              attempt: { number: 1, outcome: permanent },
            },
          ]),
        ).rejects.toThrow();
        expect(await Promise.all([c1!, c2!].map((c) => mustGetDelivery(store, c.deliveryId)))).toEqual(before);
        expect((await attemptsOf(store, before[0]!))[0]).toMatchObject({ outcome: null, finishedAt: null });
      });

      it('fences a paused worker: lease expires, rescuer moves it to unknown, the late accepted write is rejected', async () => {
        const c = await claimOne(store, T0, 'slow-worker');
        expect(c.leaseVersion).toBe(1);
        const expiry = c.leaseUntil;
        expect((await store.listExpiredLeases(expiry, 10)).map((f) => f.deliveryId)).toEqual([c.deliveryId]);
        expect(await rescue(store, c.deliveryId, expiry)).toEqual({ deliveryId: c.deliveryId, applied: true });

        const afterRescue = await mustGetDelivery(store, c.deliveryId);
        expect(afterRescue).toMatchObject({
          state: 'unknown',
          leaseVersion: 1,
          downstreamStatus: null,
          providerMessageId: null,
          lastErrorCode: 'lease_expired',
        });
        expect(await attemptsOf(store, afterRescue)).toEqual([
          expect.objectContaining({ number: 1, outcome: 'lease_expired', errorCode: 'lease_expired', finishedAt: expiry, workerId: 'slow-worker' }),
        ]);
        expect(await store.listExpiredLeases(expiry + HOUR, 10)).toEqual([]);

        // The worker wakes up and reports what the provider said, with its old token.
        expect(await report(store, c, accepted('pm-late'), expiry + 5 * SECOND)).toEqual({ deliveryId: c.deliveryId, applied: false });
        expect(await mustGetDelivery(store, c.deliveryId)).toEqual(afterRescue);

        // What it learned is kept as evidence on the attempt; the state does not move.
        await store.recordLateOutcome({ deliveryId: c.deliveryId, attemptNumber: c.attemptNumber, outcome: accepted('pm-late') });
        expect(await mustGetDelivery(store, c.deliveryId)).toEqual(afterRescue);
        expect(await attemptsOf(store, afterRescue)).toEqual([
          expect.objectContaining({ number: 1, outcome: 'lease_expired', lateOutcome: 'accepted', providerMessageId: 'pm-late' }),
        ]);
      });

      it('fences by version, not only by state: a reclaimed delivery refuses the first lease holder', async () => {
        const c1 = await claimOne(store, T0, 'w1');
        await rescue(store, c1.deliveryId, c1.leaseUntil);
        // Reconciliation: the provider authoritatively has no such message, so another attempt is allowed.
        const unknown = await mustGetDelivery(store, c1.deliveryId);
        const now = c1.leaseUntil + SECOND;
        const retry = mustDecide(unknown, { type: 'evidence', found: false, authoritative: true, windowClosed: false }, now);
        expect(retry.to).toBe('retryable');
        expect(await store.applyTransitions([{ deliveryId: c1.deliveryId, expect: { state: 'unknown', leaseVersion: 1 }, transition: retry, now }])).toEqual([
          { deliveryId: c1.deliveryId, applied: true },
        ]);
        const c2 = await claimOne(store, retry.nextAttemptAt!, 'w2');
        expect(c2).toMatchObject({ deliveryId: c1.deliveryId, attemptNumber: 2, leaseVersion: 2 });

        // w1 resumes: the row is `submitting` again, but under w2's lease.
        expect(await report(store, c1, accepted('pm-w1'), c2.leaseUntil - SECOND)).toEqual({ deliveryId: c1.deliveryId, applied: false });
        expect(await mustGetDelivery(store, c1.deliveryId)).toMatchObject({ state: 'submitting', leaseVersion: 2, providerMessageId: null });
        expect(await report(store, c2, accepted('pm-w2'), c2.leaseUntil - SECOND)).toEqual({ deliveryId: c1.deliveryId, applied: true });
        const d = await mustGetDelivery(store, c1.deliveryId);
        expect(d).toMatchObject({ state: 'accepted', providerMessageId: 'pm-w2' });
        expect((await attemptsOf(store, d)).map((a) => [a.number, a.outcome, a.workerId])).toEqual([
          [1, 'lease_expired', 'w1'],
          [2, 'accepted', 'w2'],
        ]);
      });

      it('schedules a retry: claimable again only at next_attempt_at, as attempt 2 with lease version 2', async () => {
        const c = await claimOne(store, T0);
        const now = T0 + 3 * SECOND;
        expect((await report(store, c, retryable, now)).applied).toBe(true);
        const d = await mustGetDelivery(store, c.deliveryId);
        // TEST_POLICY: 1 s after the first attempt, no jitter.
        expect(d).toMatchObject({ state: 'retryable', nextAttemptAt: now + SECOND, lastErrorCode: 'http_503', attemptCount: 1, leaseVersion: 1 });
        expect(await attemptsOf(store, d)).toEqual([
          expect.objectContaining({ number: 1, outcome: 'retryable', errorCode: 'http_503', errorMessage: 'service unavailable', finishedAt: now }),
        ]);
        expect(await store.nextDueAt(ACCOUNT, now)).toBe(now + SECOND);

        expect(await claim(store, now + SECOND - 1)).toEqual([]);
        const again = await claimOne(store, now + SECOND);
        expect(again).toMatchObject({ deliveryId: c.deliveryId, attemptNumber: 2, leaseVersion: 2 });
        const attempts = await attemptsOf(store, d);
        expect(attempts.map((a) => [a.number, a.outcome])).toEqual([
          [1, 'retryable'],
          [2, null],
        ]);
        expect(await store.nextDueAt(ACCOUNT, now + SECOND)).toBeNull();
      });

      it('honours a throttle Retry-After as the earliest next attempt and records it', async () => {
        const c = await claimOne(store, T0);
        const throttled: SubmitOutcome = { kind: 'throttled', code: 'http_429', message: 'slow down', retryAfterMs: 30 * SECOND };
        expect((await report(store, c, throttled, T0 + SECOND)).applied).toBe(true);
        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d.state).toBe('retryable');
        expect(d.nextAttemptAt).toBeGreaterThanOrEqual(T0 + 31 * SECOND);
        expect(await attemptsOf(store, d)).toEqual([expect.objectContaining({ outcome: 'throttled', retryAfterMs: 30 * SECOND })]);
        expect(await claim(store, T0 + 31 * SECOND - 1)).toEqual([]);
      });

      it('ends in terminal with the reason: rejected on a permanent error, exhausted after the last attempt', async () => {
        const c = await claimOne(store, T0);
        expect((await report(store, c, permanent, T0 + SECOND)).applied).toBe(true);
        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d).toMatchObject({ state: 'terminal', terminalReason: 'rejected', nextAttemptAt: null, lastErrorCode: 'http_400' });
        expect(await attemptsOf(store, d)).toEqual([expect.objectContaining({ outcome: 'permanent', errorCode: 'http_400' })]);

        const [other] = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + SECOND });
        let now = T0 + SECOND;
        for (let attempt = 1; attempt <= 3; attempt++) {
          const ci = await claimOne(store, now);
          expect(ci).toMatchObject({ deliveryId: other, attemptNumber: attempt, leaseVersion: attempt });
          expect((await report(store, ci, retryable, now)).applied).toBe(true);
          now = (await mustGetDelivery(store, other!)).nextAttemptAt ?? now;
        }
        expect(await mustGetDelivery(store, other!)).toMatchObject({ state: 'terminal', terminalReason: 'exhausted', attemptCount: 3 });
        expect(await store.countByState()).toMatchObject({ terminal: 2 });
      });

      it('moves an ambiguous outcome to unknown, which is neither claimable nor a lease to rescue', async () => {
        const c = await claimOne(store, T0);
        expect((await report(store, c, ambiguous, T0 + SECOND)).applied).toBe(true);
        expect(await mustGetDelivery(store, c.deliveryId)).toMatchObject({ state: 'unknown', lastErrorCode: 'timeout' });
        expect(await claim(store, T0 + HOUR / 2)).toEqual([]);
        expect(await store.listExpiredLeases(T0 + HOUR / 2, 10)).toEqual([]);
        expect(await store.nextDueAt(ACCOUNT, T0 + HOUR / 2)).toBeNull();

        const evidence = mustDecide(await mustGetDelivery(store, c.deliveryId), { type: 'evidence', found: true, providerMessageId: 'pm-found' }, T0 + MINUTE);
        expect(
          await store.applyTransitions([{ deliveryId: c.deliveryId, expect: { state: 'unknown', leaseVersion: 1 }, transition: evidence, now: T0 + MINUTE }]),
        ).toEqual([{ deliveryId: c.deliveryId, applied: true }]);
        expect(await mustGetDelivery(store, c.deliveryId)).toMatchObject({ state: 'accepted', downstreamStatus: 'accepted', providerMessageId: 'pm-found' });
      });

      it('cancels a ready delivery without an attempt', async () => {
        const [id] = (await store.listDeliveries(TENANT, {}, null, 1)).items.map((d) => d.id);
        const d = await mustGetDelivery(store, id!);
        const cancel = mustDecide(d, { type: 'cancel' }, T0 + SECOND);
        expect(await store.applyTransitions([{ deliveryId: d.id, expect: { state: 'ready', leaseVersion: 0 }, transition: cancel, now: T0 + SECOND }])).toEqual(
          [{ deliveryId: d.id, applied: true }],
        );
        const after = await mustGetDelivery(store, d.id);
        expect(after).toMatchObject({ state: 'terminal', terminalReason: 'cancelled', attemptCount: 0 });
        expect(await attemptsOf(store, after)).toEqual([]);
        expect(await claim(store, T0 + 2 * SECOND)).toEqual([]);
      });
    });

    describe('sweeper queries', () => {
      it('listExpiredLeases: lease_until == now is expired, just before is not; limit respected', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: ACCOUNT });
        const claimed = [await claimOne(store, T0 + 10 * SECOND), await claimOne(store, T0 + 20 * SECOND), await claimOne(store, T0 + 30 * SECOND)];
        const [l1, l2, l3] = claimed.map((c) => c.leaseUntil) as [number, number, number];
        expect(await store.listExpiredLeases(l1 - 1, 10)).toEqual([]);
        const atL1 = await store.listExpiredLeases(l1, 10);
        expect(atL1).toHaveLength(1);
        expect(atL1[0]).toMatchObject({
          deliveryId: claimed[0]!.deliveryId,
          state: 'submitting',
          attemptCount: 1,
          leaseVersion: 1,
          expiresAt: claimed[0]!.expiresAt,
        });
        expect((await store.listExpiredLeases(l2, 10)).map((f) => f.deliveryId).sort()).toEqual([claimed[0]!, claimed[1]!].map((c) => c.deliveryId).sort());
        expect(await store.listExpiredLeases(l3, 2)).toHaveLength(2);
        expect((await store.listExpiredLeases(l3, 10)).map((f) => f.deliveryId).sort()).toEqual(claimed.map((c) => c.deliveryId).sort());
      });

      it('listExpiredPending: expires_at == now is expired, just before is not; only ready/retryable; limit respected', async () => {
        const ready = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: ACCOUNT, ttlMs: MINUTE });
        const [e1, e2, e3] = [T0 + MINUTE, T0 + MINUTE + SECOND, T0 + MINUTE + 2 * SECOND];
        // On another account, expiring at the same three times: one goes retryable, one unknown, one stays submitting.
        const more = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'acct-x', ttlMs: MINUTE, createdAt: T0 });
        const cx = await claim(store, T0 + 2 * SECOND, 10, 'acct-x');
        expect(cx).toHaveLength(3);
        const byId = new Map(cx.map((c) => [c.deliveryId, c]));
        await report(store, byId.get(more[0]!)!, retryable, T0 + 3 * SECOND);
        await report(store, byId.get(more[1]!)!, ambiguous, T0 + 3 * SECOND);

        expect(await store.listExpiredPending(e1 - 1, 10)).toEqual([]);
        const atE1 = await store.listExpiredPending(e1, 10);
        expect(atE1.map((f) => f.deliveryId).sort()).toEqual([ready[0]!, more[0]!].sort());
        expect(atE1.find((f) => f.deliveryId === more[0])).toMatchObject({ state: 'retryable', attemptCount: 1, leaseVersion: 1, expiresAt: e1 });
        expect(atE1.find((f) => f.deliveryId === ready[0])).toMatchObject({ state: 'ready', attemptCount: 0, leaseVersion: 0, expiresAt: e1 });
        expect((await store.listExpiredPending(e2, 10)).map((f) => f.deliveryId).sort()).toEqual([ready[0]!, ready[1]!, more[0]!].sort());
        expect(await store.listExpiredPending(e3, 2)).toHaveLength(2);
        expect(await store.listExpiredPending(e3, 10)).toHaveLength(4);

        // The expiry sweep writes what decide says, guarded like any other transition.
        const facts = atE1.find((f) => f.deliveryId === ready[0])!;
        const t = mustDecide(facts, { type: 'expire' }, e1);
        expect(
          await store.applyTransitions([
            { deliveryId: facts.deliveryId, expect: { state: facts.state, leaseVersion: facts.leaseVersion }, transition: t, now: e1 },
          ]),
        ).toEqual([{ deliveryId: facts.deliveryId, applied: true }]);
        expect(await mustGetDelivery(store, facts.deliveryId)).toMatchObject({ state: 'terminal', terminalReason: 'expired' });
        expect((await store.listExpiredPending(e1, 10)).map((f) => f.deliveryId)).toEqual([more[0]]);
      });

      it('nextDueAt: earliest next attempt among the account’s claimable, unexpired deliveries, or null', async () => {
        expect(await store.nextDueAt(ACCOUNT, T0)).toBeNull();
        await seedDeliveries(store, { tenantId: TENANT, count: 2, providerAccount: ACCOUNT, createdAt: T0 + 5 * SECOND });
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-other', createdAt: T0 });
        // The answer may lie in the past (overdue) or the future (not yet due).
        expect(await store.nextDueAt(ACCOUNT, T0)).toBe(T0 + 5 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + MINUTE)).toBe(T0 + 5 * SECOND);
        expect(await store.nextDueAt('acct-other', T0)).toBe(T0);
        const c = await claimOne(store, T0 + 5 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 5 * SECOND)).toBe(T0 + 6 * SECOND);
        await claimOne(store, T0 + 6 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 6 * SECOND)).toBeNull();
        await report(store, c, retryable, T0 + 7 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 7 * SECOND)).toBe(T0 + 8 * SECOND);
      });

      it('nextDueAt leaves out deliveries at or past expiry: they wait for the sweeper, not a claim', async () => {
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0, ttlMs: MINUTE });
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + 10 * SECOND, ttlMs: HOUR });
        expect(await store.nextDueAt(ACCOUNT, T0 + MINUTE - 1)).toBe(T0);
        expect(await store.nextDueAt(ACCOUNT, T0 + MINUTE)).toBe(T0 + 10 * SECOND);
        expect(await store.nextDueAt(ACCOUNT, T0 + 10 * SECOND + HOUR)).toBeNull();
      });

      it('countByState: every state, zero included', async () => {
        const empty = await store.countByState();
        expect(Object.keys(empty).sort()).toEqual([...DELIVERY_STATES].sort());
        expect(Object.values(empty).every((n) => n === 0)).toBe(true);

        await seedDeliveries(store, { tenantId: TENANT, count: 5, providerAccount: ACCOUNT });
        await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: ACCOUNT, createdAt: T0 + 10 * SECOND });
        const [a, b, c] = await claim(store, T0 + 4 * SECOND, 3);
        await report(store, a!, accepted(), T0 + 5 * SECOND);
        await report(store, b!, permanent, T0 + 5 * SECOND);
        expect(c).toBeDefined();
        expect(await store.countByState()).toEqual({ ready: 3, submitting: 1, accepted: 1, unknown: 0, retryable: 0, terminal: 1 });
      });
    });

    describe('review queue and replays', () => {
      const UNKNOWN_AFTER = 15 * MINUTE;

      /**
       * One delivery per end state, each on its own account (so claims pick exactly it), created
       * one second apart in this order: ids (ULIDs) sort the same way.
       */
      async function seedEndStates() {
        const kinds = ['rejected', 'exhausted', 'unresolved', 'unknown', 'accepted', 'cancelled', 'ready'] as const;
        const ids = {} as Record<(typeof kinds)[number], string>;
        for (const [i, kind] of kinds.entries()) {
          const [id] = await seedDeliveries(store, {
            tenantId: TENANT,
            count: 1,
            providerAccount: `acct-${kind}`,
            createdAt: T0 + i * SECOND,
            ttlMs: 2 * HOUR,
          });
          ids[kind] = id!;
        }
        const now = T0 + 10 * SECOND;
        const one = async (kind: string, at = now) => {
          const [c] = await claim(store, at, 1, `acct-${kind}`);
          expect(c).toBeDefined();
          return c!;
        };
        expect((await report(store, await one('rejected'), permanent, now)).applied).toBe(true);
        let at = now;
        for (let i = 0; i < TEST_POLICY.maxAttempts; i++) {
          expect((await report(store, await one('exhausted', at), retryable, at)).applied).toBe(true);
          at = (await mustGetDelivery(store, ids.exhausted)).nextAttemptAt ?? at;
        }
        expect((await report(store, await one('unresolved'), ambiguous, now)).applied).toBe(true);
        const unresolved = mustDecide(
          await mustGetDelivery(store, ids.unresolved),
          { type: 'evidence', found: false, authoritative: false, windowClosed: true },
          now,
        );
        expect(
          await store.applyTransitions([{ deliveryId: ids.unresolved, expect: { state: 'unknown', leaseVersion: 1 }, transition: unresolved, now }]),
        ).toEqual([{ deliveryId: ids.unresolved, applied: true }]);
        expect((await report(store, await one('unknown'), ambiguous, now)).applied).toBe(true);
        expect((await report(store, await one('accepted'), accepted(), now)).applied).toBe(true);
        const cancel = mustDecide(await mustGetDelivery(store, ids.cancelled), { type: 'cancel' }, now);
        await store.applyTransitions([{ deliveryId: ids.cancelled, expect: { state: 'ready', leaseVersion: 0 }, transition: cancel, now }]);
        return { ids, now };
      }

      it('listReview: exhausted, rejected, unresolved, and unknown once overdue; newest first, paginated, per tenant', async () => {
        const { ids, now } = await seedEndStates();
        expect((await mustGetDelivery(store, ids.exhausted)).terminalReason).toBe('exhausted');
        await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: 'acct-rejected', createdAt: T0 + MINUTE });
        const [theirs] = await claim(store, T0 + MINUTE, 1, 'acct-rejected');
        await report(store, theirs!, permanent, T0 + MINUTE);

        // `unknown` since `now`: not overdue one millisecond before unknownAfterMs has passed.
        const early = await store.review.listReview(TENANT, { now: now + UNKNOWN_AFTER - 1, unknownAfterMs: UNKNOWN_AFTER }, null, 50);
        expect(early.items.map((d) => [d.id, d.reviewReason])).toEqual([
          [ids.unresolved, 'unresolved'],
          [ids.exhausted, 'exhausted'],
          [ids.rejected, 'rejected'],
        ]);
        expect(early.nextCursor).toBeNull();

        const due = { now: now + UNKNOWN_AFTER, unknownAfterMs: UNKNOWN_AFTER };
        const p1 = await store.review.listReview(TENANT, due, null, 2);
        expect(p1.items.map((d) => [d.id, d.reviewReason])).toEqual([
          [ids.unknown, 'unknown_overdue'],
          [ids.unresolved, 'unresolved'],
        ]);
        expect(p1.items[0]).toMatchObject({ state: 'unknown', tenantId: TENANT, lastErrorCode: 'timeout' });
        const p2 = await store.review.listReview(TENANT, due, p1.nextCursor, 2);
        expect(p2.items.map((d) => [d.id, d.reviewReason])).toEqual([
          [ids.exhausted, 'exhausted'],
          [ids.rejected, 'rejected'],
        ]);
        expect(p2.nextCursor).toBeNull();
        expect((await store.review.listReview(OTHER_TENANT, due, null, 50)).items.map((d) => d.id)).toEqual([theirs!.deliveryId]);
        expect((await store.review.listReview('t_nobody', due, null, 50)).items).toEqual([]);
      });

      it('replayDelivery: unknown to ready with the same key, one audit row, outbox-guarded like any transition', async () => {
        const { ids, now } = await seedEndStates();
        const before = await mustGetDelivery(store, ids.unknown);
        const at = now + MINUTE;
        const t = replayOf(before, at, true);
        expect(t).toMatchObject({ from: 'unknown', to: 'ready', terminalReason: null, nextAttemptAt: at });
        const write = { deliveryId: before.id, expect: { state: before.state, leaseVersion: before.leaseVersion }, transition: t, now: at };
        const audit = { requestedBy: 'key_ops', acceptDuplicateRisk: true, note: 'customer says no SMS', fromReason: null };
        expect(await store.review.replayDelivery({ write, audit })).toBe(true);

        const after = await mustGetDelivery(store, before.id);
        expect(after).toMatchObject({
          state: 'ready',
          terminalReason: null,
          nextAttemptAt: at,
          updatedAt: at,
          attemptCount: 1,
          leaseVersion: before.leaseVersion,
          idempotencyKey: before.idempotencyKey,
        });
        expect(await store.review.listReplays(TENANT, before.id)).toEqual([
          {
            deliveryId: before.id,
            tenantId: TENANT,
            requestedBy: 'key_ops',
            fromState: 'unknown',
            fromReason: null,
            acceptDuplicateRisk: true,
            note: 'customer says no SMS',
            createdAt: at,
          },
        ]);
        expect(await store.review.listReplays(OTHER_TENANT, before.id)).toEqual([]);

        // The same write again is stale (the row is `ready` now): refused, and no second audit row.
        expect(await store.review.replayDelivery({ write, audit })).toBe(false);
        expect(await store.review.listReplays(TENANT, before.id)).toHaveLength(1);
        expect(await mustGetDelivery(store, before.id)).toEqual(after);

        // Claimable again: attempt 2 under a new fencing token, presenting the same key.
        const [c] = await claim(store, at, 1, 'acct-unknown', 'w2');
        expect(c).toMatchObject({ deliveryId: before.id, attemptNumber: 2, leaseVersion: before.leaseVersion + 1, idempotencyKey: before.idempotencyKey });
      });

      /** A worker's write of a call's outcome at a rollout stage: the transition and both decisions, as the worker writes them. */
      async function reportAtStage(c: ClaimedDelivery, outcome: SubmitOutcome, now: number, stage: RolloutStage): Promise<TransitionResult> {
        const r = decideAtStage(claimFacts(c), outcome, { now, policy: TEST_POLICY, random: () => 0.5, stage, unknownSettlement: 'reconcile_lookup' });
        const [result] = await store.applyTransitions([
          {
            deliveryId: c.deliveryId,
            expect: { state: 'submitting', leaseVersion: c.leaseVersion },
            transition: r.transition,
            now,
            attempt: { number: c.attemptNumber, outcome, decisions: { decision: r.decision, nextStageDecision: r.nextStageDecision } },
          },
        ]);
        return result!;
      }

      it('rollout: both decisions are stored on the attempt; held deliveries are in review at once, filterable by reason', async () => {
        const [definite, ambiguousOne, retried] = await seedDeliveries(store, { tenantId: TENANT, count: 3, providerAccount: 'acct-shadow', ttlMs: 2 * HOUR });
        const now = T0 + 10 * SECOND;
        const claimed = await claim(store, now, 3, 'acct-shadow');
        const byId = new Map(claimed.map((c) => [c.deliveryId, c]));
        expect((await reportAtStage(byId.get(definite!)!, retryable, now, 'shadow')).applied).toBe(true);
        expect((await reportAtStage(byId.get(ambiguousOne!)!, ambiguous, now, 'shadow')).applied).toBe(true);
        expect((await reportAtStage(byId.get(retried!)!, retryable, now, 'definite_retries')).applied).toBe(true);

        expect(await mustGetDelivery(store, definite!)).toMatchObject({ state: 'terminal', terminalReason: 'held', nextAttemptAt: null });
        const [held] = await attemptsOf(store, await mustGetDelivery(store, definite!));
        expect(held).toMatchObject({
          outcome: 'retryable',
          decision: { kind: 'review', retryAt: null },
          nextStageDecision: { kind: 'retry_at', retryAt: now + TEST_POLICY.baseDelayMs },
        });
        const [onLadder] = await attemptsOf(store, await mustGetDelivery(store, retried!));
        expect(onLadder!.decision).toEqual({ kind: 'retry_at', retryAt: (await mustGetDelivery(store, retried!)).nextAttemptAt });
        expect(onLadder!.nextStageDecision).toEqual(onLadder!.decision);

        // Listed at once (the unknown long before it would be overdue); the ladder's retry is not.
        const q = { now, unknownAfterMs: 15 * MINUTE };
        const all = await store.review.listReview(TENANT, q, null, 50);
        expect(all.items.map((d) => [d.id, d.state, d.reviewReason]).sort()).toEqual(
          [
            [definite!, 'terminal', 'held'],
            [ambiguousOne!, 'unknown', 'held'],
          ].sort(),
        );
        expect((await store.review.listReview(TENANT, { ...q, reason: 'held' }, null, 50)).items).toHaveLength(2);
        expect((await store.review.listReview(TENANT, { ...q, reason: 'unknown_overdue' }, null, 50)).items).toEqual([]);
        // A held unknown stays `held`, never `unknown_overdue`, however long it waits.
        const later = { now: now + HOUR, unknownAfterMs: 15 * MINUTE };
        expect((await store.review.listReview(TENANT, { ...later, reason: 'held' }, null, 50)).items.map((d) => d.id).sort()).toEqual(
          [definite!, ambiguousOne!].sort(),
        );

        // Replay from review: terminal/held is replayable without the duplicate risk, and the audit row names `held`.
        const d = await mustGetDelivery(store, definite!);
        const audit = { requestedBy: 'key_ops', acceptDuplicateRisk: false, note: null, fromReason: 'held' };
        const write = { deliveryId: d.id, expect: { state: d.state, leaseVersion: d.leaseVersion }, transition: replayOf(d, now + MINUTE), now: now + MINUTE };
        expect(await store.review.replayDelivery({ write, audit })).toBe(true);
        expect(await mustGetDelivery(store, d.id)).toMatchObject({ state: 'ready', terminalReason: null });
        expect(await store.review.listReplays(TENANT, d.id)).toEqual([expect.objectContaining({ fromState: 'terminal', fromReason: 'held' })]);
      });

      it('health.rolloutDecisions: decided attempts of the account since a time, counted per decision pair', async () => {
        const ids = await seedDeliveries(store, { tenantId: TENANT, count: 4, providerAccount: 'acct-count', ttlMs: 2 * HOUR });
        const [otherAccount] = await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: 'acct-elsewhere', ttlMs: 2 * HOUR });
        const now = T0 + 10 * SECOND;
        const claimed = await claim(store, now, 4, 'acct-count');
        expect(claimed).toHaveLength(4);
        await reportAtStage(claimed[0]!, retryable, now, 'shadow');
        await reportAtStage(claimed[1]!, retryable, now + MINUTE, 'shadow');
        await reportAtStage(claimed[2]!, ambiguous, now + MINUTE, 'shadow');
        // Written without decisions (as a send-time stop or an older Herald would): not counted.
        await report(store, claimed[3]!, accepted(), now + MINUTE);
        const [elsewhere] = await claim(store, now, 1, 'acct-elsewhere');
        await reportAtStage(elsewhere!, retryable, now, 'shadow');
        expect(await store.health.rolloutDecisions('acct-count', now)).toEqual([
          { decision: 'review', nextStageDecision: 'retry_at', attempts: 2 },
          { decision: 'review', nextStageDecision: 'review', attempts: 1 },
        ]);
        // `since` is inclusive, by the attempt's finish time.
        expect(await store.health.rolloutDecisions('acct-count', now + 1)).toEqual([
          { decision: 'review', nextStageDecision: 'retry_at', attempts: 1 },
          { decision: 'review', nextStageDecision: 'review', attempts: 1 },
        ]);
        expect(await store.health.rolloutDecisions('acct-nobody', now)).toEqual([]);
        expect(ids).toHaveLength(4);
        expect(otherAccount).toBeDefined();
      });

      it('replayDelivery from terminal clears the reason and records it; a refused guard writes nothing', async () => {
        const { ids, now } = await seedEndStates();
        const exhausted = await mustGetDelivery(store, ids.exhausted);
        const at = now + MINUTE;
        const t = replayOf(exhausted, at);
        const audit = { requestedBy: 'key_ops', acceptDuplicateRisk: false, note: null, fromReason: 'exhausted' };
        // A guard naming the wrong lease version (someone else moved it meanwhile): nothing changes.
        expect(
          await store.review.replayDelivery({
            write: { deliveryId: exhausted.id, expect: { state: 'terminal', leaseVersion: exhausted.leaseVersion - 1 }, transition: t, now: at },
            audit,
          }),
        ).toBe(false);
        expect(await mustGetDelivery(store, exhausted.id)).toEqual(exhausted);
        expect(await store.review.listReplays(TENANT, exhausted.id)).toEqual([]);

        expect(
          await store.review.replayDelivery({
            write: { deliveryId: exhausted.id, expect: { state: 'terminal', leaseVersion: exhausted.leaseVersion }, transition: t, now: at },
            audit,
          }),
        ).toBe(true);
        expect(await mustGetDelivery(store, exhausted.id)).toMatchObject({
          state: 'ready',
          terminalReason: null,
          nextAttemptAt: at,
          attemptCount: TEST_POLICY.maxAttempts,
        });
        expect(await store.review.listReplays(TENANT, exhausted.id)).toEqual([
          expect.objectContaining({ fromState: 'terminal', fromReason: 'exhausted', acceptDuplicateRisk: false, note: null, requestedBy: 'key_ops' }),
        ]);
        expect(await store.countByState()).toMatchObject({ ready: 2, terminal: 3 });
        const due = { now: at + UNKNOWN_AFTER, unknownAfterMs: UNKNOWN_AFTER };
        expect((await store.review.listReview(TENANT, due, null, 50)).items.map((d) => d.id)).not.toContain(exhausted.id);
      });

      it('listReplayCandidates: replayable states only, oldest first, filtered, walked by afterId', async () => {
        const { ids } = await seedEndStates();
        const sms = await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: 'acct-sms', channel: 'sms', createdAt: T0 + 20 * SECOND });
        const [cs] = await claim(store, T0 + 20 * SECOND, 1, 'acct-sms');
        await report(store, cs!, ambiguous, T0 + 20 * SECOND);
        await seedDeliveries(store, { tenantId: OTHER_TENANT, count: 1, providerAccount: 'acct-rejected', createdAt: T0 + MINUTE });
        const [theirs] = await claim(store, T0 + MINUTE, 1, 'acct-rejected');
        await report(store, theirs!, permanent, T0 + MINUTE);

        const walk = async (filter: Parameters<Store['review']['listReplayCandidates']>[1], size = 2) => {
          const out: string[] = [];
          let after: string | null = null;
          for (;;) {
            const batch: DeliveryView[] = await store.review.listReplayCandidates(TENANT, filter, after, size);
            out.push(...batch.map((d) => d.id));
            if (batch.length < size) return out;
            after = batch[batch.length - 1]!.id;
          }
        };
        // accepted and ready are never candidates; the order is creation order.
        expect(await walk({})).toEqual([ids.rejected, ids.exhausted, ids.unresolved, ids.unknown, ids.cancelled, sms[0]]);
        expect(await walk({ state: 'unknown' })).toEqual([ids.unknown, sms[0]]);
        expect(await walk({ state: 'accepted' })).toEqual([]);
        expect(await walk({ channel: 'sms' })).toEqual([sms[0]]);
        expect(await walk({ providerAccount: 'acct-exhausted' })).toEqual([ids.exhausted]);
        expect(await walk({ createdFrom: T0 + SECOND, createdTo: T0 + 3 * SECOND })).toEqual([ids.exhausted, ids.unresolved]);
        expect(await walk({ state: 'terminal', createdFrom: T0 + 2 * SECOND }, 10)).toEqual([ids.unresolved, ids.cancelled]);
        expect((await store.review.listReplayCandidates(OTHER_TENANT, {}, null, 10)).map((d) => d.id)).toEqual([theirs!.deliveryId]);
      });

      it('getNotificationSource returns what was asked for; latestGeneration is the highest generation of a group, per tenant', async () => {
        const g1 = buildNotification({ tenantId: TENANT, groupKey: 'login-7', generation: 1, purpose: 'otp', metadata: { flow: 'login' } });
        const g3 = buildNotification({ tenantId: TENANT, groupKey: 'login-7', generation: 3, recipientId: g1.recipient.id, purpose: 'otp', metadata: null });
        const theirs = buildNotification({ tenantId: OTHER_TENANT, groupKey: 'login-7', generation: 9 });
        for (const n of [g1, g3, theirs]) await store.createNotification(n);

        expect(await store.review.getNotificationSource(TENANT, g1.id)).toEqual({
          id: g1.id,
          tenantId: TENANT,
          recipient: g1.recipient,
          purpose: 'otp',
          channels: g1.channels,
          content: g1.content,
          groupKey: 'login-7',
          generation: 1,
          metadata: { flow: 'login' },
          expiresAt: g1.expiresAt,
          createdAt: g1.createdAt,
        });
        expect((await store.review.getNotificationSource(TENANT, g3.id))?.metadata).toBeNull();
        expect(await store.review.getNotificationSource(OTHER_TENANT, g1.id)).toBeNull();
        expect(await store.review.getNotificationSource(TENANT, 'ntf_missing')).toBeNull();

        expect(await store.latestGeneration(TENANT, 'login-7')).toBe(3);
        expect(await store.latestGeneration(OTHER_TENANT, 'login-7')).toBe(9);
        expect(await store.latestGeneration(TENANT, 'login-8')).toBeNull();
      });
    });

    describe('two rescuers racing for one expired lease (fault checklist 16/17)', () => {
      it('moves the delivery to unknown exactly once', async () => {
        const other = await peer();
        await other.migrate();
        await seedDeliveries(store, { tenantId: TENANT, count: 1, providerAccount: ACCOUNT });
        const c = await claimOne(store, T0);
        const now = c.leaseUntil + SECOND;

        // Both rescuers read the same facts before either writes.
        const [seenA, seenB] = await Promise.all([store.listExpiredLeases(now, 10), other.listExpiredLeases(now, 10)]);
        expect(seenA).toEqual(seenB);
        expect(seenA).toHaveLength(1);
        const write = (facts: (typeof seenA)[number]) => ({
          deliveryId: facts.deliveryId,
          expect: { state: facts.state, leaseVersion: facts.leaseVersion },
          transition: mustDecide(facts, { type: 'lease_expired' }, now),
          now,
          attempt: { number: facts.attemptCount, outcome: { kind: 'lease_expired' as const } },
        });
        const [ra, rb] = await Promise.all([store.applyTransitions([write(seenA[0]!)]), other.applyTransitions([write(seenB[0]!)])]);
        expect([ra[0]!.applied, rb[0]!.applied].sort()).toEqual([false, true]);

        const d = await mustGetDelivery(store, c.deliveryId);
        expect(d).toMatchObject({ state: 'unknown', leaseVersion: 1, attemptCount: 1, updatedAt: now });
        expect(await attemptsOf(store, d)).toEqual([expect.objectContaining({ number: 1, outcome: 'lease_expired', finishedAt: now })]);
        expect(await store.countByState()).toMatchObject({ unknown: 1, submitting: 0, ready: 0 });
        expect(await claim(other, now + MINUTE)).toEqual([]);
      });

      it('keeps at most one live lease per delivery while workers keep claiming', async () => {
        const other = await peer();
        await other.migrate();
        await seedDeliveries(store, { tenantId: TENANT, count: 20, providerAccount: ACCOUNT });
        let now = T0 + HOUR / 4;
        const holders = new Map<string, number>();
        for (let round = 0; round < 5; round++) {
          const [a, b] = await Promise.all([claim(store, now, 3, ACCOUNT, 'A'), claim(other, now, 3, ACCOUNT, 'B')]);
          for (const c of [...a, ...b]) {
            expect(holders.has(c.deliveryId)).toBe(false);
            holders.set(c.deliveryId, c.leaseVersion);
          }
          now += LEASE_MS + 1;
          // Expired leases go to unknown; none of them may be claimed again.
          for (const f of await store.listExpiredLeases(now, 100)) expect((await rescue(other, f.deliveryId, now)).applied).toBe(true);
        }
        expect(holders.size).toBe(20);
        expect(await store.countByState()).toMatchObject({ unknown: 20, submitting: 0, ready: 0 });
      });
    });
  });
}
