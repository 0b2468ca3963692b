/**
 * A real Herald for the dashboard e2e tests: the built `herald start` as a child process with
 * its embedded sandbox, serving the built dashboard from dist/web, on SQLite in a fresh data
 * dir. Provider accounts: the sandbox's email and sms accounts (signed callbacks on) and an
 * Android gateway account `phones` for the phone simulator.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { generateWebhookSecret } from '../../src/signing/standard-webhooks.js';
import { ROOT, requireBuild, runHerald, startHerald, tempDir, type HeraldProcess } from '../cli/spawn.js';

export const PHONE_ACCOUNT = 'phones';
export const PHONE_TOKEN = `phone-${randomBytes(12).toString('hex')}`;

export interface HeraldUnderTest {
  child: HeraldProcess;
  url: string;
  sandboxUrl: string;
  key: string;
  dataDir: string;
  /** An API call with the bootstrap key (what a script would do). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** Sets a sandbox fault (POST /faults); `null` clears them all. */
  fault(f: Record<string, unknown> | null): Promise<void>;
  /** Runs another herald command (`users create`, ...) against the same config and data dir; throws unless it exits 0. */
  cli(args: string[], env?: Record<string, string>): Promise<string>;
}

/** A free TCP port on 127.0.0.1 (the sandbox's: its URL goes into the config before it starts). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts it; `extra` adds top-level config sections (e.g. `alerts`) to the file it writes. */
export async function startHeraldUnderTest(extra: Record<string, unknown> = {}): Promise<HeraldUnderTest> {
  requireBuild();
  if (!existsSync(join(ROOT, 'dist/web/index.html'))) throw new Error('dist/web/index.html does not exist: run `npm run build` before the e2e tests');
  const dataDir = tempDir('herald-e2e-');
  const sandboxPort = await freePort();
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const sandboxAccount = (channel: string) => ({
    id: `sandbox-${channel}`,
    kind: 'sandbox',
    channel,
    base_url: sandboxUrl,
    rate_per_second: 50,
    burst: 50,
    callback_secrets: [generateWebhookSecret()],
  });
  const config = {
    data_dir: dataDir,
    sandbox: { enabled: true, port: sandboxPort },
    // The walkthrough runs at any hour on the real clock: its marketing messages go at once.
    scheduling: { quiet_hours: { marketing: null, conversational: null }, frequency_caps: { marketing: null } },
    provider_accounts: [
      sandboxAccount('email'),
      sandboxAccount('sms'),
      {
        id: PHONE_ACCOUNT,
        kind: 'android_gateway',
        channel: 'sms',
        settings: { private_token: PHONE_TOKEN, device_rate_per_minute: 600, device_burst: 100 },
        rate_per_second: 50,
        burst: 50,
      },
    ],
    ...extra,
  };
  const configPath = join(dataDir, 'herald.json');
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const { child, banner } = await startHerald(['--port', '0', '--config', configPath], { env: { HERALD_LOG_LEVEL: 'warn' } });
  if (!banner.key) throw new Error(`herald start printed no API key:\n${child.stdout()}`);
  const url = banner.apiUrl;
  const key = banner.key;
  return {
    child,
    url,
    sandboxUrl,
    key,
    dataDir,
    async api(method, path, body) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, json: text === '' ? null : JSON.parse(text) };
    },
    async cli(args, env = {}) {
      const r = await runHerald([...args, '--config', configPath], { env });
      if (r.code !== 0) throw new Error(`herald ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
      return r.stdout;
    },
    async fault(f) {
      const res = await fetch(`${sandboxUrl}/faults`, { method: f === null ? 'DELETE' : 'POST', ...(f === null ? {} : { body: JSON.stringify(f) }) });
      if (!res.ok) throw new Error(`sandbox /faults answered ${res.status}: ${await res.text()}`);
    },
  };
}
