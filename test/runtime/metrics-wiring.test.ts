/**
 * The api role serves GET /metrics with the store gauges and the process counters, behind the
 * token `metrics.token_env` names; a worker-only process serves it only on its own `metricsPort`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config.js';
import { createHeraldNode, type HeraldNode } from '../../src/runtime/node.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { parseExposition } from '../observability/exposition.js';

const logger = pino({ level: 'silent' });
const ENV = 'HERALD_TEST_METRICS_TOKEN';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  delete process.env[ENV];
});

async function node(roles: Array<'api' | 'worker'>, raw: Record<string, unknown>, metricsPort?: number): Promise<HeraldNode> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-metrics-'));
  const config = resolveConfig({ data_dir: dir, ...raw }, { sandbox: false });
  // An explicit SQLite store: DATABASE_URL in the test environment must not pick PostgreSQL's public schema.
  const store = openSqliteStore({ path: join(dir, 'herald.db') });
  await store.migrate();
  const n = await createHeraldNode({ config, roles, logger, store, ...(metricsPort === undefined ? {} : { metricsPort }) });
  cleanups.push(async () => {
    await n.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return n;
}

describe('GET /metrics in the runtime', () => {
  it('the api role serves it behind the token metrics.token_env names', async () => {
    process.env[ENV] = 'runtime-token-0123456789abcdef';
    const n = await node(['api'], { metrics: { token_env: ENV } });
    expect((await n.app!.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const r = await n.app!.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${process.env[ENV]}` } });
    expect(r.statusCode).toBe(200);
    const families = parseExposition(r.body);
    expect(families.get('herald_deliveries')?.type).toBe('gauge');
    expect(families.get('herald_api_attempts_total')?.type).toBe('counter');
  });

  it('is open without a token, and absent in a worker-only process (no HTTP app)', async () => {
    const api = await node(['api'], {});
    expect((await api.app!.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    const worker = await node(['worker'], {});
    expect(worker.app).toBeNull();
    expect(worker.metricsApp).toBeNull();
  });

  it('a worker-only process with metricsPort serves it on that port, behind the same token, with its own counters', async () => {
    process.env[ENV] = 'worker-token-0123456789abcdef';
    const n = await node(['worker'], { metrics: { token_env: ENV } }, 0);
    expect(n.app).toBeNull();
    await n.start();
    const { port } = n.metricsApp!.server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/metrics`;
    const refused = await fetch(url);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    n.counters.inc('api_attempts', { channel: 'sms', purpose: 'otp' });
    const r = await fetch(url, { headers: { authorization: `Bearer ${process.env[ENV]}` } });
    expect(r.status).toBe(200);
    const families = parseExposition(await r.text());
    expect(families.get('herald_api_attempts_total')?.samples).toEqual([
      { name: 'herald_api_attempts_total', labels: { channel: 'sms', purpose: 'otp' }, value: 1 },
    ]);
    expect(families.get('herald_deliveries')?.type).toBe('gauge');
    expect((await fetch(`http://127.0.0.1:${port}/v1/notifications`)).status).toBe(404);
  });
});

describe('metrics config', () => {
  it('refuses a token_env that is not set, and both forms at once', () => {
    expect(() => resolveConfig({ metrics: { token_env: ENV } })).toThrow(/metrics\.token_env names HERALD_TEST_METRICS_TOKEN/);
    process.env[ENV] = 'x'.repeat(20);
    expect(() => resolveConfig({ metrics: { token: 'y'.repeat(20), token_env: ENV } })).toThrow(/alternatives/);
    expect(() => resolveConfig({ metrics: { token: 'short' } })).toThrow(/metrics\.token/);
  });
});
