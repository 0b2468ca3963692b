/**
 * Tenant rate shares through the worker, on both drivers and a manual clock: on an account where
 * a tenant has a share, a lane claims that tenant's deliveries with its own limiter row
 * (`tenant:<id>`) and everybody else's without it, so the tenant never gets more than share·R
 * in a window while another tenant saturates the account, and the account's total still holds.
 * Also the pure part: the claim groups and the tenant's row.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lanePermitPlans, rateShareError, tenantLimiterRow, windowBound, DEFAULT_LANES } from '../../src/domain/index.js';
import { claimGroups } from '../../src/delivery/worker-lanes.js';
import type { PermittedClaim } from '../../src/store/limiter-store.js';
import { HOUR, SECOND, seedDeliveries } from '../store/fixtures.js';
import { createHarness, DRIVERS, type Harness } from '../helpers/harness.js';

const ACCOUNT = { rate_per_second: 100, burst: 10 };

describe('claim groups and tenant rows', () => {
  const sources = lanePermitPlans(ACCOUNT, DEFAULT_LANES)[1]!.sources;

  it('without shares: one plain claim; with shares: everybody else together, each shared tenant with its own row, rotated', () => {
    expect(claimGroups(ACCOUNT, sources, [], 0)).toEqual([{ sources, exceptTenants: [] }]);
    const shares = [
      { tenantId: 'acme', share: 0.25 },
      { tenantId: 'beta', share: 0.5 },
    ];
    const groups = claimGroups(ACCOUNT, sources, shares, 0);
    expect(groups).toEqual([
      { sources, exceptTenants: ['acme', 'beta'] },
      { sources: sources.map((s) => [...s, { row: 'tenant:acme', limit: { ratePerSecond: 25, burst: 2 } }]), tenantId: 'acme' },
      { sources: sources.map((s) => [...s, { row: 'tenant:beta', limit: { ratePerSecond: 50, burst: 5 } }]), tenantId: 'beta' },
    ]);
    expect(claimGroups(ACCOUNT, sources, shares, 1)).toEqual([groups[1], groups[2], groups[0]]);
    expect(claimGroups(ACCOUNT, sources, shares, 5)).toEqual([groups[2], groups[0], groups[1]]);
  });

  it('a tenant row runs at share·R with a burst of at least 1; shares outside 0 < s ≤ 1 are refused', () => {
    expect(tenantLimiterRow({ rate_per_second: 1, burst: 1 }, { tenantId: 'a', share: 0.1 }).limit).toEqual({ ratePerSecond: 0.1, burst: 1 });
    expect(tenantLimiterRow(ACCOUNT, { tenantId: 'a', share: 1 }).limit).toEqual({ ratePerSecond: 100, burst: 10 });
    for (const bad of [0, -1, 1.01, Number.NaN, Infinity, '0.5', null]) expect(rateShareError(bad), String(bad)).not.toBeNull();
    expect(rateShareError(0.3)).toBeNull();
    expect(() => tenantLimiterRow(ACCOUNT, { tenantId: 'a', share: 0 })).toThrow(RangeError);
  });
});

describe.each(DRIVERS)('tenant rate shares in the worker on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  it('a tenant with share 0.25 never gets more than 0.25·R in any window while another tenant saturates; the account total holds', async () => {
    h = await createHarness({ driver, account: (a) => (a.channel === 'sms' ? { ...a, ...ACCOUNT } : a) });
    await h.store.ensureTenant({ id: 'acme', name: 'Acme' }, h.clock.now());
    expect(await h.store.tenants.assignAccount('acme', 'sandbox-sms', h.clock.now(), 0.25)).toEqual({ ok: true });
    expect(await h.store.tenants.assignAccount(h.tenantId, 'sandbox-sms', h.clock.now())).toEqual({ ok: true });
    for (const tenantId of ['acme', h.tenantId])
      await seedDeliveries(h.store, {
        tenantId,
        count: 300,
        providerAccount: 'sandbox-sms',
        channel: 'sms',
        purpose: 'transactional',
        ttlMs: 2 * HOUR,
        createdAt: h.clock.now(),
      });
    h.clock.advance(400 * SECOND); // every seeded delivery is due
    const spy = vi.spyOn(h.store.limiter, 'claimWithPermits');
    const worker = h.newWorker({ workerId: 'w-shares', batchSize: 16 });
    for (let t = 0; t < 3000; t += 20) {
      await worker.runOnce('sandbox-sms', 'bulk');
      h.clock.advance(20);
    }
    const sent: Array<{ at: number; tenant: string }> = [];
    for (const [i, [req]] of spy.mock.calls.entries()) {
      const r = (await spy.mock.results[i]!.value) as PermittedClaim;
      // A claim with a tenant takes only its deliveries; the others' claim none of the shared tenants'.
      if (req.tenantId !== undefined) expect(req.sources!.every((set) => set.some((x) => x.row === `tenant:${req.tenantId}`))).toBe(true);
      for (const c of r.claimed) {
        if (req.tenantId !== undefined) expect(c.tenantId).toBe(req.tenantId);
        else expect(req.exceptTenants).toEqual(['acme']);
        sent.push({ at: req.now, tenant: c.tenantId });
      }
    }
    const inWindow = (at: number, tenant?: string) =>
      sent.filter((x) => x.at >= at && x.at < at + 1000 && (tenant === undefined || x.tenant === tenant)).length;
    const acmeBound = windowBound({ ratePerSecond: 25, burst: 2, windowMs: 1000 });
    // The bulk lane's most (80/s, the shared row's burst of 5) is below the account's bound.
    const laneBound = windowBound({ ratePerSecond: 80, burst: 5, windowMs: 1000 });
    for (const { at } of sent) {
      expect(inWindow(at, 'acme')).toBeLessThanOrEqual(acmeBound);
      expect(inWindow(at)).toBeLessThanOrEqual(laneBound);
    }
    const total = (tenant: string) => sent.filter((x) => x.tenant === tenant).length;
    // Non-vacuity: acme got about its 25/s, and the tenant without a share took the rest of the lane.
    expect(total('acme')).toBeGreaterThanOrEqual(60);
    expect(total('acme')).toBeLessThanOrEqual(2 + 75);
    expect(total(h.tenantId)).toBeGreaterThanOrEqual(120);
    expect((await h.store.countByState()).accepted).toBe(sent.length);
  }, 60_000);
});
