/** The `routes:` section: its defaults, routes per tenant, channel and purpose, and a ConfigError naming the field for each mistake. */
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { routeAssignmentProblems } from '../../src/config/routes-config.js';
import { EVERY_TENANT, routeFor } from '../../src/domain/index.js';

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
