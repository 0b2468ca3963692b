/**
 * `herald doctor` and `herald send-test` as an operator runs them before the first real send:
 * doctor asks each account's provider without sending; send-test sends one message through a
 * running Herald and prints its timeline. Runs the built dist/ (`npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { killChildren, ledger, removeTempDirs, requireBuild, runHerald, startHerald, tempDir } from './spawn.js';

requireBuild();

let sandbox: SandboxHandle | null = null;
afterEach(async () => {
  await killChildren();
  await sandbox?.close();
  sandbox = null;
  removeTempDirs();
});

function configFile(accounts: unknown[]): string {
  const path = join(tempDir(), 'herald.json');
  writeFileSync(path, JSON.stringify({ provider_accounts: accounts }));
  return path;
}

describe('herald doctor', () => {
  it('checks each account without sending: ok against a sandbox that takes the key, FAIL (exit 1) for a refused key or no answer', async () => {
    sandbox = await startSandbox({ port: 0, host: '127.0.0.1', apiKey: 'sb-key-1' });
    const cfg = configFile([
      { id: 'mail-ok', kind: 'sandbox', channel: 'email', base_url: sandbox.url, api_key: 'sb-key-1' },
      { id: 'sms-badkey', kind: 'sandbox', channel: 'sms', base_url: sandbox.url, api_key: 'wrong-key-canary' },
      { id: 'push-down', kind: 'sandbox', channel: 'push', base_url: 'http://127.0.0.1:9' },
    ]);
    const run = await runHerald(['doctor', '--config', cfg]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/mail-ok \(sandbox, email\)\n {2}ok {4}endpoint answers: [^\n]+\n {2}ok {4}credentials accepted/);
    expect(run.stdout).toMatch(
      /sms-badkey \(sandbox, sms\)\n {2}ok {4}endpoint answers: [^\n]+\n {2}FAIL {2}credentials accepted: the sandbox refused the API key \(401\)/,
    );
    expect(run.stdout).toMatch(/push-down \(sandbox, push\)\n {2}FAIL {2}endpoint answers: http:\/\/127\.0\.0\.1:9 did not answer/);
    expect(run.stdout).not.toContain('wrong-key-canary');
    expect(sandbox.ledger.entries({})).toHaveLength(0);
    const one = await runHerald(['doctor', '--config', cfg, '--account', 'mail-ok']);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('All 1 account(s) look ready to send.');
  });

  it('a credential that is missing stops it with exit 2, naming the account and the variable', async () => {
    const cfg = configFile([{ id: 'mail-main', kind: 'sandbox', channel: 'email', base_url: 'http://127.0.0.1:9', api_key_env: 'HERALD_TEST_UNSET_KEY' }]);
    const run = await runHerald(['doctor', '--config', cfg]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('provider_accounts[0].api_key_env');
    expect(run.stderr).toContain('HERALD_TEST_UNSET_KEY');
  });
});

describe('herald send-test', () => {
  it('sends one message through a running herald start and prints attempts, state and the provider’s evidence', async () => {
    const dataDir = join(tempDir(), 'data');
    const { banner } = await startHerald(['--port', '0', '--sandbox-port', '0', '--data-dir', dataDir]);
    const run = await runHerald(
      ['send-test', '--account', 'sandbox-email', '--to', 'ada@example.com', '--api', banner.apiUrl, '--data-dir', dataDir, '--wait', '10'],
      {
        timeoutMs: 20_000,
      },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/notification ntf_\w+ accepted by Herald \(account sandbox-email, sandbox, email\)/);
    expect(run.stdout).toMatch(/attempt 1 started\n(?:.*\n)*? +\+[\d.]+s {2}attempt 1: accepted \(provider id [^)]+\)/);
    expect(run.stdout).toContain('state accepted');
    expect(run.stdout).toContain('provider evidence: delivered');
    expect(run.stdout).not.toContain('ada@example.com');
    const entries = await ledger(banner.sandboxUrl!);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ channel: 'email', destination: 'ada@example.com' });
  });

  it('says what is wrong: an unknown account, a refused key, or no Herald at the address (exit 2)', async () => {
    const dataDir = join(tempDir(), 'data');
    const { banner } = await startHerald(['--port', '0', '--sandbox-port', '0', '--data-dir', dataDir]);
    const unknown = await runHerald(['send-test', '--account', 'nope', '--to', 'ada@example.com', '--api', banner.apiUrl, '--data-dir', dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no provider account nope');
    const badKey = await runHerald(['send-test', '--account', 'sandbox-email', '--to', 'ada@example.com', '--api', banner.apiUrl, '--key', 'hld_sk_wrong']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('refused the API key');
    const down = await runHerald(['send-test', '--account', 'sandbox-email', '--to', 'ada@example.com', '--api', 'http://127.0.0.1:9', '--key', 'k']);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain('cannot reach Herald at http://127.0.0.1:9');
    const badAddress = await runHerald(['send-test', '--account', 'sandbox-sms', '--to', 'not-a-number', '--api', banner.apiUrl, '--data-dir', dataDir]);
    expect(badAddress.code).toBe(1);
    expect(badAddress.stdout).toContain('recipient.phone');
  });
});
