/**
 * Idempotency reservations (`parts/core.ts`, the drivers' `idempotency.ts`): reserve, replay, take
 * over a stale lock, release, prune, per tenant. Part of the Store conformance suite
 * (`conformance.ts`), run against every driver.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { StoreConflictError, type Store } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { IDEM, OTHER_TENANT, TENANT, useStoreFixture } from './core-support.js';
import { HOUR, MINUTE, SECOND, T0, buildNotification } from './fixtures.js';

/** Runs this part of the contract against one driver. */
export function idempotencyConformance(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`Store conformance: ${name}`, () => {
    const fx = useStoreFixture(name, makeStore);
    let store: Store;
    beforeEach(() => {
      store = fx.store;
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
  });
}
