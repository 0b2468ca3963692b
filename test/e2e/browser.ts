/**
 * Real Chromium for the dashboard's end-to-end tests: Debian's `chromium` package driven by
 * playwright-core through `executablePath` (no browser download), headless, with a fresh
 * profile per launch. The flags are the ones DEVELOPERS.md lists: no sandbox (containers run as
 * root), no GPU, and nothing that reaches the network by itself (QUIC, sync, component updates).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether the e2e files run: yes with a browser; without one, CI fails loudly (the check below
 * throws) and a local run skips with the command that installs it.
 */
export function browserStatus(): { run: true } | { run: false; reason: string } {
  if (existsSync(CHROMIUM_PATH)) return { run: true };
  const reason = `no Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (or set HERALD_CHROMIUM to a Chromium binary)`;
  if (process.env.CI) throw new Error(`dashboard e2e tests need a browser in CI; ${reason}`);
  console.warn(`skipping the dashboard e2e tests: ${reason}`);
  return { run: false, reason };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** One Chromium with a fresh user-data-dir and one page at 1280×800; close() removes the profile. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'herald-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    // Times in screenshots and in the tests' expectations read the same everywhere.
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  context.setDefaultTimeout(10_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
