/**
 * The worker role runs the operator alerter when `alerts:` has a target (and only then), sending
 * through the worker's adapters; `herald_alerts_sent_total` is on the process's /metrics registry.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config.js';
import { createHeraldNode, type HeraldNode } from '../../src/runtime/node.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { parseExposition } from '../observability/exposition.js';

const logger = pino({ level: 'silent' });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function node(roles: Array<'api' | 'worker'>, raw: Record<string, unknown>, metricsPort?: number): Promise<HeraldNode> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-alerter-'));
  const config = resolveConfig({ data_dir: dir, ...raw }, { sandbox: false });
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

const alerts = {
  provider_accounts: [{ id: 'sms-main', kind: 'sandbox', channel: 'sms', base_url: 'http://127.0.0.1:9' }],
  alerts: { sms: { to: ['+4915112345689'] }, webhooks: [{ url: 'https://hooks.example.com/herald', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }] },
};

describe('the alerter in the runtime', () => {
  it('runs in the worker role when a target is configured, and registers its counter on /metrics', async () => {
    const worker = await node(['worker'], alerts, 0);
    expect(worker.alerter).not.toBeNull();
    // A quiet system: nothing fires, nothing is sent.
    expect(await worker.alerter!.runOnce()).toMatchObject({ round: null });
    await worker.start();
    const r = await worker.metricsApp!.inject({ method: 'GET', url: '/metrics' });
    expect(parseExposition(r.body).get('herald_alerts_sent_total')?.type).toBe('counter');
  });

  it('is absent without a target, and in an api-only process', async () => {
    expect((await node(['worker'], {})).alerter).toBeNull();
    expect((await node(['api'], alerts)).alerter).toBeNull();
  });
});
