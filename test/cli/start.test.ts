/**
 * `herald start` end to end, as a newcomer runs it: the banner's curl delivers a message to
 * the embedded sandbox, the bootstrap key is saved and survives restarts, logs carry no
 * destinations or bodies, SIGTERM stops cleanly. Runs the built dist/ (`npm run build`).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectCleanStop,
  getNotification,
  poll,
  killChildren,
  ledger,
  otpRequest,
  postNotification,
  removeTempDirs,
  requireBuild,
  runHerald,
  startHerald,
  tempDir,
  waitForDeliveryState,
} from './spawn.js';

requireBuild();

const ports = ['--port', '0', '--sandbox-port', '0'];

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

describe('herald start', () => {
  it('prints the URLs, data dir, key and a curl that delivers a test OTP through the sandbox', async () => {
    const dataDir = join(tempDir(), 'data');
    const { banner } = await startHerald([...ports, '--data-dir', dataDir]);
    expect(banner.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Where the dashboard is (issue 23): named in the banner, and the API's / leads there.
    expect(banner.dashboardUrl).toBe(`${banner.apiUrl}/dashboard/`);
    const root = await fetch(`${banner.apiUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(new URL(root.headers.get('location')!, banner.apiUrl).href).toBe(banner.dashboardUrl);
    const page = await fetch(banner.dashboardUrl!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(banner.sandboxUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(banner.apiUrl).not.toMatch(/:0$/);
    expect(banner.sandboxUrl).not.toMatch(/:0$/);
    expect(banner.dataDir).toBe(dataDir);
    expect(banner.key).toMatch(/^hld_sk_[0-9A-Za-z]{38}$/);
    expect(banner.curlBody).not.toBeNull();
    const key = banner.key!;

    // The key file: mode 0600, holding the printed key.
    const keyFile = join(dataDir, 'bootstrap-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(key);

    const sent = await postNotification(banner.apiUrl, key, banner.curlBody!, 'cli-test-1');
    expect(sent.status, JSON.stringify(sent.json)).toBe(202);
    const delivery = await waitForDeliveryState(banner.apiUrl, key, sent.json.id, 'accepted');
    expect(delivery.idempotency_key).toEqual(expect.any(String));

    const entries = await ledger(banner.sandboxUrl!);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.idempotency_key).toBe(delivery.idempotency_key);

    // The embedded sandbox calls back with signed delivery events: the status becomes delivered.
    await poll(
      async () => {
        const { json } = await getNotification(banner.apiUrl, key, sent.json.id);
        return json.deliveries[0]?.downstream_status === 'delivered' ? true : undefined;
      },
      'downstream_status delivered from the sandbox callbacks',
      10_000,
    );
  });

  it('never writes a destination or a message body to stdout or stderr, even at debug level with request logs', async () => {
    const dataDir = join(tempDir(), 'data');
    const { child, banner } = await startHerald([...ports, '--data-dir', dataDir], {
      env: { HERALD_LOG_LEVEL: 'debug', HERALD_LOG_REQUESTS: '1' },
    });
    const otp = otpRequest('user-logs');
    const sent = await postNotification(banner.apiUrl, banner.key!, otp.body, 'cli-logs-1');
    expect(sent.status).toBe(202);
    await waitForDeliveryState(banner.apiUrl, banner.key!, sent.json.id, 'accepted');
    await expectCleanStop(child);

    const output = child.stdout() + child.stderr();
    expect(child.stderr()).toContain('incoming request'); // request logging was on
    expect(output).not.toContain(otp.phone);
    expect(output).not.toContain(otp.phone.slice(1));
    expect(output).not.toContain(otp.text);
  });

  it('stops with exit 0 on SIGTERM; a restart on the same data dir keeps the key and prints no new one', async () => {
    const dataDir = join(tempDir(), 'data');
    const first = await startHerald([...ports, '--data-dir', dataDir]);
    const key = first.banner.key!;
    expect(key).toBeTruthy();
    await expectCleanStop(first.child);

    const second = await startHerald([...ports, '--data-dir', dataDir]);
    expect(second.banner.key).toBeNull();
    expect(second.child.stdout()).not.toMatch(/hld_sk_/);
    expect(second.child.stdout()).toContain(`the first one is in ${join(dataDir, 'bootstrap-key')}`);
    expect(readFileSync(join(dataDir, 'bootstrap-key'), 'utf8').trim()).toBe(key);

    const otp = otpRequest('user-restart');
    const sent = await postNotification(second.banner.apiUrl, key, otp.body, 'cli-restart-1');
    expect(sent.status).toBe(202);
    await waitForDeliveryState(second.banner.apiUrl, key, sent.json.id, 'accepted');
    await expectCleanStop(second.child);
  });

  it('registers HERALD_BOOTSTRAP_KEY and prints no key of its own', async () => {
    const dataDir = join(tempDir(), 'data');
    const envKey = `hld_cli_test_${Date.now().toString(36)}`;
    const { banner, child } = await startHerald([...ports, '--data-dir', dataDir], { env: { HERALD_BOOTSTRAP_KEY: envKey } });
    expect(banner.key).toBeNull();
    expect(child.stdout()).toContain('HERALD_BOOTSTRAP_KEY');
    expect(child.stdout()).not.toContain(envKey);

    const otp = otpRequest('user-env-key');
    expect((await postNotification(banner.apiUrl, envKey, otp.body, 'cli-env-1')).status).toBe(202);
    expect((await postNotification(banner.apiUrl, 'hld_not_the_key', otp.body, 'cli-env-2')).status).toBe(401);
  });

  it('`herald keys create` prints one key that authenticates against `herald start` on the same data dir', async () => {
    const dataDir = join(tempDir(), 'data');
    const created = await runHerald(['keys', 'create', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const key = lines[0]!;
    expect(key).toMatch(/^hld_sk_[0-9A-Za-z]{38}$/);

    const { banner } = await startHerald([...ports, '--data-dir', dataDir]);
    const otp = otpRequest('user-cli-key');
    const sent = await postNotification(banner.apiUrl, key, otp.body, 'cli-keys-1');
    expect(sent.status).toBe(202);
  });

  it('`herald migrate` exits 0 and says the database is up to date, listing what it applied', async () => {
    const dataDir = join(tempDir(), 'data');
    const first = await runHerald(['migrate', '--data-dir', dataDir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/is up to date \(applied 0001_\w+.*\)\.\n$/);
    expect(first.stdout).toContain(join(dataDir, 'herald.db'));
    const second = await runHerald(['migrate', '--data-dir', dataDir]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/is up to date\.\n$/);
  });

  it('refuses a config file with a bad field: exit 2, stderr names the field', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ provider_accounts: [{ id: 'sms-main', kind: 'sandbox', channel: 'fax', base_url: 'http://127.0.0.1:1' }] }));
    const run = await runHerald(['start', '--config', bad, ...ports, '--data-dir', join(dir, 'data')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('provider_accounts[0].channel');
    expect(run.stderr).toContain('email, sms, push');
    expect(run.stdout).not.toContain('Herald is running');
  });
});
