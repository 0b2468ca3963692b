/**
 * Found by the chaos run (docs/chaos.md): a delivery claimed shortly before its expires_at was
 * still sent after it, in two ways.
 * 1. The claim compares expires_at with a `now` read before its query, and a batch can wait
 *    before its calls start: the worker now checks the challenge clock at the moment of each
 *    call. Pinned with a store whose claim "takes" 1.5 s (the manual clock advances inside it).
 * 2. A call that started in time can wait for its socket (a fresh connection, a full pool, a busy
 *    event loop) and be written after expiry: the transport now writes only once the socket is
 *    ready, and not at all past `sendBy`. Pinned with a one-socket agent held by a slow request.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import type { ProviderAdapter, SubmitRequest } from '../../src/providers/provider.js';
import { classifyTransportFailure } from '../../src/providers/sandbox/classify.js';
import { postOnce } from '../../src/providers/outbound-http/exchange.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { WORKER_DEFAULTS } from '../helpers/harness.js';
import { openTestPostgresStore } from '../helpers/postgres.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const ACCOUNT = 'acct-sms';
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function openStore(driver: 'sqlite' | 'postgres'): Promise<Store> {
  if (driver === 'postgres') {
    const pg = await openTestPostgresStore();
    cleanups.push(async () => {
      await pg.store.close();
      await pg.drop();
    });
    return pg.store;
  }
  const dir = mkdtempSync(join(tmpdir(), 'herald-expiry-'));
  const store = openSqliteStore({ path: join(dir, 'herald.db') });
  await store.migrate();
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** The same store, except that claimBatch takes `ms` of (manual) time after its query read `now`. */
function withSlowClaim(store: Store, clock: ManualClock, ms: number): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'claimBatch') {
        return async (req: Parameters<Store['claimBatch']>[0]) => {
          const claimed = await target.claimBatch(req);
          clock.advance(ms);
          return claimed;
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.each(['sqlite', 'postgres'] as const)('on %s', (driver) => {
  it('does not call the provider when expires_at passed between the claim and the call', async () => {
    const clock = new ManualClock(T0);
    const store = await openStore(driver);
    await store.ensureTenant({ id: 'default', name: 'Default' }, T0);
    await store.createNotification({
      id: 'ntf_01JDZZZZZZZZZZZZZZZZZZZZZZ',
      tenantId: 'default',
      recipient: { id: 'user-1', phone: '+14155550123' },
      purpose: 'otp',
      channels: ['sms'],
      content: { text: 'Your code is 123456' },
      groupKey: 'ntf:1',
      generation: 1,
      metadata: null,
      expiresAt: T0 + 1_000,
      createdAt: T0,
      deliveries: [{ id: 'dlv_01JDZZZZZZZZZZZZZZZZZZZZZZ', channel: 'sms', providerAccount: ACCOUNT, destination: '+14155550123', idempotencyKey: 'key-1' }],
    });

    const calls: SubmitRequest[] = [];
    const adapter: ProviderAdapter = {
      kind: 'fake',
      capabilities: { lookup: false, dedupesByKey: false },
      submit: async (r) => {
        calls.push(r);
        return { kind: 'accepted', providerMessageId: 'SM1' };
      },
      close: async () => {},
    };
    const worker = new DeliveryWorker({
      store: withSlowClaim(store, clock, 1_500),
      adapters: new Map([[ACCOUNT, adapter]]),
      clock,
      logger: pino({ level: 'silent' }),
      workerId: 'w1',
      settings: WORKER_DEFAULTS,
      random: () => 0.5,
    });

    const result = await worker.runOnce(ACCOUNT);
    expect(result).toMatchObject({ claimed: 1, applied: 1, stale: 0 });
    expect(calls).toHaveLength(0); // nothing reached the provider
    const n = await store.getNotification('default', 'ntf_01JDZZZZZZZZZZZZZZZZZZZZZZ');
    const d = n!.deliveries[0]!;
    expect(d).toMatchObject({ state: 'terminal', terminalReason: 'expired' });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ outcome: 'retryable', errorCode: 'expired_before_send' });
  });

  it('still calls the provider when the claim left time before expires_at', async () => {
    const clock = new ManualClock(T0);
    const store = await openStore(driver);
    await store.ensureTenant({ id: 'default', name: 'Default' }, T0);
    await store.createNotification({
      id: 'ntf_01JDZZZZZZZZZZZZZZZZZZZZZY',
      tenantId: 'default',
      recipient: { id: 'user-1', phone: '+14155550123' },
      purpose: 'otp',
      channels: ['sms'],
      content: { text: 'Your code is 123456' },
      groupKey: 'ntf:2',
      generation: 1,
      metadata: null,
      expiresAt: T0 + 1_000,
      createdAt: T0,
      deliveries: [{ id: 'dlv_01JDZZZZZZZZZZZZZZZZZZZZZY', channel: 'sms', providerAccount: ACCOUNT, destination: '+14155550123', idempotencyKey: 'key-2' }],
    });
    const calls: SubmitRequest[] = [];
    const worker = new DeliveryWorker({
      store: withSlowClaim(store, clock, 999),
      adapters: new Map([
        [
          ACCOUNT,
          {
            kind: 'fake',
            capabilities: { lookup: false, dedupesByKey: false },
            submit: async (r: SubmitRequest) => {
              calls.push(r);
              return { kind: 'accepted' as const, providerMessageId: 'SM2' };
            },
            close: async () => {},
          },
        ],
      ]),
      clock,
      logger: pino({ level: 'silent' }),
      workerId: 'w1',
      settings: WORKER_DEFAULTS,
    });
    await worker.runOnce(ACCOUNT);
    expect(calls).toHaveLength(1);
    expect((await store.getDelivery('dlv_01JDZZZZZZZZZZZZZZZZZZZZZY'))!.state).toBe('accepted');
  });
});

