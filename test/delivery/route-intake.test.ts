/**
 * Intake along a route (docs/routing.md), on both drivers with an injected clock: a new delivery
 * takes the first healthy account of its route, so a primary demoted for slow delivery (its
 * `delivered` callbacks arrive six minutes after acceptance, past D = 5 min) takes no new
 * deliveries until the evaluator restores it; a pinned account still wins; both transitions are
 * recorded, listed by GET /v1/provider-accounts, counted in the process's counters, and the
 * operator alerter sends `account_demoted` firing, then resolved. Under `order: latency` codes
 * take the account whose recent deliveries reached `delivered` soonest.
 */
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { DEFAULT_ALERT_RULES, EVERY_TENANT, observe, type Route } from '../../src/domain/index.js';
import type { AlertMessage, AlertTarget } from '../../src/observability/alert-delivery.js';
import { storeAlertSignals } from '../../src/observability/alert-signals.js';
import { Alerter } from '../../src/observability/alerter.js';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';

const MIN = 60_000;
const route = (order: Route['order']): Route => ({ tenantId: EVERY_TENANT, channel: 'sms', purpose: 'otp', accounts: ['sandbox-sms', 'sms-backup'], order });
const backup = (accounts: ProviderAccountConfig[]): ProviderAccountConfig[] => [{ ...accounts.find((a) => a.id === 'sandbox-sms')!, id: 'sms-backup' }];

