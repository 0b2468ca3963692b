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
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../../src/providers/provider.js';
import type { SubmitOutcome } from '../../src/domain/index.js';
import { classifyTransportFailure } from '../../src/providers/sandbox/classify.js';
import { postOnce } from '../../src/providers/outbound-http/exchange.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { WORKER_DEFAULTS } from '../helpers/harness.js';
import { openTestPostgresStore } from '../helpers/postgres.js';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const ACCOUNT = 'acct-sms';
const DELIVERY = 'dlv_01JDZZZZZZZZZZZZZZZZZZZZZZ';
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

/** One SMS code expiring at `expiresAt` in a fresh store, a fake account answering `answer`, and a worker whose claim takes `claimMs`. */
async function oneCode(driver: 'sqlite' | 'postgres', o: { expiresAt: number; claimMs: number; answer?: SubmitOutcome; allowanceMs?: number }) {
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
    expiresAt: o.expiresAt,
    createdAt: T0,
    deliveries: [{ id: DELIVERY, channel: 'sms', providerAccount: ACCOUNT, destination: '+14155550123', idempotencyKey: 'key-1' }],
  });
  const calls: Array<SubmitRequest & { wallAtCall: number }> = [];
  const adapter: ProviderAdapter = {
    kind: 'fake',
    capabilities: { lookup: false, dedupesByKey: false },
    submit: async (r) => {
      calls.push({ ...r, wallAtCall: Date.now() });
      return o.answer ?? { kind: 'accepted', providerMessageId: 'SM1' };
    },
    close: async () => {},
  };
  // Without an account's configuration the channel's default allowance applies (SMS: 1 s).
  const accounts =
    o.allowanceMs === undefined
      ? []
      : [
          {
            id: ACCOUNT,
            kind: 'sandbox',
            channel: 'sms',
            timeout_ms: 2_000,
            rate_per_second: 100,
            burst: 100,
            arrival_allowance_ms: o.allowanceMs,
          } as ProviderAccountConfig,
        ];
  const worker = new DeliveryWorker({
    store: withSlowClaim(store, clock, o.claimMs),
    adapters: new Map([[ACCOUNT, adapter]]),
    clock,
    logger: pino({ level: 'silent' }),
    workerId: 'w1',
    settings: WORKER_DEFAULTS,
    random: () => 0.5,
    accounts,
  });
  return {
    store,
    calls,
    run: () => worker.runOnce(ACCOUNT),
    delivery: async () => (await store.getNotification('default', 'ntf_01JDZZZZZZZZZZZZZZZZZZZZZZ'))!.deliveries[0]!,
  };
}

describe.each(['sqlite', 'postgres'] as const)('on %s', (driver) => {
  it('does not call the provider when expires_at passed between the claim and the call', async () => {
    const code = await oneCode(driver, { expiresAt: T0 + 1_000, claimMs: 1_500 });
    expect(await code.run()).toMatchObject({ claimed: 1, applied: 1, stale: 0 });
    expect(code.calls).toHaveLength(0); // nothing reached the provider
    const d = await code.delivery();
    expect(d).toMatchObject({ state: 'terminal', terminalReason: 'expired' });
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ outcome: 'retryable', errorCode: 'expired_before_send' });
  });

  it("does not call the provider when less than the channel's arrival allowance is left (SMS: 1 s)", async () => {
    // Claimed at once, 900 ms before expiry: an SMS could not arrive in time.
    const code = await oneCode(driver, { expiresAt: T0 + 900, claimMs: 0 });
    await code.run();
    expect(code.calls).toHaveLength(0);
    const d = await code.delivery();
    expect(d).toMatchObject({ state: 'terminal', terminalReason: 'expired' });
    expect(d.attempts[0]).toMatchObject({ outcome: 'retryable', errorCode: 'expired_before_send' });
    expect(d.attempts[0]!.errorMessage).toContain('arrival allowance (1000 ms)');
  });

  it('still calls the provider when the claim left more than the allowance, and the transport may write only until the allowance', async () => {
    const code = await oneCode(driver, { expiresAt: T0 + 2_000, claimMs: 999 });
    await code.run();
    expect(code.calls).toHaveLength(1);
    expect((await code.delivery()).state).toBe('accepted');
    // The call started 1,001 ms before expiry: 1 ms before the allowance begins, and no later may its bytes leave.
    const call = code.calls[0]!;
    expect(call.expiresAt).toBe(T0 + 2_000); // the provider is still told the real expiry
    expect(call.sendBy! - call.wallAtCall).toBeLessThanOrEqual(1);
  });

  it("an account's arrival_allowance_ms replaces the channel's default (0: until expiry)", async () => {
    const code = await oneCode(driver, { expiresAt: T0 + 1_000, claimMs: 999, allowanceMs: 0 });
    await code.run();
    expect(code.calls).toHaveLength(1);
    expect((await code.delivery()).state).toBe('accepted');
  });

  it('ends the delivery expired when its next attempt could only start inside the allowance', async () => {
    // 10 s left and a 9 s allowance: the call goes out now, but the ladder's next step (1 s) would fall inside the allowance.
    const code = await oneCode(driver, {
      expiresAt: T0 + 10_000,
      claimMs: 0,
      allowanceMs: 9_000,
      answer: { kind: 'retryable', code: 'server_error', message: 'HTTP 503' },
    });
    await code.run();
    expect(code.calls).toHaveLength(1);
    expect(await code.delivery()).toMatchObject({ state: 'terminal', terminalReason: 'expired' });
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
