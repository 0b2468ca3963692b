/**
 * The dashboard end to end, in real Chromium against a real `herald start` (sandbox provider,
 * phone gateway, SQLite): sign in, the CSRF guard, the overview banner when the sandbox starts
 * failing, filtering to failed, opening a message and retrying it while its state changes in
 * place and the provider's callbacks arrive in its evidence, a device's "retry all failed" with
 * the phone simulator and its battery level, the providers' recent errors and a route with a demoted account, the campaign list, a
 * revoked session's live stream closing by itself, and every page's screenshot. The screenshots
 * go to a temp directory; with HERALD_SCREENSHOTS=docs they replace docs/dashboard/*.png (used by
 * the README), so a plain test run leaves the work tree as it found it. One browser and one page
 * for the whole file.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PhoneSim } from '../../src/devices/phone-sim.js';
import { databasePath } from '../../src/runtime/node.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { killChildren, poll, removeTempDirs, ROOT } from '../cli/spawn.js';
import { findChromium, launchBrowser, type Browser } from './browser.js';
import { PHONE_ACCOUNT, PHONE_TOKEN, startHeraldUnderTest, type HeraldUnderTest } from './herald-under-test.js';

const chromium = findChromium();
const SHOTS = process.env.HERALD_SCREENSHOTS === 'docs' ? join(ROOT, 'docs/dashboard') : mkdtempSync(join(tmpdir(), 'herald-shots-'));

describe.runIf(chromium.available)('the dashboard in Chromium', { timeout: 60_000 }, () => {
  let herald: HeraldUnderTest;
  let browser: Browser;
  let page: Page;
  let phone: PhoneSim | null = null;
  /** Script errors and Content-Security-Policy refusals seen on any page, checked by the last test. */
  const pageErrors: string[] = [];

  const go = (path: string) => page.goto(`${herald.url}/dashboard${path}`);
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  /**
   * Each code goes to a number of its own: the default velocity limit allows 5 codes per number
   * in 10 minutes (docs/abuse-limits.md), and this file sends more than that.
   */
  let phones = 0;
  const nextPhone = () => `+1415555${String(100 + (phones++ % 900)).padStart(4, '0')}`;

  /** Sends an SMS notification (through `account` when given) and returns its first delivery's id. */
  async function sendSms(recipient: string, account?: string): Promise<{ notification: string; delivery: string }> {
    const r = await herald.api('POST', '/v1/notifications', {
      recipient: { id: recipient, phone: nextPhone() },
      purpose: 'otp',
      channels: ['sms'],
      content: { text: 'Your code is 424242' },
      ttl_seconds: 900,
      ...(account ? { provider_accounts: { sms: account } } : {}),
    });
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    const n = await herald.api('GET', `/v1/notifications/${r.json.id}`);
    return { notification: r.json.id, delivery: n.json.deliveries[0].id };
  }

  async function deliveryState(id: string): Promise<{ state: string; terminal_reason: string | null; last_error_code: string | null }> {
    const r = await herald.api('GET', `/v1/deliveries/${id}`);
    expect(r.status).toBe(200);
    return r.json;
  }

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // A route no step sends on (SMS alerts), so failover never moves the other steps' codes; a day's
    // cool-down keeps the evaluator from undoing the demotion the providers step records.
    herald = await startHeraldUnderTest({ routes: { sms: { alert: ['sandbox-sms', PHONE_ACCOUNT] }, demotion: { cool_down_s: 86_400 } } });
    browser = await launchBrowser(chromium);
    page = browser.page;
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content.Security.Policy|Refused to/i.test(m.text())) pageErrors.push(`${page.url()}: ${m.text()}`);
    });
  }, 60_000);

  // A failed step leaves a screenshot of what the browser showed, named in the output.
  afterEach(async (ctx) => {
    // Each step starts with a healthy sandbox, whatever the one before left.
    await herald?.fault(null);
    if (ctx.task.result?.state !== 'fail' || !page) return;
    const path = join(tmpdir(), `herald-e2e-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`);
    await page.screenshot({ path, fullPage: true }).catch(() => undefined);
    console.error(`screenshot of the failed step: ${path} (at ${page.url()})`);
  });

  afterAll(async () => {
    await phone?.close();
    await browser?.close();
    await killChildren();
    removeTempDirs();
  });

  it('sends a signed-out visitor to sign-in, and back to the page they asked for after signing in with an API key', async () => {
    await go('/messages?state=terminal');
    await page.getByRole('heading', { name: 'Sign in to Herald' }).waitFor();
    await shot('sign-in');
    await page.getByLabel('API key').fill('hld_sk_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid_credentials' }).waitFor();

    await page.getByLabel('API key').fill(herald.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/dashboard/messages?state=terminal');
    expect(await page.getByLabel('State', { exact: true }).inputValue()).toBe('terminal');
    // The event stream opened with the session cookie (EventSource cannot send a bearer key).
    await page
      .locator('.live')
      .filter({ hasText: /^● live$/ })
      .waitFor();

    const cookie = (await browser.context.cookies(herald.url)).find((c) => c.name === 'herald_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    // Plain HTTP here: the cookie is Secure only over TLS.
    expect(cookie!.secure).toBe(false);
    // The key is not kept anywhere the page's scripts can read it.
    expect(await page.evaluate<string>('document.cookie')).not.toContain('herald_session');
  });

  it('refuses a POST with the session cookie but without the CSRF token', async () => {
    const { delivery } = await sendSms('csrf-check');
    const answers = await page.evaluate(async (id) => {
      const without = await fetch(`/v1/deliveries/${id}/retry`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const wrong = await fetch(`/v1/deliveries/${id}/retry`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': 'forged' },
        body: '{}',
      });
      return [
        { status: without.status, body: (await without.json()) as { code: string } },
        { status: wrong.status, body: (await wrong.json()) as { code: string } },
      ];
    }, delivery);
    for (const a of answers) expect(a).toMatchObject({ status: 403, body: { code: 'csrf_required' } });
    // A read needs no token.
    expect(await page.evaluate(async (id) => (await fetch(`/v1/deliveries/${id}`)).status, delivery)).toBe(200);
  });

  it('shows the overview banner, without a reload, when the sandbox starts failing', async () => {
    await go('/');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.locator('.tiles').waitFor();
    const banner = page.getByRole('alert').filter({ hasText: /messages? failed on sandbox-sms in the last 15 minutes/ });
    expect(await banner.count()).toBe(0);

    // The sandbox keeps failing until the banner has been read: the banner counts messages failed
    // now, so once the code gets through it goes at the page's next refresh (a few failures and the
    // ladder used to get it through while a slow test was still reading the banner's link).
    await herald.fault({ mode: 'server_error', count: 1000 });
    const { delivery } = await sendSms('overview-failing');
    await banner.waitFor({ timeout: 25_000 });
    // The banner links to the failing account's deliveries.
    expect(await banner.getByRole('link').getAttribute('href')).toContain('provider_account=sandbox-sms');
    await herald.fault(null);
    await poll(async () => ((await deliveryState(delivery)).state === 'accepted' ? true : undefined), 'the failing delivery to get through', 30_000);
    await shot('overview');
  });

  it('filters to failed, opens a message, retries it and shows its state change in place', async () => {
    await herald.fault({ mode: 'reject_permanent', count: 1 });
    const { delivery } = await sendSms('customer-42');
    await poll(async () => ((await deliveryState(delivery)).terminal_reason === 'rejected' ? true : undefined), 'the rejection', 15_000);

    await go('/messages');
    await page.getByRole('link', { name: 'Failed: rejected' }).click();
    await page.waitForURL(/state=terminal&terminal_reason=rejected/);
    const row = page.locator(`tr[data-delivery="${delivery}"]`);
    await row.waitFor();
    expect(await page.locator('tbody tr').count()).toBe(1);
    await shot('messages');

    await row.getByRole('link', { name: `Open delivery ${delivery}` }).click();
    await page.waitForURL(new RegExp(`/dashboard/messages/${delivery}`));
    const dialog = page.getByRole('dialog', { name: `Delivery ${delivery}` });
    const section = dialog.locator(`section[data-delivery="${delivery}"]`);
    await section.locator('h3 .badge').filter({ hasText: 'terminal · rejected' }).waitFor();
    await dialog
      .getByText(/Attempt 1/)
      .first()
      .waitFor();
    // Refused at submission: no callback, no look-up yet.
    await section.getByText('No provider evidence yet (no callback, no look-up).').waitFor();

    await section.getByRole('button', { name: 'Retry' }).click();
    const confirm = page.getByRole('dialog', { name: 'Retry this delivery?' });
    await confirm.getByText(/same idempotency key/).waitFor();
    await confirm.getByRole('button', { name: 'Retry now' }).click();
    // The dialog follows the event stream: the badge changes without closing or reloading.
    await section
      .locator('h3 .badge')
      .filter({ hasText: /^✓ accepted$/ })
      .waitFor({ timeout: 20_000 });
    await dialog.getByText(/retry by /).waitFor();
    expect((await deliveryState(delivery)).state).toBe('accepted');
    // The sandbox's signed callbacks arrive and show in the evidence, in place: sent, then delivered, each with its time and effect.
    const evidence = section.getByRole('list', { name: `Evidence of delivery ${delivery}` });
    await evidence.locator('li[data-evidence="callback"]').filter({ hasText: 'callback delivered from sandbox-sms' }).waitFor({ timeout: 20_000 });
    await evidence.locator('li[data-evidence="callback"]').filter({ hasText: 'callback sent from sandbox-sms' }).waitFor();
    // A callback is listed when it is recorded and marked applied when the evidence applier has
    // folded it in, a moment later: wait for the second mark (count() alone raced the applier).
    await evidence.locator('li[data-effect="applied"]').nth(1).waitFor({ timeout: 20_000 });
    await evidence.getByText('Downstream status now: delivered').waitFor();
    const api = await deliveryState(delivery);
    expect((api as unknown as { evidence: Array<{ kind: string; status: string }> }).evidence.map((e) => `${e.kind} ${e.status}`)).toEqual(
      expect.arrayContaining(['callback sent', 'callback delivered']),
    );
    await shot('message-detail');

    // The dialog is a URL: a reload (or a bookmark) opens it again; closing it goes back to the filtered list.
    await page.reload();
    await section
      .locator('h3 .badge')
      .filter({ hasText: /^✓ accepted$/ })
      .waitFor();
    await page.keyboard.press('Escape');
    await page.waitForURL(/\/dashboard\/messages\?state=terminal&terminal_reason=rejected$/);
  });

  it('retries every failed message of a device with the phone simulator, and shows its battery', async () => {
    // A phone low on battery, off its charger: its ping's level shows on its card and its page.
    phone = new PhoneSim({ server: `${herald.url}/mobile/v1`, privateToken: PHONE_TOKEN, name: 'Shop phone', reconnectMs: 50, battery: { percent: 14 } });
    // Android's own rate limit: the ladder waits a minute before offering them again (classify.ts),
    // so only the operator's "Retry all failed" sends them again while this step runs. (With
    // RESULT_ERROR_NO_SERVICE the code's ladder offered them again after 1 s by itself, and a click
    // that came later, on a loaded machine, found nothing failed: "Retried 0 messages".)
    const limited = 'Send result: RESULT_ERROR_LIMIT_EXCEEDED (Failed because the app reached its sending limit)';
    phone.script({ kind: 'fail', error: limited }, { kind: 'fail', error: limited });
    await phone.start();
    const device = await poll(async () => {
      const r = await herald.api('GET', '/v1/devices');
      return r.json.items[0]?.online ? (r.json.items[0] as { id: string }) : undefined;
    }, 'the simulated phone to register');
    expect((await phone.ping()).status).toBeLessThan(300);
    const sent = [await sendSms('device-1', PHONE_ACCOUNT), await sendSms('device-2', PHONE_ACCOUNT)];
    await poll(async () => {
      const r = await herald.api('GET', `/v1/devices/${device.id}/messages?phone_state=Failed`);
      return r.json.items.length >= 2 ? true : undefined;
    }, 'both messages to fail on the phone');
    // What the retry acts on: both deliveries waiting on their ladder because of the phone's report.
    await poll(async () => {
      const states = await Promise.all(sent.map((s) => deliveryState(s.delivery)));
      return states.every((s) => s.state === 'retryable' && s.last_error_code === 'phone_rate_limited') ? true : undefined;
    }, 'both deliveries to wait for their retry after the phone’s report');

    await go('/devices');
    const card = page.locator(`article[data-device="${device.id}"]`);
    await card.getByText('online').waitFor();
    await card.getByText('14 % (not charging, low)').waitFor();
    await shot('devices');
    await card.getByRole('button', { name: 'Retry all failed on Shop phone' }).click();
    await page
      .getByRole('dialog', { name: /Retry every failed message of Shop phone/ })
      .getByRole('button', { name: 'Retry failed messages' })
      .click();
    await card.getByRole('status').filter({ hasText: 'Retried 2 messages' }).waitFor();
    await poll(async () => {
      const states = await Promise.all(sent.map((s) => deliveryState(s.delivery)));
      return states.every((s) => s.state === 'accepted') ? true : undefined;
    }, 'both retried messages to be accepted through the phone');

    await card.getByRole('link', { name: 'Shop phone' }).click();
    await page.getByRole('heading', { name: /Shop phone/ }).waitFor();
    await page.getByText('14 % (not charging, low)').waitFor();
    await page.locator('tr[data-message]').filter({ hasText: 'Delivered' }).first().waitFor();
    await shot('device');
  });

  it('shows the review queue with a dry-run count before a bulk retry', async () => {
    await herald.fault({ mode: 'reject_permanent', count: 2 });
    const rejected = [await sendSms('review-1'), await sendSms('review-2')];
    await poll(async () => {
      const s = await Promise.all(rejected.map((r) => deliveryState(r.delivery)));
      return s.every((d) => d.terminal_reason === 'rejected') ? true : undefined;
    }, 'two rejections');
    await go('/review?bulk_state=terminal&bulk_account=sandbox-sms');
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    await page.locator(`a[href="/dashboard/messages/${rejected[0]!.delivery}"]`).waitFor();
    await page.getByRole('button', { name: 'Preview retry' }).click();
    const confirm = page.getByRole('dialog', { name: 'Retry this selection?' });
    await confirm.getByText(/would be retried/).waitFor();
    await shot('review');
    await confirm.getByRole('button', { name: /^Retry \d+ deliver/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /scheduled \d+ for retry/ })
      .waitFor();
    await poll(async () => {
      const s = await Promise.all(rejected.map((r) => deliveryState(r.delivery)));
      return s.every((d) => d.state === 'accepted') ? true : undefined;
    }, 'the bulk-retried deliveries to be accepted');
  });

  it('cancels a delivery that is waiting for its next retry', async () => {
    await herald.fault({ mode: 'server_error', count: 1000 });
    const { delivery } = await sendSms('cancel-me');
    await poll(async () => ((await deliveryState(delivery)).state === 'retryable' ? true : undefined), 'a retryable delivery', 15_000);
    await go(`/messages?open=${delivery}`);
    const section = page.getByRole('dialog', { name: `Delivery ${delivery}` }).locator(`section[data-delivery="${delivery}"]`);
    await section.getByRole('button', { name: 'Cancel delivery' }).click();
    await page.getByRole('dialog', { name: 'Cancel this delivery?' }).getByRole('button', { name: 'Cancel delivery' }).click();
    await section.locator('h3 .badge').filter({ hasText: 'terminal · cancelled' }).waitFor();
    await herald.fault(null);
    expect(await deliveryState(delivery)).toMatchObject({ state: 'terminal', terminal_reason: 'cancelled' });
  });

  it('shows providers and campaigns, and works on a phone-sized screen', async () => {
    // The phones demoted in the SMS alert route, as the evaluator records it (the next change number of
    // the route, through the store, beside the running process: SQLite in WAL mode takes both).
    const store = openSqliteStore({ path: databasePath(herald.dataDir) });
    try {
      const seq = Math.max(0, ...(await store.routes.latestChanges()).filter((c) => c.routeKey === '*/sms/alert').map((c) => c.seq)) + 1;
      const figures = { account: PHONE_ACCOUNT, accepted: 40, slow: 9, calls: 40, failures: 0, pausedSince: null };
      const recorded = await store.routes.recordChange({
        routeKey: '*/sms/alert',
        seq,
        providerAccount: PHONE_ACCOUNT,
        action: 'demote',
        reasons: ['slow_delivery'],
        figures,
        decidedAt: Date.now(),
      });
      expect(recorded).toBe(true);
    } finally {
      await store.close();
    }
    await go('/providers');
    await page.getByRole('heading', { name: 'sandbox-sms' }).waitFor();
    // The route with its accounts in order: the primary in service, the phones demoted, why, and the figures it was done on.
    const route = page.locator('table[data-route="*/sms/alert"]');
    const demoted = route.locator(`tr[data-route-account="${PHONE_ACCOUNT}"]`);
    await demoted.locator('.badge', { hasText: 'demoted' }).waitFor();
    expect(await demoted.innerText()).toContain('slow_delivery');
    expect(await demoted.innerText()).toContain('9 slow of 40 accepted');
    expect(await route.locator('tbody tr').first().getAttribute('data-route-account')).toBe('sandbox-sms');
    expect(await page.locator('table[data-route-changes]').innerText()).toContain(PHONE_ACCOUNT);
    const text = await page.locator('main').innerText();
    expect(text).toContain('burst 50');
    expect(text).not.toContain('callback_secret');
    // The earlier steps' 500s and rejections on sandbox-sms, by call outcome, with the 15 min / 1 h / 24 h counts
    // (the rejected deliveries were retried and got through since, so no failure reason is left to count).
    const errors = page.locator('table[data-recent-errors="sandbox-sms"]');
    await errors.getByRole('link', { name: 'retryable' }).waitFor();
    await errors.getByRole('link', { name: 'permanent' }).waitFor();
    expect(await errors.getByRole('link', { name: 'permanent' }).getAttribute('href')).toContain('provider_account=sandbox-sms');
    expect(await page.locator('table[data-recent-errors="sandbox-email"]').count()).toBe(0);
    await shot('providers');

    const created = await herald.api('POST', '/v1/campaigns', {
      name: 'December newsletter',
      channel: 'email',
      purpose: 'marketing',
      content: { subject: 'News', text: 'Hello from Herald' },
      deadline_at: new Date(Date.now() + 3600_000).toISOString(),
      audience: { recipients: Array.from({ length: 20 }, (_, i) => ({ id: `reader-${i}`, email: `reader-${i}@example.com` })) },
      start: 'if_feasible',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    // The list (GET /v1/campaigns) shows it with its progress, when it sends (no send_at: when started), plan and deadline; the status filter is in the URL.
    await go('/campaigns');
    const card = page.locator(`article[data-campaign="${created.json.id}"]`);
    await card.getByRole('heading', { name: /December newsletter/ }).waitFor();
    await card.getByLabel(/^accepted: 20 of 20$/).waitFor({ timeout: 20_000 });
    expect(await card.innerText()).toMatch(/Sends from[\s\S]*when started[\s\S]*Deadline[\s\S]*Plan[\s\S]*feasible/);
    await shot('campaigns');
    await page.getByLabel('Status').selectOption('draft');
    await page.waitForURL(/\/dashboard\/campaigns\?status=draft$/);
    await page.getByText('No draft campaign.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await card.getByRole('link', { name: 'December newsletter' }).click();
    await page.waitForURL(new RegExp(`/dashboard/campaigns/${created.json.id}$`));
    await page.getByLabel(/^accepted: 20 of 20$/).waitFor();

    await page.setViewportSize({ width: 390, height: 844 });
    await go('/messages?state=accepted');
    await page.getByRole('heading', { name: 'Messages' }).waitFor();
    // The navigation folds behind a menu button, and the page does not scroll sideways.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Review' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shot('messages-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('is usable from the keyboard: a skip link, then focus moves through the navigation', async () => {
    await go('/');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>("document.activeElement.getAttribute('href')")).toBe('/dashboard/');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>("document.activeElement.getAttribute('href')")).toBe('/dashboard/messages');
    // Focus is visible: the focused link has an outline.
    expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
  });

  it('signs a viewer in with username and password, shows no actions, and signs them out when their sessions are revoked', async () => {
    const password = 'correct horse battery staple';
    await herald.cli(['users', 'create', 'sam', '--role', 'viewer', '--password-env', 'E2E_PASSWORD'], { E2E_PASSWORD: password });
    const { delivery } = await sendSms('viewer-check');
    await browser.context.clearCookies();
    await go(`/messages/${delivery}`);
    await page.getByRole('button', { name: 'Username and password' }).click();
    await page.getByLabel('Username').fill('sam');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const dialog = page.getByRole('dialog', { name: `Delivery ${delivery}` });
    await dialog.getByText('Your role (viewer) can read but not act.').waitFor();
    expect(await dialog.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    await page.getByText(/sam \(viewer\)/).waitFor();

    await page
      .locator('.live')
      .filter({ hasText: /^● live$/ })
      .waitFor();
    await herald.cli(['users', 'revoke-sessions', 'sam']);
    // Revoked by another process (the CLI): the live stream re-reads its session, ends with
    // `session.ended`, and the app goes back to sign-in by itself, with nobody clicking.
    await page.getByRole('heading', { name: 'Sign in to Herald' }).waitFor({ timeout: 15_000 });
  });

  it('ran every page without a script error or a Content-Security-Policy refusal', () => {
    expect(pageErrors).toEqual([]);
  });
});
