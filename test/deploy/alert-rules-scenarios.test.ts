/**
 * The shipped alert rules fire for real failures and stay silent for a healthy phone gateway
 * (issue 25), judged by promtool's own `alert_rule_test` on series Herald produced. On both
 * store drivers a harness runs the sandbox accounts beside `phones`, an android_gateway account
 * served by two simulated phones over the SMSGate protocol: `pixel` delivers everything, `moto`
 * has no service and reports `Failed` before sending. Each scenario runs minute by minute on the
 * manual clock, as a running Herald would (the worker, the sweeper and the phones' report
 * applier each minute), and GET /metrics is scraped once a minute; those scrapes, unchanged, are
 * promtool's `input_series`. Each scrape sees the minute's new phone messages offered (attempt
 * `unknown`, code `offered`) with their reports not yet applied, and the earlier ones Sent and
 * Delivered: the states the old attempt count took for failures.
 *
 * The rule test then states, for every rule and every minute, which alerts are firing, with
 * their labels and annotations: none in the healthy scenario; in the failing one
 * HeraldProviderFailures for each account with its four failed messages, and HeraldDeadlineMisses
 * once the phone's four codes expire unsent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PhoneSim } from '../../src/devices/phone-sim.js';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { gatewayAccount, MINUTE, phoneFor, until } from '../devices/gateway-harness.js';
import { createHarness, DRIVERS, otpBody, type Harness } from '../helpers/harness.js';
import { findPromtool } from '../helpers/promtool.js';
import { inputSeries, rules, runRuleTest, scrape, type AlertRule, type Scrape } from './rule-test-input.js';

const tool = findPromtool('`promtool test rules` (alert_rule_test) on scenarios Herald ran');

const PHONES = 'phones';
/** What Android reports for an SMS sent with no mobile service, as the SMSGate app words it. */
const NO_SERVICE = 'Send result: RESULT_ERROR_NO_SERVICE (No service)';

/** The harness's sandbox accounts and `phones`: the sandbox SMS account's settings, made an android_gateway account. */
const withPhones = (accounts: ProviderAccountConfig[]): ProviderAccountConfig[] => [
  { ...gatewayAccount(accounts.find((a) => a.id === 'sandbox-sms')!), id: PHONES },
];

/** One minute's new traffic. */
interface Traffic {
  /** Codes through the sandbox SMS account, and how many of them it refuses permanently. */
  sandboxSms?: number;
  refused?: number;
  /** Codes by e-mail through the sandbox. */
  email?: number;
  /** Codes to the phone that delivers, and to the one without service. */
  delivered?: number;
  noService?: number;
}

/** A message Herald offered a phone, with the state the phone ends it in. */
interface PhoneMessage {
  notification: string;
  phone: PhoneSim;
  ends: 'Delivered' | 'Failed';
}

/** An alert promtool must see firing: its labels and annotations. */
interface ExpAlert {
  exp_labels: Record<string, string>;
  exp_annotations: Record<string, string>;
}

/** The rule's annotations for an alert with these labels and value (the templates the shipped rules use for these two). */
function annotated(rule: AlertRule, labels: Record<string, string>, value: number): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rule.annotations ?? {}).map(([k, template]) => {
      const text = template.replaceAll('{{ $value | printf "%.0f" }}', String(value)).replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, l: string) => labels[l] ?? '');
      expect(text, `a template of ${rule.alert} this test cannot render`).not.toContain('{{');
      return [k, text];
    }),
  );
}

/** `rule` firing with `labels` (job added) at `value`. */
function firing(alert: string, labels: Record<string, string>, value: number): ExpAlert {
  const rule = rules.find((r) => r.alert === alert);
  expect(rule, `${alert} is a shipped rule`).toBeDefined();
  const all = { ...rule!.labels, job: 'herald', ...labels };
  return { exp_labels: all, exp_annotations: annotated(rule!, all, value) };
}

