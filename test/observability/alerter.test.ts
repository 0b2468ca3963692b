/**
 * Issue 14's "Done when" for operator alerts, on both drivers: with the sandbox refusing every
 * SMS on sandbox-sms, four failures send exactly one firing message (to a signed webhook and,
 * through a second SMS account on its own sandbox, to an on-call number), more failures send
 * nothing, and once the failures age out of the 15 minutes one recovery message follows. Also:
 * two processes evaluating at once send one round; a round nobody took is owed again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { resolveAlerts, type RawAlertsConfig } from '../../src/config/alerts-config.js';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { createAlerter } from '../../src/runtime/alerter-wiring.js';
import { createAdapter } from '../../src/runtime/node.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { generateWebhookSecret, verifyWebhook } from '../../src/signing/standard-webhooks.js';
import type { Store } from '../../src/store/store.js';
import { DRIVERS, createHarness, otpBody, silentLogger, type Harness } from '../helpers/harness.js';
import { Receiver } from '../webhooks/receiver.js';

const ONCALL = '+4915112345689';
const MIN = 60_000;

describe.each(DRIVERS)('operator alerts (%s)', (driver) => {
  let h: Harness;
  let backup: SandboxHandle;
  let hook: Receiver;
  let accounts: ProviderAccountConfig[];
  const secret = generateWebhookSecret();
  const closers: Array<() => unknown> = [];

  beforeEach(async () => {
    h = await createHarness({ driver });
    backup = await startSandbox({ port: 0, seed: 2, now: () => new Date(h.clock.now()) });
    hook = await new Receiver().open();
    const sms = h.config.provider_accounts.find((a) => a.channel === 'sms')!;
    const mail = h.config.provider_accounts.find((a) => a.channel === 'email')!;
    accounts = [...h.config.provider_accounts, { ...sms, id: 'sms-backup', base_url: backup.url }, { ...mail, id: 'mail-backup', base_url: backup.url }];
  });
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    await hook.close();
    await backup.close();
    await h.close();
  });

  function alerter(alerts: RawAlertsConfig, store: Store = h.store, registry?: Registry) {
    const adapters = new Map(accounts.map((a) => [a.id, createAdapter(a)] as const));
    const wired = createAlerter({
      // Rejected codes also fill the review queue; its rule is off here so each test watches one rule.
      config: { ...h.config, alerts: resolveAlerts({ allow_networks: ['127.0.0.0/8'], rules: { review_queue_growing: { enabled: false } }, ...alerts }) },
      accounts,
      adapters,
      store,
      clock: h.clock,
      logger: silentLogger,
      ...(registry ? { registry } : {}),
    })!;
    closers.push(
      () => wired.close(),
      () => Promise.all([...adapters.values()].map((a) => a.close())),
    );
    return wired.alerter;
  }

  async function failSms(n: number) {
    for (let i = 0; i < n; i++) expect((await h.send(otpBody({ recipient: { id: `user-${i}-${h.clock.now()}`, phone: '+14155550123' } }))).status).toBe(202);
    await h.worker.drain();
  }

  const smsToOncall = () => backup.ledger.entries({ channel: 'sms' }).filter((e) => e.destination === ONCALL);
  const bodies = () =>
    hook.delivered.map((r) => JSON.parse(r.body) as { type: string; text: string; alerts: Array<{ rule: string; subject: string; kind: string }> });

  it('sends one firing message at four failures, none while it keeps failing, and one recovery message', async () => {
    const registry = new Registry();
    const a = alerter({ sms: { to: [ONCALL], accounts: ['sandbox-sms', 'sms-backup'] }, webhooks: [{ url: hook.url, secret }] }, h.store, registry);
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1000 });

    await failSms(3);
    expect((await a.runOnce()).round).toBeNull();
    expect(hook.requests).toHaveLength(0);

    await failSms(1);
    const firing = await a.runOnce();
    expect(firing.round?.results.map((r) => [r.targetKind, r.target, r.ok, r.tries.map((t) => t.providerAccount)])).toEqual([
      ['sms', '+4915*******89', true, ['sms-backup']],
      ['webhook', 'http://127.0.0.1:' + hook.port + '/…', true, [null]],
    ]);
    expect(bodies()).toEqual([
      expect.objectContaining({
        type: 'alert.round',
        text: '4 messages failed on sandbox-sms in the last 15 minutes\n1 alert firing now.',
        alerts: [expect.objectContaining({ rule: 'provider_failures', subject: 'sandbox-sms', kind: 'firing' })],
      }),
    ]);
    const r = hook.delivered[0]!;
    expect(verifyWebhook([secret], r.headers, r.body, h.clock.now())).toMatchObject({ ok: true });
    // Never through the failing account: the on-call SMS went through the backup sandbox only.
    expect(smsToOncall()).toHaveLength(1);
    expect(h.sandbox.ledger.entries().filter((e) => e.destination === ONCALL)).toHaveLength(0);

    for (let i = 0; i < 3; i++) {
      h.clock.advance(30_000);
      await failSms(2);
      expect((await a.runOnce()).round).toBeNull();
    }
    expect(hook.delivered).toHaveLength(1);
    expect(smsToOncall()).toHaveLength(1);
    expect((await h.get('/v1/alerts/active')).json.items).toEqual([
      expect.objectContaining({
        rule: 'provider_failures',
        subject: 'sandbox-sms',
        line: '10 messages failed on sandbox-sms in the last 15 minutes',
        announced: true,
      }),
    ]);

    // The failures stop; once they have aged out of the 15-minute window, one recovery message.
    h.clock.advance(16 * MIN);
    const resolved = await a.runOnce();
    expect(resolved.round?.message.announcements.map((x) => x.kind)).toEqual(['resolved']);
    h.clock.advance(MIN);
    expect((await a.runOnce()).round).toBeNull();
    expect(bodies().map((b) => b.alerts.map((x) => x.kind))).toEqual([['firing'], ['resolved']]);
    expect(bodies()[1]!.text).toMatch(
      /^resolved: 10 messages failed on sandbox-sms in the last 15 minutes \(firing since \d\d:\d\d UTC\)\nNothing is firing now\.$/,
    );
    expect(smsToOncall()).toHaveLength(2);
    expect((await h.get('/v1/alerts/active')).json.items).toEqual([]);

    const history = (await h.get('/v1/alerts')).json;
    expect(history.items.map((i: any) => [i.kind, i.target_kind, i.provider_account, i.outcome])).toEqual([
      ['resolved', 'webhook', null, 'sent'],
      ['resolved', 'sms', 'sms-backup', 'sent'],
      ['firing', 'webhook', null, 'sent'],
      ['firing', 'sms', 'sms-backup', 'sent'],
    ]);
    expect(JSON.stringify(history)).not.toContain(ONCALL);
    expect(await registry.getSingleMetricAsString('herald_alerts_sent_total')).toContain('herald_alerts_sent_total{rule="provider_failures",kind="firing"} 1');
  });

  it('sends one round when two processes evaluate at the same time', async () => {
    const peer = h.openPeerStore();
    const one = alerter({ webhooks: [{ url: hook.url, secret }] });
    const two = alerter({ webhooks: [{ url: hook.url, secret }] }, peer);
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1000 });
    await failSms(4);
    const passes = await Promise.all([one.runOnce(), two.runOnce()]);
    expect(passes.filter((p) => p.round !== null)).toHaveLength(1);
    expect(hook.delivered).toHaveLength(1);
    expect(await one.runOnce()).toMatchObject({ round: null });
  });

  it('tries the next account when one fails, records each try, and owes a round nobody took', async () => {
    hook.respond = () => ({ status: 503 });
    const a = alerter({ sms: { to: [ONCALL], accounts: ['sms-backup', 'sandbox-sms'] }, webhooks: [{ url: hook.url, secret }] });
    backup.faults.set({ mode: 'reject_permanent', count: 1000 });
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1000 });
    await failSms(4);
    const first = await a.runOnce();
    // sandbox-sms is the subject, so only sms-backup is tried; it refuses; the webhook answers 503.
    expect(first.round?.results.map((r) => [r.targetKind, r.ok, r.tries.map((t) => [t.providerAccount, t.errorClass])])).toEqual([
      ['sms', false, [['sms-backup', 'permanent:invalid_destination']]],
      ['webhook', false, [[null, 'http_503']]],
    ]);
    expect((await h.get('/v1/alerts/active')).json.items[0]).toMatchObject({ announced: false });
    // Owed again: the next evaluation after the gap sends it, now that the webhook answers.
    hook.respond = () => ({ status: 204 });
    h.clock.advance(5 * MIN);
    await failSms(1);
    const second = await a.runOnce();
    expect(second.round?.results.find((r) => r.targetKind === 'webhook')?.ok).toBe(true);
    expect(bodies().map((b) => b.alerts.map((x) => x.kind))).toEqual([['firing']]);
    const history = (await h.get('/v1/alerts?limit=200')).json.items;
    expect(
      history
        .filter((i: any) => i.outcome === 'failed')
        .map((i: any) => i.error_class)
        .sort(),
    ).toEqual(['http_503', 'permanent:invalid_destination', 'permanent:invalid_destination']);
  });

  it('e-mail falls over to the next account when the first refuses, and says so in the history', async () => {
    // Every send to the main sandbox is refused, e-mail included: sandbox-email (first in order) fails, mail-backup takes it.
    const a = alerter({ email: { to: ['oncall@example.com'] } });
    h.sandbox.faults.set({ mode: 'reject_permanent', count: 1000 });
    await failSms(4);
    const pass = await a.runOnce();
    expect(pass.round?.results).toEqual([
      {
        targetKind: 'email',
        target: 'o***@example.com',
        ok: true,
        tries: [
          { providerAccount: 'sandbox-email', ok: false, errorClass: expect.stringMatching(/^permanent:/) },
          { providerAccount: 'mail-backup', ok: true, errorClass: null },
        ],
      },
    ]);
    expect(backup.ledger.entries({ channel: 'email' }).map((e) => e.destination)).toEqual(['oncall@example.com']);
    const history = (await h.get('/v1/alerts')).json.items;
    expect(history.map((i: any) => [i.provider_account, i.outcome])).toEqual([
      ['mail-backup', 'sent'],
      ['sandbox-email', 'failed'],
    ]);
  });

  it('keeps the history for alerts.history_days', async () => {
    const row = {
      rule: null,
      subject: null,
      kind: 'test' as const,
      targetKind: 'webhook' as const,
      target: 'x',
      providerAccount: null,
      outcome: 'sent' as const,
      errorClass: null,
    };
    await h.store.alerts.recordSent([
      { ...row, sentAt: h.clock.now() - 31 * 86_400_000 },
      { ...row, sentAt: h.clock.now() - 29 * 86_400_000 },
    ]);
    await alerter({ webhooks: [{ url: hook.url, secret }], history_days: 30 }).runOnce();
    expect((await h.store.alerts.listHistory(null, 10)).items.map((i) => i.sentAt)).toEqual([h.clock.now() - 29 * 86_400_000]);
  });
});
