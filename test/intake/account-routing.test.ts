/**
 * Which account each delivery of a new notification goes through (src/intake/account-routing.ts),
 * without a database: a pinned account, else the first of the tenant's route it may use with the
 * demoted ones last, else the channel's first account it may use; push subscriptions each through
 * an account that serves their push service; every refusal with its stable code.
 */
import { describe, expect, it } from 'vitest';
import { EVERY_TENANT, type Route, type RouteHealthView } from '../../src/domain/index.js';
import { HeraldError } from '../../src/errors.js';
import { accountFilter, AccountRouting } from '../../src/intake/account-routing.js';
import type { NotificationRequest } from '../../src/intake/notification-request.js';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';

const account = (id: string, kind: string, channel: ProviderAccountConfig['channel']): ProviderAccountConfig =>
  ({ id, kind, channel }) as ProviderAccountConfig;
const ACCOUNTS = [
  account('sms-a', 'sandbox', 'sms'),
  account('sms-b', 'sandbox', 'sms'),
  account('mail', 'sandbox', 'email'),
  account('fcm-1', 'fcm', 'push'),
  account('apns-1', 'apns', 'push'),
];
const SMS_ROUTE: Route = { tenantId: EVERY_TENANT, channel: 'sms', purpose: 'default', accounts: ['sms-b', 'sms-a'], order: 'fixed' };

/** A route evaluator's view in which `demoted` are demoted on every route. */
const health = (...demoted: string[]): RouteHealthView => ({ demotedIn: () => new Set(demoted), latencyMs: () => new Map() });

const body = (over: Partial<NotificationRequest> = {}): NotificationRequest => ({
  purpose: 'otp',
  channels: ['sms'],
  recipient: { id: 'r1', phone: '+447911123456', email: 'a@example.com' },
  ...over,
});
const on = { tenantId: 'default', purpose: 'otp' as const };
const everyAccount = accountFilter('default', null);

/** The HeraldError code `run` throws. */
function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof HeraldError) return err.code;
    throw err;
  }
  throw new Error('no refusal');
}

describe('account routing', () => {
  it('takes the channel’s first account without a route, and the one a notification pins', () => {
    const r = new AccountRouting(ACCOUNTS);
    expect(r.routesFor(body(), null, everyAccount, on)).toEqual([{ channel: 'sms', account: ACCOUNTS[0], destination: '+447911123456', subscriptionId: null }]);
    const pinned = r.routesFor(body({ channels: ['sms', 'email'], provider_accounts: { sms: 'sms-b' } }), null, everyAccount, on);
    expect(pinned.map((d) => [d.channel, d.account.id, d.destination])).toEqual([
      ['sms', 'sms-b', '+447911123456'],
      ['email', 'mail', 'a@example.com'],
    ]);
  });

  it('takes the first account of the route, a demoted one only when no other is left', () => {
    expect(new AccountRouting(ACCOUNTS, { routes: [SMS_ROUTE], health: health() }).routesFor(body(), null, everyAccount, on)[0]!.account.id).toBe('sms-b');
    expect(new AccountRouting(ACCOUNTS, { routes: [SMS_ROUTE], health: health('sms-b') }).routesFor(body(), null, everyAccount, on)[0]!.account.id).toBe(
      'sms-a',
    );
    expect(
      new AccountRouting(ACCOUNTS, { routes: [SMS_ROUTE], health: health('sms-a', 'sms-b') }).routesFor(body(), null, everyAccount, on)[0]!.account.id,
    ).toBe('sms-b');
  });

  it('uses only the accounts the tenant may: assigned to it, or (the default tenant) assigned to nobody', () => {
    const routed = new AccountRouting(ACCOUNTS, { routes: [SMS_ROUTE], health: health() });
    const onlyA = accountFilter('t1', { assigned: ['sms-a'], taken: ['sms-a', 'sms-b'] });
    expect(routed.routesFor(body(), null, onlyA, { tenantId: 't1', purpose: 'otp' })[0]!.account.id).toBe('sms-a');
    // The default tenant keeps what no tenant was given.
    const defaultTenant = accountFilter('default', { assigned: [], taken: ['sms-b'] });
    expect(routed.routesFor(body(), null, defaultTenant, on)[0]!.account.id).toBe('sms-a');
  });

  it('refuses with stable codes: an unknown or other-channel pin, a pin or channel the tenant may not use, a channel without accounts', () => {
    const r = new AccountRouting(ACCOUNTS);
    const none = accountFilter('t1', { assigned: [], taken: ['sms-a', 'sms-b', 'mail'] });
    expect(codeOf(() => r.routesFor(body({ provider_accounts: { sms: 'nope' } }), null, everyAccount, on))).toBe('no_provider_account');
    expect(codeOf(() => r.routesFor(body({ provider_accounts: { sms: 'mail' } }), null, everyAccount, on))).toBe('no_provider_account');
    expect(codeOf(() => r.routesFor(body({ provider_accounts: { sms: 'sms-a' } }), null, none, on))).toBe('provider_account_not_assigned');
    expect(codeOf(() => r.routesFor(body(), null, none, on))).toBe('provider_account_not_assigned');
    expect(codeOf(() => new AccountRouting([ACCOUNTS[2]!]).routesFor(body(), null, everyAccount, on))).toBe('no_provider_account');
  });

  it('sends each push subscription through an account of its push service; with fallback only the newest; refuses when none serves', () => {
    const r = new AccountRouting(ACCOUNTS);
    const subscriptions = [
      { id: 'ps-1', type: 'apns' as const, target: 'apns-token' },
      { id: 'ps-2', type: 'fcm' as const, target: 'fcm-token' },
    ];
    const push = body({ channels: ['push'], recipient: { id: 'r1' } });
    expect(r.routesFor(push, subscriptions, everyAccount, on).map((d) => [d.account.id, d.destination, d.subscriptionId])).toEqual([
      ['apns-1', 'apns-token', 'ps-1'],
      ['fcm-1', 'fcm-token', 'ps-2'],
    ]);
    expect(r.routesFor({ ...push, fallback_after_seconds: 60 }, subscriptions, everyAccount, on).map((d) => d.subscriptionId)).toEqual(['ps-1']);
    expect(codeOf(() => r.routesFor(push, [{ id: 'ps-3', type: 'webpush', target: 'https://push.example/x' }], everyAccount, on))).toBe('no_provider_account');
  });
});