describe.skipIf(!tool.available).each(DRIVERS)('the shipped alert rules on a run of Herald (%s)', (driver) => {
  let h: Harness;
  let pixel: PhoneSim;
  let moto: PhoneSim;
  /** One scrape per minute, minute 0 first. */
  let scrapes: Scrape[];
  /** Phone messages whose offer's end the next minute applies. */
  let offered: PhoneMessage[];
  /** Every message sent, by the state its delivery must end the scenario in. */
  let sent: { notification: string; expect: Record<string, unknown> }[];
  let n = 0;

  afterEach(async () => {
    await pixel?.close();
    await moto?.close();
    await h?.close();
  });

  async function start(): Promise<void> {
    h = await createHarness({ driver, metrics: { cacheMs: 0 }, moreAccounts: withPhones, devices: { keepalive_seconds: 1 } });
    pixel = phoneFor(h, { name: 'pixel' });
    moto = phoneFor(h, { name: 'moto', defaultScript: { kind: 'fail', error: NO_SERVICE } });
    for (const p of [pixel, moto]) await p.start();
    scrapes = [];
    offered = [];
    sent = [];
  }

  /** Sends a code; its notification id. */
  async function send(over: Record<string, unknown>): Promise<string> {
    n++;
    const r = await h.send(
      otpBody({ recipient: { id: `user-${n}`, phone: `+1415555${String(1000 + n)}`, email: `user-${n}@example.com` }, ttl_seconds: 600, ...over }),
    );
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    return r.json.id as string;
  }

  /** Waits until each phone has ended its current offer of every message in `messages` as expected. */
  async function phonesEnd(messages: PhoneMessage[]): Promise<void> {
    for (const m of messages) {
      const d = (await h.get(`/v1/notifications/${m.notification}`)).json.deliveries[0];
      if (d.state !== 'unknown') continue;
      const offer = await h.store.devices.currentOffer({ providerAccount: PHONES, idempotencyKey: d.idempotency_key });
      expect(offer, 'an offer for the current attempt').not.toBeNull();
      await until(m.phone, () => expect(m.phone.message(offer!.messageId)?.state).toBe(m.ends));
    }
  }

  /**
   * One minute of Herald: the clock moves on (and both phones call in),
   * retries that came due go out, the phones' reports on the last minute's offers (and on these
   * retries) are applied, the sweeper runs, then this minute's messages are sent and offered, and
   * /metrics is scraped before the phones' reports on them are applied.
   */
  async function minute(traffic: Traffic = {}): Promise<void> {
    if (scrapes.length > 0) {
      h.clock.advance(MINUTE);
      // Both phones call in (a pull, as the app's periodic one), so neither counts as away.
      for (const p of [pixel, moto]) await p.pull();
    }
    await h.worker.drain();
    await phonesEnd(offered);
    await h.devices!.reports.runOnce();
    await h.sweeper.runOnce();
    offered = offered.filter((m) => m.ends === 'Failed');

    if (traffic.refused) h.sandbox.faults.set({ mode: 'reject_permanent', count: traffic.refused });
    for (let i = 0; i < (traffic.sandboxSms ?? 0); i++) {
      const refused = i < (traffic.refused ?? 0);
      sent.push({ notification: await send({}), expect: refused ? { state: 'terminal', terminal_reason: 'rejected' } : { state: 'accepted' } });
    }
    // The refusals go out alone, so the sandbox's fault takes exactly these codes.
    if (traffic.refused) await h.worker.drain();
    for (let i = 0; i < (traffic.email ?? 0); i++) sent.push({ notification: await send({ channels: ['email'] }), expect: { state: 'accepted' } });
    const toPhone = async (phone: PhoneSim, ends: PhoneMessage['ends']) => {
      const notification = await send({ provider_accounts: { sms: PHONES }, metadata: { herald_device_id: phone.registration!.id } });
      offered.push({ notification, phone, ends });
      return notification;
    };
    for (let i = 0; i < (traffic.delivered ?? 0); i++)
      sent.push({ notification: await toPhone(pixel, 'Delivered'), expect: { state: 'accepted', provider_account: PHONES, downstream_status: 'delivered' } });
    for (let i = 0; i < (traffic.noService ?? 0); i++)
      sent.push({ notification: await toPhone(moto, 'Failed'), expect: { state: 'terminal', terminal_reason: 'expired', provider_account: PHONES } });
    await h.worker.drain();
    await phonesEnd(offered);
    scrapes.push(await scrape(h));
  }

  /**
   * promtool's verdict on the scrapes: at every minute, each shipped rule has exactly the alerts
   * `alerts(minute)` names for it firing (none for a rule it leaves out).
   */
  function expectAlerts(alerts: (minute: number) => Record<string, ExpAlert[]>): void {
    const alert_rule_test = scrapes.flatMap((_, m) => {
      const want = alerts(m);
      for (const name of Object.keys(want)) expect(rules.map((r) => r.alert)).toContain(name);
      return rules.map((r) => ({ eval_time: `${m}m`, alertname: r.alert, exp_alerts: want[r.alert] ?? [] }));
    });
    const verdict = runRuleTest(tool, { input_series: inputSeries(scrapes), alert_rule_test });
    expect(verdict.status, verdict.output).toBe(0);
    expect(verdict.output).toContain('SUCCESS');
  }

  /** Every message's delivery ended the scenario as its traffic said. */
  async function expectDeliveries(): Promise<void> {
    for (const s of sent) {
      const d = (await h.get(`/v1/notifications/${s.notification}`)).json.deliveries[0];
      expect(d, JSON.stringify(d)).toMatchObject(s.expect);
    }
  }

  it('a healthy phone gateway and ordinary successes for 20 minutes: no alert fires', async () => {
    await start();
    for (let m = 0; m < 20; m++) await minute({ delivered: 2, sandboxSms: 1, email: 1 });
    await minute();
    await expectDeliveries();
    expect(pixel.sends).toHaveLength(40);
    expectAlerts(() => ({}));
  }, 120_000);

  it('a provider refusing four codes and a phone without service failing four: HeraldProviderFailures for each account, then HeraldDeadlineMisses', async () => {
    await start();
    // Minutes 0-1 healthy; at minute 2 the sandbox refuses four codes and four go to the phone
    // without service, among successes; then successes only, until the phone's codes expire
    // (10 minutes after minute 2) and three minutes more.
    for (let m = 0; m < 2; m++) await minute({ delivered: 1, sandboxSms: 1, email: 1 });
    await minute({ sandboxSms: 4, refused: 4, noService: 4, delivered: 1, email: 1 });
    for (let m = 3; m <= 14; m++) await minute({ delivered: 1, email: 1 });
    await minute();
    await expectDeliveries();
    expect(moto.sends).toHaveLength(0);
    expect(firing('HeraldProviderFailures', { provider_account: PHONES }, 4).exp_annotations.summary).toBe(
      '4 messages failed on phones in the last 15 minutes',
    );

    expectAlerts((m) => {
      // The sandbox's refusals are failed messages from the minute-2 scrape on (pending there,
      // firing a minute later, `for: 1m`); the phone's from minute 3, when its reports are
      // applied (at minute 2 they are offers, which are no failure).
      const providerFailures = [
        ...(m >= 3 ? [firing('HeraldProviderFailures', { provider_account: 'sandbox-sms' }, 4)] : []),
        ...(m >= 4 ? [firing('HeraldProviderFailures', { provider_account: PHONES }, 4)] : []),
      ];
      // The phone's codes, retried on the otp ladder and failed each time, expire unsent at minute 12.
      const deadlineMisses = m >= 13 ? [firing('HeraldDeadlineMisses', { channel: 'sms', purpose: 'otp' }, 4)] : [];
      return { HeraldProviderFailures: providerFailures, HeraldDeadlineMisses: deadlineMisses };
    });
  }, 120_000);
});
