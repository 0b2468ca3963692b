/**
 * The api role enforces config `limits` (docs/abuse-limits.md): the per-key quota on /v1, the SMS
 * country list at intake, GET /v1/limits showing both, and a warning at startup while
 * `limits.sms.countries` is not set for a Herald with an SMS account.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig, sandboxAccounts } from '../../src/config/config.js';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { createHeraldNode, type HeraldNode } from '../../src/runtime/node.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function node(raw: Record<string, unknown>, warnings: string[]): Promise<{ n: HeraldNode; key: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-limits-'));
  const config = resolveConfig({ data_dir: dir, ...raw }, { sandbox: false });
  config.provider_accounts = sandboxAccounts('http://127.0.0.1:9');
  const store = openSqliteStore({ path: join(dir, 'herald.db') });
  await store.migrate();
  await store.ensureTenant({ id: 'default', name: 'Default' }, Date.now());
  const key = generateApiKey();
  await store.createApiKey({ id: 'key_wiring', tenantId: 'default', keyHash: hashApiKey(key), label: 'wiring', now: Date.now() });
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg as string) });
  const n = await createHeraldNode({ config, roles: ['api'], logger, store });
  cleanups.push(async () => {
    await n.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { n, key };
}

describe('config limits in the runtime', () => {
  it('the api role enforces the quota and the country list, and shows them at GET /v1/limits', async () => {
    const warnings: string[] = [];
    const { n, key } = await node({ limits: { requests: { limit: 3 }, sms: { countries: ['US'] } } }, warnings);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const limits = await n.app!.inject({ method: 'GET', url: '/v1/limits', headers: auth });
    expect(limits.json()).toMatchObject({ requests: { limit: 3, window_s: 60 }, sms: { countries: ['US'] } });
    const body = { recipient: { id: 'u', phone: '+33612345678' }, purpose: 'otp', channels: ['sms'], content: { text: 'Code 1' }, ttl_seconds: 300 };
    const fr = await n.app!.inject({ method: 'POST', url: '/v1/notifications', headers: auth, payload: body });
    expect(fr.json()).toMatchObject({ code: 'country_not_allowed', limit: { country: 'FR' } });
    const third = await n.app!.inject({ method: 'GET', url: '/v1/limits', headers: auth });
    expect(third.statusCode).toBe(200);
    const fourth = await n.app!.inject({ method: 'GET', url: '/v1/limits', headers: auth });
    expect(fourth.statusCode).toBe(429);
    expect(fourth.headers['retry-after']).toBeDefined();
    expect(warnings.filter((w) => w.includes('limits.sms.countries'))).toEqual([]);
  });

  it('warns at startup while SMS may go to every country', async () => {
    const warnings: string[] = [];
    await node({}, warnings);
    expect(warnings).toEqual([expect.stringContaining('limits.sms.countries is not set: SMS may go to every country')]);
  });
});
