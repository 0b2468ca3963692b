/**
 * The seed's sentence, "the dashboard telling you four messages failed", walked in real Chromium
 * against a real `herald start` (sandbox provider, a phone simulator on the android_gateway
 * account `phones`, SQLite): phone messages the phone delivered are never counted anywhere (the
 * overview banner, GET /v1/stats, the /metrics gauge, the operator alerter), four messages the
 * provider refuses and four the phone fails before sending are counted as exactly four on each
 * account, the messages page's Failed filter lists exactly those eight, and a retry from a list
 * row and from the device page gets them through. Polls with deadlines, never fixed sleeps.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PhoneSim, type MessageScript } from '../../src/devices/phone-sim.js';
import { killChildren, poll, removeTempDirs } from '../cli/spawn.js';
import { findChromium, launchBrowser, type Browser } from './browser.js';
import { PHONE_ACCOUNT, PHONE_TOKEN, startHeraldUnderTest, type HeraldUnderTest } from './herald-under-test.js';

const chromium = findChromium();
const SANDBOX_SMS = 'sandbox-sms';

describe.runIf(chromium.available)('four messages failed, in Chromium', { timeout: 120_000 }, () => {
  let herald: HeraldUnderTest;
  let browser: Browser;
  let page: Page;
  let phone: PhoneSim;
  /** What the phone does with a message it has not seen; changed by the steps (the simulator reads it per message). */
  const phoneOpts: { server: string; privateToken: string; name: string; reconnectMs: number; defaultScript: MessageScript } = {
    server: '',
    privateToken: PHONE_TOKEN,
    name: 'Shop phone',
    reconnectMs: 50,
    defaultScript: { kind: 'deliver' },
  };
  let deviceId = '';
  let n = 0;
  const refused: string[] = [];
  const phoneFailed: string[] = [];

  /** A transactional SMS through `account` (its ladder waits 15 s or more before a retry); its delivery id. */
  async function sendSms(account: string): Promise<string> {
    const r = await herald.api('POST', '/v1/notifications', {
      recipient: { id: `walk-${n}`, phone: `+1415555${String(2000 + n++)}` },
      purpose: 'transactional',
      channels: ['sms'],
      content: { text: 'Your order has shipped' },
      ttl_seconds: 3600,
      provider_accounts: { sms: account },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    return (await herald.api('GET', `/v1/notifications/${r.json.id}`)).json.deliveries[0].id;
  }

  const delivery = async (id: string) => (await herald.api('GET', `/v1/deliveries/${id}`)).json as { state: string; downstream_status: string | null };
  const until = (what: string, ids: string[], ok: (d: { state: string; downstream_status: string | null }) => boolean, ms = 30_000) =>
    poll(async () => ((await Promise.all(ids.map(delivery))).every(ok) ? true : undefined), what, ms);

  /** failures_last_15m per account from GET /v1/stats. */
  async function statsFailures(): Promise<Record<string, number>> {
    const r = await herald.api('GET', '/v1/stats');
    expect(r.status).toBe(200);
    return Object.fromEntries((r.json.provider_accounts as { id: string; failures_last_15m: number }[]).map((a) => [a.id, a.failures_last_15m]));
  }

  /** herald_provider_failures_last_15m per account from /metrics. */
  async function gauge(): Promise<Record<string, number>> {
    const res = await fetch(`${herald.url}/metrics`, { headers: { authorization: `Bearer ${herald.key}` } });
    expect(res.status).toBe(200);
    const out: Record<string, number> = {};
    for (const m of (await res.text()).matchAll(/^herald_provider_failures_last_15m\{provider_account="([^"]+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
    return out;
  }

  /** The accounts the operator alerter's provider_failures rule is firing for. */
  async function alerting(): Promise<string[]> {
    const r = await herald.api('GET', '/v1/alerts/active');
    expect(r.status).toBe(200);
    return (r.json.items as { rule: string; subject: string }[])
      .filter((i) => i.rule === 'provider_failures')
      .map((i) => i.subject)
      .sort();
  }

  const banners = () => page.getByRole('alert').filter({ hasText: /failed on .* in the last 15 minutes/ });

  beforeAll(async () => {
    // The alerter needs a target to run; it evaluates every 5 s so the walk need not wait 30.
    herald = await startHeraldUnderTest({ alerts: { interval_seconds: 5, email: { to: ['ops@example.com'] } } });
    browser = await launchBrowser(chromium);
    page = browser.page;
    phoneOpts.server = `${herald.url}/mobile/v1`;
    phone = new PhoneSim(phoneOpts);
    await phone.start();
    deviceId = await poll(async () => {
      const r = await herald.api('GET', '/v1/devices');
      return r.json.items[0]?.online ? (r.json.items[0].id as string) : undefined;
    }, 'the simulated phone to register');
    await page.goto(`${herald.url}/dashboard/`);
    await page.getByLabel('API key').fill(herald.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 90_000);

  afterAll(async () => {
    await phone?.close();
    await browser?.close();
    await killChildren();
    removeTempDirs();
  });

  it('never counts phone messages the phone delivered, while four provider refusals are counted and alerted', async () => {
    const delivered = [
      await sendSms(PHONE_ACCOUNT),
      await sendSms(PHONE_ACCOUNT),
      await sendSms(PHONE_ACCOUNT),
      await sendSms(PHONE_ACCOUNT),
      await sendSms(PHONE_ACCOUNT),
    ];
    const ok = [await sendSms(SANDBOX_SMS), await sendSms(SANDBOX_SMS)];
    await until('the phone to deliver its five', delivered, (d) => d.downstream_status === 'delivered');
    await until('the sandbox to accept two', ok, (d) => d.state === 'accepted');
    await herald.fault({ mode: 'reject_permanent', count: 4 });
    for (let i = 0; i < 4; i++) refused.push(await sendSms(SANDBOX_SMS));
    await until('four rejections', refused, (d) => d.state === 'terminal');

    await page.goto(`${herald.url}/dashboard/`);
    await banners().filter({ hasText: '4 messages failed on sandbox-sms in the last 15 minutes' }).waitFor({ timeout: 20_000 });
    expect(await banners().allInnerTexts()).toEqual([expect.stringContaining('4 messages failed on sandbox-sms')]);
    expect(await statsFailures()).toMatchObject({ [SANDBOX_SMS]: 4 });
    expect((await statsFailures())[PHONE_ACCOUNT] ?? 0).toBe(0);
    await poll(async () => ((await gauge())[SANDBOX_SMS] === 4 ? true : undefined), 'the gauge to count the refusals', 20_000);
    expect(await gauge()).toMatchObject({ [SANDBOX_SMS]: 4, [PHONE_ACCOUNT]: 0 });
    // The alerter fires for the provider's refusals; in the same evaluation, five delivered phone messages are no failure.
    await poll(async () => ((await alerting()).includes(SANDBOX_SMS) ? true : undefined), 'the provider_failures alert for sandbox-sms', 30_000);
    expect(await alerting()).toEqual([SANDBOX_SMS]);
  });

  it('counts four messages the phone failed before sending as four, on the banner, the stats, the gauge and the alerter', async () => {
    phoneOpts.defaultScript = { kind: 'fail', error: 'RESULT_ERROR_NO_SERVICE' };
    for (let i = 0; i < 4; i++) phoneFailed.push(await sendSms(PHONE_ACCOUNT));
    await poll(async () => {
      const r = await herald.api('GET', `/v1/devices/${deviceId}/messages?phone_state=Failed`);
      return r.json.items.length >= 4 ? true : undefined;
    }, 'four messages to fail on the phone');

    await page.goto(`${herald.url}/dashboard/`);
    await banners().filter({ hasText: '4 messages failed on phones in the last 15 minutes' }).waitFor({ timeout: 20_000 });
    expect((await banners().allInnerTexts()).sort()).toEqual([
      expect.stringContaining('4 messages failed on phones'),
      expect.stringContaining('4 messages failed on sandbox-sms'),
    ]);
    expect(await statsFailures()).toMatchObject({ [SANDBOX_SMS]: 4, [PHONE_ACCOUNT]: 4 });
    // The gauge reads a snapshot the metrics refresh every few seconds: poll until it shows the phones' failures.
    await poll(async () => ((await gauge())[PHONE_ACCOUNT] === 4 ? true : undefined), 'the gauge to count the phones failures', 20_000);
    expect(await gauge()).toMatchObject({ [SANDBOX_SMS]: 4, [PHONE_ACCOUNT]: 4 });
    await poll(async () => ((await alerting()).includes(PHONE_ACCOUNT) ? true : undefined), 'the provider_failures alert for phones', 30_000);
  });

  it('lists exactly the eight failed messages under the Failed filter, and a row Retry gets one through', async () => {
    await page.goto(`${herald.url}/dashboard/messages`);
    await page.getByRole('link', { name: 'Failed', exact: true }).click();
    await page.waitForURL(/\/dashboard\/messages\?failed=true$/);
    // The preset is visibly selected, and so is the status checkbox.
    expect(await page.getByRole('link', { name: 'Failed', exact: true }).getAttribute('aria-current')).toBe('true');
    expect(await page.getByLabel('Failed only').isChecked()).toBe(true);
    // Exactly the eight (a phone failure the ladder is re-offering this second is briefly not failed: poll).
    const want = [...refused, ...phoneFailed].sort().join(' ');
    await poll(
      async () =>
        (await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-delivery')))).sort().join(' ') === want ? true : undefined,
      'the Failed filter to list the eight failed messages',
      20_000,
    );

    const row = page.locator(`tr[data-delivery="${refused[0]}"]`);
    await row.getByRole('button', { name: `Retry delivery ${refused[0]}` }).click();
    await page.getByRole('dialog', { name: 'Retry this delivery?' }).getByRole('button', { name: 'Retry now' }).click();
    await until('the row retry to be accepted', [refused[0]!], (d) => d.state === 'accepted', 20_000);
    // The list follows: the retried row leaves the Failed filter.
    await row.waitFor({ state: 'detached', timeout: 20_000 });
  });

  it("retries a phone's failed message from the device page, and the phone delivers it", async () => {
    phoneOpts.defaultScript = { kind: 'deliver' };
    const target = phoneFailed[0]!;
    await page.goto(`${herald.url}/dashboard/devices/${deviceId}`);
    const button = page.getByRole('button', { name: `Retry delivery ${target}` }).first();
    await button.waitFor();
    await button.click();
    await page.getByRole('dialog', { name: 'Retry this delivery?' }).getByRole('button', { name: 'Retry now' }).click();
    await until('the phone to deliver the retried message', [target], (d) => d.downstream_status === 'delivered', 30_000);
    // Delivered now: counted nowhere. The stats, the gauge and the Failed filter agree on what is left
    // (the phone's other failures, which their ladder may retry meanwhile, now to a phone that delivers).
    await poll(
      async () => {
        const left = (await herald.api('GET', `/v1/deliveries?failed=true&provider_account=${PHONE_ACCOUNT}`)).json.items as { id: string }[];
        if (left.some((d) => d.id === target)) return undefined;
        const [stats, metrics] = [(await statsFailures())[PHONE_ACCOUNT] ?? 0, (await gauge())[PHONE_ACCOUNT]];
        return stats === left.length && metrics === left.length && stats < 4 ? true : undefined;
      },
      'the phones count to drop, the same on every surface',
      20_000,
    );
  });
});