describe.each(DRIVERS)('on %s', (driver) => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  let n = 0;
  /** Sends a code: its SMS delivery's id and the account intake chose for it. */
  const sendCode = async (over: Record<string, unknown> = {}): Promise<{ id: string; account: string }> => {
    const r = await h.send(otpBody({ recipient: { id: `u-${n++}`, phone: '+14155550123' }, ...over }));
    expect(r.status).toBe(202);
    return { id: r.json.deliveries[0].id, account: r.json.deliveries[0].provider_account };
  };
  const accountOf = async (over: Record<string, unknown> = {}): Promise<string> => (await sendCode(over)).account;
  const alertLines = async () => {
    const signals = await storeAlertSignals({ store: h.store, accounts: h.config.provider_accounts.map((a) => a.id) })(h.clock.now());
    return observe({ signals, rules: DEFAULT_ALERT_RULES, now: h.clock.now(), firing: new Set(), queueSamples: [] })
      .observations.filter((o) => o.rule === 'account_demoted')
      .map((o) => o.line);
  };
  /** The real alerter with one target that keeps what it is sent (the transport is not the point here). */
  const recordingAlerter = () => {
    const sent: AlertMessage[] = [];
    const target: AlertTarget = {
      kind: 'webhook',
      masked: 'memory',
      send: async (m) => {
        sent.push(m);
        return [{ providerAccount: null, ok: true, errorClass: null }];
      },
    };
    const alerter = new Alerter({
      store: h.store,
      clock: h.clock,
      logger: pino({ level: 'silent' }),
      signals: storeAlertSignals({ store: h.store, accounts: h.config.provider_accounts.map((a) => a.id) }),
      targets: [target],
      rules: DEFAULT_ALERT_RULES,
      policy: { resolveHoldMs: 0, minGapMs: 0, reminderMs: null },
      intervalMs: MIN,
      historyRetentionMs: 24 * 60 * MIN,
    });
    const announced = () => sent.flatMap((m) => m.announcements.filter((a) => a.rule === 'account_demoted').map((a) => [a.subject, a.kind]));
    return { alerter, announced };
  };
  /** The sandbox's `delivered` callback for each delivery, received now (the signed callback route is tested elsewhere). */
  const deliveredNow = async (ids: readonly string[]) => {
    for (const id of ids) {
      const d = (await h.store.getDelivery(id))!;
      await h.store.evidence.recordProviderEvents([
        {
          providerAccount: d.providerAccount,
          eventId: `ev-${id}`,
          status: 'delivered',
          providerMessageId: d.providerMessageId,
          reference: null,
          suppress: null,
          occurredAt: null,
          receivedAt: h.clock.now(),
        },
      ]);
    }
    await h.evidence.runOnce();
  };

  it('sends no new delivery to a primary demoted for slow delivery until it is restored; a pinned account still wins; both changes recorded, listed, counted and alerted', async () => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route('fixed')] } });
    const { alerter, announced } = recordingAlerter();
    const slow: string[] = [];
    for (let i = 0; i < 12; i++) {
      const c = await sendCode();
      expect(c.account).toBe('sandbox-sms');
      slow.push(c.id);
    }
    await h.worker.drain();
    // The twelve are delivered, but their callbacks come six minutes after acceptance (D is five):
    // the primary is slow, the backup healthy.
    h.clock.advance(6 * MIN);
    await deliveredNow(slow);
    expect((await h.store.getDelivery(slow[0]!))!.downstreamStatus).toBe('delivered');
    const [demotion] = await h.routeEvaluator!.runOnce();
    expect(demotion).toMatchObject({ providerAccount: 'sandbox-sms', action: 'demote', reasons: ['slow_delivery'] });
    await alerter.runOnce();
    expect(announced()).toEqual([['sandbox-sms', 'firing']]);
    expect(await accountOf()).toBe('sms-backup');
    expect(await accountOf({ provider_accounts: { sms: 'sandbox-sms' } })).toBe('sandbox-sms');
    expect(h.counters.series.routeChanges.get({ provider_account: 'sandbox-sms', action: 'demote' })).toBe(1);
    expect(await alertLines()).toEqual(['sandbox-sms demoted in route */sms/otp since 12:06 UTC (slow_delivery)']);
    const listed = await h.get('/v1/provider-accounts');
    expect(listed.json.items.find((a: { id: string }) => a.id === 'sandbox-sms').routes).toEqual([
      { route: '*/sms/otp', state: 'demoted', since: new Date(h.clock.now()).toISOString(), reasons: ['slow_delivery'] },
    ]);
    expect(listed.json.route_changes).toEqual([
      {
        route: '*/sms/otp',
        provider_account: 'sandbox-sms',
        action: 'demote',
        reasons: ['slow_delivery'],
        at: new Date(h.clock.now()).toISOString(),
        figures: { accepted: 12, slow: 12, calls: 0, failures: 0 },
      },
    ]);
    // Each route with its accounts in order and their standing, with the figures of the last change (the Providers page shows it).
    const demotedAt = new Date(h.clock.now()).toISOString();
    expect(listed.json.routes).toEqual([
      {
        route: '*/sms/otp',
        tenant: '*',
        channel: 'sms',
        purpose: 'otp',
        order: 'fixed',
        accounts: [
          {
            provider_account: 'sandbox-sms',
            position: 1,
            state: 'demoted',
            since: demotedAt,
            reasons: ['slow_delivery'],
            last_change: { action: 'demote', at: demotedAt, figures: { accepted: 12, slow: 12, calls: 0, failures: 0 } },
          },
          { provider_account: 'sms-backup', position: 2, state: 'in_service', since: null, reasons: [], last_change: null },
        ],
      },
    ]);

    // Within the cool-down nothing changes; once the window holds none of its slow codes, it is restored.
    h.clock.advance(4 * MIN);
    expect(await h.routeEvaluator!.runOnce()).toEqual([]);
    expect(await accountOf()).toBe('sms-backup');
    h.clock.advance(6 * MIN);
    const [restore] = await h.routeEvaluator!.runOnce();
    expect(restore).toMatchObject({ providerAccount: 'sandbox-sms', action: 'restore' });
    expect(await accountOf()).toBe('sandbox-sms');
    expect(h.counters.series.routeChanges.get({ provider_account: 'sandbox-sms', action: 'restore' })).toBe(1);
    expect(await alertLines()).toEqual([]);
    await alerter.runOnce();
    expect(announced()).toEqual([
      ['sandbox-sms', 'firing'],
      ['sandbox-sms', 'resolved'],
    ]);
    const after = await h.get('/v1/provider-accounts');
    expect(after.json.items.find((a: { id: string }) => a.id === 'sandbox-sms').routes).toMatchObject([{ route: '*/sms/otp', state: 'in_service' }]);
    expect(after.json.route_changes.map((c: { action: string }) => c.action)).toEqual(['restore', 'demote']);
    expect(after.json.routes[0].accounts[0]).toMatchObject({ provider_account: 'sandbox-sms', state: 'in_service', last_change: { action: 'restore' } });
  });

  it('orders codes by recent acceptance → delivered time under order: latency', async () => {
    h = await createHarness({ driver, moreAccounts: backup, routes: { routes: [route('latency')] } });
    // Without figures, the configured order.
    const first = await sendCode();
    expect(first.account).toBe('sandbox-sms');
    const second = await sendCode({ provider_accounts: { sms: 'sms-backup' } });
    expect(second.account).toBe('sms-backup');
    const acceptedAt = h.clock.now();
    await h.worker.drain();
    // The primary's code is delivered after 200 s, the backup's after 20 s.
    const delivered = async ({ id, account }: { id: string; account: string }, afterMs: number) => {
      const d = await h.store.getDelivery(id);
      await h.store.evidence.recordProviderEvents([
        {
          providerAccount: account,
          eventId: `ev-${account}`,
          status: 'delivered',
          providerMessageId: d!.providerMessageId,
          reference: null,
          suppress: null,
          occurredAt: null,
          receivedAt: acceptedAt + afterMs,
        },
      ]);
    };
    await delivered(first, 200_000);
    await delivered(second, 20_000);
    h.clock.advance(4 * MIN);
    await h.evidence.runOnce();
    await h.routeEvaluator!.runOnce();
    expect(Object.fromEntries(h.routeEvaluator!.latencyMs())).toEqual({ 'sandbox-sms': 200_000, 'sms-backup': 20_000 });
    expect(await accountOf()).toBe('sms-backup');
    // Transactional messages have no route: the channel's first account, as before routes.
    expect(await accountOf({ purpose: 'transactional' })).toBe('sandbox-sms');
  });
});
