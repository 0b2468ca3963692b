/**
 * Real Chromium for the dashboard's end-to-end tests: Debian's `chromium` package driven by
 * playwright-core through `executablePath` (no browser download), headless, with a fresh
 * profile per launch. The flags are the ones DEVELOPERS.md lists: no sandbox (containers run as
 * root), no GPU, and nothing that reaches the network by itself (QUIC, sync, component updates).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { externalTool, type Located } from '../helpers/external-tools.js';

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
 * Chromium for the calling e2e file (/usr/bin/chromium, or HERALD_CHROMIUM): without it a local
 * run skips the file's tests and lists them at the end of the run; with CI set the file fails
 * (test/helpers/external-tools.ts).
 */
export function findChromium(): Located {
  return externalTool('chromium', 'the dashboard driven in a real browser');
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** One Chromium with a fresh user-data-dir and one page at 1280×800; close() removes the profile. */
export async function launchBrowser(browser: Located): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'herald-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: browser.command,
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
