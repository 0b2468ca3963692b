/**
 * A campaign whose channel and purpose have a route drains through the route's healthy accounts
 * together, on both drivers: the plan counts their lane rates together and names them
 * (`plan.capacity`), fan-out spreads the recipients over them in proportion to those rates, and
 * an account demoted in the route is left out of the next plan and of the fan-out, named as such.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVERY_TENANT, type Route } from '../../src/domain/index.js';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { createHarness, DRIVERS, T0, type Harness } from '../helpers/harness.js';

const ROUTE: Route = { tenantId: EVERY_TENANT, channel: 'email', purpose: 'marketing', accounts: ['sandbox-email', 'email-backup'], order: 'fixed' };
/** 2,500/s and 1,000/s with the default lanes (auth keeps 20 %): the bulk lanes give 2,000/s and 800/s. */
const backup = (accounts: ProviderAccountConfig[]): ProviderAccountConfig[] => [
  { ...accounts.find((a) => a.id === 'sandbox-email')!, id: 'email-backup', rate_per_second: 1_000, burst: 1_000 },
];

describe.each(DRIVERS)('campaign capacity over a route on %s', (driver) => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness({
      driver,
      account: (a) => (a.channel === 'email' ? { ...a, rate_per_second: 2_500, burst: 2_500 } : a),
      moreAccounts: backup,
      routes: { routes: [ROUTE] },
    });
  });
  afterEach(async () => {
    await h.close();
  });

  const create = (prefix: string, n: number, deadlineMs = 3_600_000) =>
    h.post('/v1/campaigns', {
      channel: 'email',
      purpose: 'marketing',
      content: { subject: 'Sale', text: 'Everything must go' },
      deadline_at: new Date(T0 + deadlineMs).toISOString(),
      audience: { recipients: Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, email: `${prefix}-${i}@example.com` })) },
      start: 'if_feasible',
    });
  /** The campaign's deliveries per account, read through the API a script would use. */
  const perAccount = async (campaign: string): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const account of ROUTE.accounts) {
      out[account] = (await h.get(`/v1/deliveries?campaign=${campaign}&provider_account=${account}&limit=200`)).json.items.length;
    }
    return out;
  };

  it("plans over the route's healthy accounts together, names them, and spreads the fan-out by their rates", async () => {
    const created = await create('r', 140);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ status: 'running', provider_account: 'sandbox-email', lane: 'bulk', lane_rate: 2_800 });
    expect(created.json.plan).toMatchObject({ available_rate: 2_800, best_case_seconds: 0.05, feasible: true });
    expect(created.json.plan.capacity).toEqual({
      route: '*/email/marketing',
      accounts: [
        { provider_account: 'sandbox-email', lane: 'bulk', max_rate: 2_000 },
        { provider_account: 'email-backup', lane: 'bulk', max_rate: 800 },
      ],
      left_out: [],
    });
    expect((await h.campaigns.runOnce()).fannedOut).toBe(140);
    // 2,000 : 800 of 140 is 100 : 40; the spread keeps within a couple of rows of it.
    const split = await perAccount(created.json.id);
    expect(split['sandbox-email']! + split['email-backup']!).toBe(140);
    expect(split['email-backup']).toBeGreaterThanOrEqual(38);
    expect(split['email-backup']).toBeLessThanOrEqual(42);
  });

  it('leaves a demoted account out of the plan and the fan-out, and names it', async () => {
    expect(
      await h.store.routes.recordChange({
        routeKey: '*/email/marketing',
        seq: 1,
        providerAccount: 'email-backup',
        action: 'demote',
        reasons: ['slow_delivery'],
        figures: { account: 'email-backup', accepted: 20, slow: 5, calls: 20, failures: 0, pausedSince: null },
        decidedAt: T0,
      }),
    ).toBe(true);
    const created = await create('d', 30);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ lane_rate: 2_000, plan: { available_rate: 2_000 } });
    expect(created.json.plan.capacity).toEqual({
      route: '*/email/marketing',
      accounts: [{ provider_account: 'sandbox-email', lane: 'bulk', max_rate: 2_000 }],
      left_out: [{ provider_account: 'email-backup', reason: 'demoted' }],
    });
    await h.campaigns.runOnce();
    expect(await perAccount(created.json.id)).toEqual({ 'sandbox-email': 30, 'email-backup': 0 });
  });
});
