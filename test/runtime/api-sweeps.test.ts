/**
 * `herald api` sweeps too: with no worker running (all killed, or not started yet), a pending
 * code whose expiry passed still ends `terminal/expired` on time, so its producer and the
 * dashboard are told the truth. Found by the chaos run (docs/chaos.md, check 1 "overdue during the
 * run"): only workers swept, and a stretch with every worker dead or still starting left expired
 * codes pending.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { resolveConfig, sandboxAccounts } from '../../src/config/config.js';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { createHeraldNode } from '../../src/runtime/node.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const T0 = Date.UTC(2026, 11, 5, 12, 0, 0);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('herald api without workers', () => {
  it('ends a pending code terminal/expired once its expiry passed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-api-sweeps-'));
    const clock = new ManualClock(T0);
    // The code fast path off: nothing in this process sends, so the code stays pending until it expires.
    const config = resolveConfig({ data_dir: dir, host: '127.0.0.1', port: 0, worker: { otp_fast_path: false, sweep_interval_ms: 10 } }, { sandbox: false });
    config.provider_accounts = sandboxAccounts('http://127.0.0.1:9').map((a) => ({ ...a, timeout_ms: 2_000 }));
    const store = openSqliteStore({ path: join(dir, 'herald.db') });
    await store.migrate();
    await store.ensureTenant({ id: 'default', name: 'Default' }, T0);
    const key = generateApiKey();
    await store.createApiKey({ id: 'key_test', tenantId: 'default', keyHash: hashApiKey(key), label: 'test', now: T0 });
    const node = await createHeraldNode({ config, roles: ['api'], logger: pino({ level: 'silent' }), store, clock });
    cleanups.push(async () => {
      await node.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await node.start();
    expect(node.worker).toBeNull();

    const auth = { authorization: `Bearer ${key}` };
    const r = await node.app!.inject({
      method: 'POST',
      url: '/v1/notifications',
      headers: auth,
      payload: {
        recipient: { id: 'user-1', phone: '+14155550123' },
        purpose: 'otp',
        channels: ['sms'],
        content: { text: 'Your code is 123456' },
        ttl_seconds: 60,
      },
    });
    expect(r.statusCode).toBe(202);
    const delivery = async () => (await node.app!.inject({ method: 'GET', url: `/v1/notifications/${r.json().id}`, headers: auth })).json().deliveries[0];
    expect((await delivery()).state).toBe('ready');

    clock.advance(61_000);
    await expect.poll(async () => (await delivery()).terminal_reason, { timeout: 5_000, interval: 20 }).toBe('expired');
    expect((await delivery()).state).toBe('terminal');
  });
});
