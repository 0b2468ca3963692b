/**
 * The code fast path in the runtime: `herald api` (the api role alone) holds provider adapters
 * and sends a code it has just committed itself when `worker.otp_fast_path` is on (the default);
 * with it off, the API process holds no adapters and the code waits for a worker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig, sandboxAccounts } from '../../src/config/config.js';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { createHeraldNode, type HeraldNode } from '../../src/runtime/node.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const logger = pino({ level: 'silent' });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function apiNode(worker: Record<string, unknown>): Promise<{ node: HeraldNode; sandbox: SandboxHandle; key: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-fastpath-'));
  const sandbox = await startSandbox({ port: 0, seed: 1 });
  const config = resolveConfig({ data_dir: dir, worker }, { sandbox: false });
  config.provider_accounts = sandboxAccounts(sandbox.url).map((a) => ({ ...a, timeout_ms: 2_000 }));
  const store = openSqliteStore({ path: join(dir, 'herald.db') });
  await store.migrate();
  await store.ensureTenant({ id: 'default', name: 'Default' }, Date.now());
  const key = generateApiKey();
  await store.createApiKey({ id: 'key_test', tenantId: 'default', keyHash: hashApiKey(key), label: 'test', now: Date.now() });
  const node = await createHeraldNode({ config, roles: ['api'], logger, store });
  cleanups.push(async () => {
    await node.close();
    await store.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { node, sandbox, key };
}

const code = {
  recipient: { id: 'user-1', phone: '+14155550123' },
  purpose: 'otp',
  channels: ['sms'],
  content: { text: 'Your code is 123456' },
  ttl_seconds: 300,
};

describe('worker.otp_fast_path in herald api', () => {
  it('on (the default): the API process sends the code it committed, with no worker running', async () => {
    const { node, sandbox, key } = await apiNode({});
    expect(node.worker).toBeNull();
    expect(node.adapters.size).toBeGreaterThan(0);
    const r = await node.app!.inject({ method: 'POST', url: '/v1/notifications', headers: { authorization: `Bearer ${key}` }, payload: code });
    expect(r.statusCode).toBe(202);
    await expect.poll(() => sandbox.ledger.entries({ channel: 'sms' }).length, { timeout: 5_000, interval: 10 }).toBe(1);
    await expect
      .poll(
        async () =>
          (await node.app!.inject({ method: 'GET', url: `/v1/notifications/${r.json().id}`, headers: { authorization: `Bearer ${key}` } })).json().deliveries[0]
            .state,
        {
          timeout: 5_000,
          interval: 10,
        },
      )
      .toBe('accepted');
  });

  it('off: the API process holds no adapters and leaves the code to the workers', async () => {
    const { node, sandbox, key } = await apiNode({ otp_fast_path: false });
    expect(node.adapters.size).toBe(0);
    const r = await node.app!.inject({ method: 'POST', url: '/v1/notifications', headers: { authorization: `Bearer ${key}` }, payload: code });
    expect(r.statusCode).toBe(202);
    const d = (await node.app!.inject({ method: 'GET', url: `/v1/notifications/${r.json().id}`, headers: { authorization: `Bearer ${key}` } })).json()
      .deliveries[0];
    expect(d.state).toBe('ready');
    expect(sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(0);
  });
});