describe('the transport (sandbox adapter)', () => {
  async function oneSocketSandbox() {
    const sandbox = await startSandbox({ port: 0, seed: 1 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => {
      agent.destroy();
      await sandbox.close();
    });
    const send = (key: string, notAfter?: number) =>
      postOnce({
        url: new URL(`${sandbox.url}/emails`),
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: Buffer.from(JSON.stringify({ to: 'ada@example.com', subject: 'Code', text: 'Your code is 123456' })),
        timeoutMs: 5_000,
        agent,
        notAfter,
      });
    return { sandbox, send };
  }

  it('does not write a request whose socket is ready only after notAfter', async () => {
    const { sandbox, send } = await oneSocketSandbox();
    sandbox.faults.set({ mode: 'latency', count: 1, latency_ms: 400 });
    const first = send('key-first'); // holds the only socket for 400 ms
    const second = send('key-second', Date.now() + 100); // waits for it past its deadline
    expect(await first).toMatchObject({ kind: 'response', status: 200 });
    const late = await second;
    expect(late).toMatchObject({ kind: 'failure', failure: { cause: 'aborted' } });
    if (late.kind !== 'failure') throw new Error('unreachable');
    expect(late.failure.stage).not.toBe('written');
    expect(classifyTransportFailure(late.failure)).toMatchObject({ kind: 'retryable', code: 'aborted_before_send' });
    expect(sandbox.ledger.entries().map((e) => e.idempotency_key)).toEqual(['key-first']);
  });

  it('writes it when the socket is ready in time', async () => {
    const { sandbox, send } = await oneSocketSandbox();
    sandbox.faults.set({ mode: 'latency', count: 1, latency_ms: 100 });
    const first = send('key-first');
    const second = send('key-second', Date.now() + 5_000);
    expect(await first).toMatchObject({ kind: 'response', status: 200 });
    expect(await second).toMatchObject({ kind: 'response', status: 200 });
    expect(sandbox.ledger.entries().map((e) => e.idempotency_key)).toEqual(['key-first', 'key-second']);
  });
});
