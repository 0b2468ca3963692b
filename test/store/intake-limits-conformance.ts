/**
 * The intake-limit part of the Store contract, run against every driver: fixed-window request
 * counts shared by two connections (two processes), velocity takes that refuse at the bound with
 * the time the oldest counted event leaves the window, never overshoot under concurrent takes from
 * two connections, keep tenants, rules and purposes apart, and can be given back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store, VelocitySubjectCheck } from '../../src/store/store.js';
import type { StoreFixture } from './conformance.js';
import { SECOND, T0 } from './fixtures.js';

const MINUTE = 60 * SECOND;
const dest = (hash: string, max = 3, windowMs = 10 * MINUTE): VelocitySubjectCheck => ({ rule: 'destination', hash, max, windowMs });

export function intakeLimitsConformance(driver: string, fixture: () => Promise<StoreFixture>): void {
  describe(`intake limits conformance (${driver})`, () => {
    let f: StoreFixture;
    let store: Store;
    beforeEach(async () => {
      f = await fixture();
      store = f.store;
    });
    afterEach(() => f.cleanup());

    it('counts requests per subject and window, across connections, and starts again in a new window', async () => {
      const peer = await f.openPeer!();
      expect(await store.intakeLimits.countRequest('key_a', T0)).toBe(1);
      expect(await peer.intakeLimits.countRequest('key_a', T0)).toBe(2);
      expect(await store.intakeLimits.countRequest('key_b', T0)).toBe(1);
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store : peer).intakeLimits.countRequest('key_a', T0)));
      // Every count handed out once: 3..22, whichever connection got which.
      expect([...many].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 3));
      expect(await store.intakeLimits.countRequest('key_a', T0 + MINUTE)).toBe(1);
      // A lagging clock's older window counts in the current one, never resets it.
      expect(await peer.intakeLimits.countRequest('key_a', T0)).toBe(2);
    });

    it('takes up to the bound, then refuses until the oldest counted event leaves the window', async () => {
      const take = (now: number) =>
        store.intakeLimits.takeVelocity({ tenantId: 't1', purpose: 'otp', subjects: [dest('h1')], now, pruneBefore: now - 3600_000 });
      for (const t of [T0, T0 + SECOND, T0 + 2 * SECOND]) expect((await take(t)).ok).toBe(true);
      const refused = await take(T0 + 3 * SECOND);
      expect(refused).toEqual({ ok: false, refused: dest('h1'), retryAt: T0 + 10 * MINUTE });
      expect(await store.intakeLimits.velocityCount('t1', 'destination', 'h1', 'otp', T0 - 1)).toBe(3);
      // The refusal wrote nothing; once the first event is out of the window one more fits.
      expect((await take(T0 + 10 * MINUTE)).ok).toBe(true);
      expect((await take(T0 + 10 * MINUTE + 1)).ok).toBe(false);
    });

    it('keeps tenants, rules and purposes apart, and writes nothing when any subject is at its bound', async () => {
      const t = { now: T0, pruneBefore: 0 };
      const recipient: VelocitySubjectCheck = { rule: 'recipient', hash: 'h1', max: 1, windowMs: MINUTE };
      expect((await store.intakeLimits.takeVelocity({ ...t, tenantId: 't1', purpose: 'otp', subjects: [recipient] })).ok).toBe(true);
      expect((await store.intakeLimits.takeVelocity({ ...t, tenantId: 't2', purpose: 'otp', subjects: [recipient] })).ok).toBe(true);
      expect((await store.intakeLimits.takeVelocity({ ...t, tenantId: 't1', purpose: 'transactional', subjects: [recipient] })).ok).toBe(true);
      expect((await store.intakeLimits.takeVelocity({ ...t, tenantId: 't1', purpose: 'otp', subjects: [dest('h1', 1)] })).ok).toBe(true);
      const both = await store.intakeLimits.takeVelocity({ ...t, tenantId: 't1', purpose: 'otp', subjects: [dest('h2', 5), recipient] });
      expect(both).toMatchObject({ ok: false, refused: recipient, retryAt: T0 + MINUTE });
      expect(await store.intakeLimits.velocityCount('t1', 'destination', 'h2', 'otp', 0)).toBe(0);
    });

    it('never lets concurrent takes from two connections past the bound', async () => {
      const peer = await f.openPeer!();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? store : peer).intakeLimits.takeVelocity({ tenantId: 't1', purpose: 'otp', subjects: [dest('hot', 5)], now: T0 + i, pruneBefore: 0 }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(await store.intakeLimits.velocityCount('t1', 'destination', 'hot', 'otp', 0)).toBe(5);
    });

    it('gives back the events of a take, and prunes events older than every window', async () => {
      const a = await store.intakeLimits.takeVelocity({ tenantId: 't1', purpose: 'otp', subjects: [dest('h1', 1), dest('h2', 1)], now: T0, pruneBefore: 0 });
      expect(a.ok).toBe(true);
      if (!a.ok) return;
      expect(a.eventIds).toHaveLength(2);
      await store.intakeLimits.releaseVelocity(a.eventIds);
      expect(await store.intakeLimits.velocityCount('t1', 'destination', 'h1', 'otp', 0)).toBe(0);
      await store.intakeLimits.takeVelocity({ tenantId: 't1', purpose: 'otp', subjects: [dest('old')], now: T0, pruneBefore: 0 });
      await store.intakeLimits.takeVelocity({ tenantId: 't1', purpose: 'otp', subjects: [dest('new')], now: T0 + 2 * 3600_000, pruneBefore: T0 + 3600_000 });
      expect(await store.intakeLimits.velocityCount('t1', 'destination', 'old', 'otp', 0)).toBe(0);
      expect(await store.intakeLimits.velocityCount('t1', 'destination', 'new', 'otp', 0)).toBe(1);
    });
  });
}
