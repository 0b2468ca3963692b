/** The `routes:` section: its defaults, routes per tenant, channel and purpose, and a ConfigError naming the field for each mistake. */
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { routeAssignmentProblems } from '../../src/config/routes-config.js';
import { DEFAULT_DEMOTION_POLICY, EVERY_TENANT, demotionPolicyFor, routeFor } from '../../src/domain/index.js';

const accounts = [
  { id: 'mail', kind: 'sandbox', channel: 'email', base_url: 'http://127.0.0.1:8025' },
  { id: 'sms-main', kind: 'sandbox', channel: 'sms', base_url: 'http://127.0.0.1:8025' },
  { id: 'sms-backup', kind: 'sandbox', channel: 'sms', base_url: 'http://127.0.0.1:8026' },
];

function fieldOf(raw: unknown): string | null {
  try {
    resolveConfig(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).field;
  }
  throw new Error('expected a ConfigError');
}

describe('routes configuration', () => {
  it('has no routes and Notify-derived demotion figures when the section is absent', () => {
    const r = resolveConfig({ provider_accounts: accounts }).routes;
    expect(r.routes).toEqual([]);
    expect(r.demotion).toMatchObject({ slowRatio: 0.15, windowMs: 900_000, slowAfterMs: 300_000, coolDownMs: 300_000 });
    expect(r.evaluateEveryMs).toBe(60_000);
    expect(r.failoverAfterUnknown).toBe(true);
  });

  it("resolves routes per channel and purpose, codes ordered by latency by default, a tenant's own first", () => {
    const r = resolveConfig({
      provider_accounts: accounts,
      routes: {
        sms: { otp: ['sms-main', 'sms-backup'], default: ['sms-backup'] },
        tenants: { acme: { sms: { otp: ['sms-backup', 'sms-main'] } } },
      },
    }).routes.routes;
    expect(routeFor(r, 'other', 'sms', 'otp')).toEqual({
      tenantId: EVERY_TENANT,
      channel: 'sms',
      purpose: 'otp',
      accounts: ['sms-main', 'sms-backup'],
      order: 'latency',
    });
    expect(routeFor(r, 'other', 'sms', 'marketing')).toMatchObject({ purpose: 'default', accounts: ['sms-backup'], order: 'fixed' });
    expect(routeFor(r, 'acme', 'sms', 'otp')).toMatchObject({ tenantId: 'acme', accounts: ['sms-backup', 'sms-main'] });
    // acme has no marketing route of its own: every tenant's default applies.
    expect(routeFor(r, 'acme', 'sms', 'marketing')).toMatchObject({ tenantId: EVERY_TENANT, purpose: 'default' });
    expect(routeFor(r, 'acme', 'email', 'otp')).toBeNull();
  });

  it('takes order per purpose and the demotion figures from the file', () => {
    const r = resolveConfig({
      provider_accounts: accounts,
      routes: { sms: { otp: ['sms-main', 'sms-backup'] }, order: { otp: 'fixed' }, demotion: { slow_ratio: 0.3, cool_down_s: 0 } },
    }).routes;
    expect(r.routes[0]!.order).toBe('fixed');
    expect(r.demotion.slowRatio).toBe(0.3);
    expect(r.demotion.coolDownMs).toBe(0);
  });

  it("takes a channel's own demotion figures per purpose and for its other purposes, Notify's where it names none", () => {
    const r = resolveConfig({
      provider_accounts: accounts,
      routes: {
        sms: { otp: ['sms-main', 'sms-backup'], default: ['sms-main', 'sms-backup'] },
        demotion: {
          sms: { otp: { slow_after_s: 60, window_s: 300 }, default: { slow_ratio: 0.5, min_accepted: 50 } },
          email: { default: { slow_after_s: 1800 } },
        },
      },
    }).routes;
    expect(r.demotionOverrides).toEqual([
      { channel: 'email', purpose: 'default', figures: { slowAfterMs: 1_800_000 } },
      { channel: 'sms', purpose: 'default', figures: { slowRatio: 0.5, minAccepted: 50 } },
      { channel: 'sms', purpose: 'otp', figures: { slowAfterMs: 60_000, windowMs: 300_000 } },
    ]);
    // A code: its own figures, the channel's default for what it leaves out, Notify's for the rest.
    expect(demotionPolicyFor(r.demotion, r.demotionOverrides, 'sms', 'otp')).toEqual({
      ...DEFAULT_DEMOTION_POLICY,
      slowAfterMs: 60_000,
      windowMs: 300_000,
      slowRatio: 0.5,
      minAccepted: 50,
    });
    expect(demotionPolicyFor(r.demotion, r.demotionOverrides, 'sms', 'marketing')).toEqual({ ...DEFAULT_DEMOTION_POLICY, slowRatio: 0.5, minAccepted: 50 });
    expect(demotionPolicyFor(r.demotion, r.demotionOverrides, 'sms', 'default')).toEqual({ ...DEFAULT_DEMOTION_POLICY, slowRatio: 0.5, minAccepted: 50 });
    expect(demotionPolicyFor(r.demotion, r.demotionOverrides, 'push', 'otp')).toEqual(DEFAULT_DEMOTION_POLICY);
    expect(resolveConfig({ provider_accounts: accounts }).routes.demotionOverrides).toEqual([]);
    // The schema names a bad figure and an unknown purpose.
    expect(fieldOf({ provider_accounts: accounts, routes: { demotion: { sms: { otp: { slow_ratio: 2 } } } } })).toMatch(/^routes\.demotion\.sms\.otp/);
    expect(fieldOf({ provider_accounts: accounts, routes: { demotion: { sms: { login: { slow_ratio: 0.2 } } } } })).toMatch(/^routes\.demotion\.sms/);
    expect(fieldOf({ provider_accounts: accounts, routes: { demotion: { sms: { otp: { evaluate_every_s: 5 } } } } })).toMatch(/^routes\.demotion\.sms\.otp/);
  });

  it('refuses an account that does not exist, one of another channel, a repeated one, an unknown purpose', () => {
    expect(fieldOf({ provider_accounts: accounts, routes: { sms: { otp: ['sms-main', 'nope'] } } })).toBe('routes.sms.otp[1]');
    expect(fieldOf({ provider_accounts: accounts, routes: { sms: { default: ['mail'] } } })).toBe('routes.sms.default[0]');
    expect(fieldOf({ provider_accounts: accounts, routes: { tenants: { acme: { email: { otp: ['sms-main'] } } } } })).toBe('routes.tenants.acme.email.otp[0]');
    expect(fieldOf({ provider_accounts: accounts, routes: { sms: { otp: ['sms-main', 'sms-main'] } } })).toMatch(/^routes/);
    expect(fieldOf({ provider_accounts: accounts, routes: { sms: { login: ['sms-main'] } } })).toMatch(/^routes/);
  });

  it('names every account a tenant route uses that the tenant is not assigned', () => {
    const r = resolveConfig({
      provider_accounts: accounts,
      routes: { sms: { otp: ['sms-main'] }, tenants: { acme: { sms: { otp: ['sms-backup', 'sms-main'] } } } },
    }).routes;
    const assigned = new Map([['acme', ['sms-backup']]]);
    const problems = routeAssignmentProblems(r, (t, a) => assigned.get(t)?.includes(a) ?? false);
    // The every-tenant route is filtered per tenant at intake, not refused.
    expect(problems).toEqual([{ field: 'routes.tenants.acme.sms.otp[1]', message: 'names sms-main, which is not assigned to tenant acme' }]);
  });
});
