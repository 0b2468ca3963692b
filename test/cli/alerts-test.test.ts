/**
 * `herald alerts test` as an operator runs it after configuring alerts: one test message to each
 * target (an SMS number through the sandbox, a signed webhook to a local HTTP server), one
 * line per target, exit 1 when one did not take it. Runs the built dist/ (`npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { generateWebhookSecret, verifyWebhook } from '../../src/signing/standard-webhooks.js';
import { Receiver } from '../webhooks/receiver.js';
import { killChildren, removeTempDirs, requireBuild, runHerald, tempDir } from './spawn.js';

requireBuild();

const ONCALL = '+4915112345689';
let sandbox: SandboxHandle | null = null;
let hook: Receiver | null = null;
afterEach(async () => {
  await killChildren();
  await sandbox?.close();
  await hook?.close();
  sandbox = null;
  hook = null;
  removeTempDirs();
});

describe('herald alerts test', () => {
  it('sends a test message to every target, prints one line each, and exits 1 when one fails', async () => {
    sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
    hook = await new Receiver().open();
    const secret = generateWebhookSecret();
    const dir = tempDir();
    const cfg = join(dir, 'herald.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        data_dir: join(dir, 'data'),
        provider_accounts: [{ id: 'sms-main', kind: 'sandbox', channel: 'sms', base_url: sandbox.url }],
        alerts: {
          sms: { to: [ONCALL] },
          webhooks: [{ url: hook.url, secret_env: 'HERALD_TEST_ALERT_SECRET' }],
          allow_networks: ['127.0.0.0/8'],
        },
      }),
    );
    const env = { HERALD_TEST_ALERT_SECRET: secret };
    const ok = await runHerald(['alerts', 'test', '--config', cfg], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('ok    sms     +4915*******89  sent: sms-main\n');
    expect(ok.stdout).toContain(`ok    webhook http://127.0.0.1:${hook.port}/…  sent: webhook\n`);
    expect(ok.stdout).toContain('All 2 target(s) took the test message.');
    expect(ok.stdout).not.toContain(ONCALL);
    expect(sandbox.ledger.entries({ channel: 'sms' }).map((e) => e.destination)).toEqual([ONCALL]);
    const r = hook.delivered[0]!;
    expect(verifyWebhook([secret], r.headers, r.body, Date.now())).toMatchObject({ ok: true });
    expect(JSON.parse(r.body)).toMatchObject({ type: 'alert.test', title: '[Herald] test alert', alerts: [] });

    hook.respond = () => ({ status: 500 });
    const failed = await runHerald(['alerts', 'test', '--config', cfg], { env });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(`FAIL  webhook http://127.0.0.1:${hook.port}/…  not sent: webhook failed (http_500)\n`);
    expect(failed.stdout).toContain('1 of 2 target(s) did not take it.');
  });

  it('without any target it says so and exits 2', async () => {
    const dir = tempDir();
    const run = await runHerald(['alerts', 'test', '--data-dir', join(dir, 'data')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no alert target is configured');
  });
});
