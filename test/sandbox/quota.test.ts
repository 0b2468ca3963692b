/** The sandbox's per-channel quota and the ledger's per-second counts. */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { answered, freshKey, rawRequest, sendEmail, sendSms, type RawResult } from './raw-http.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0); // a whole second
const started: SandboxHandle[] = [];

async function sandboxWith(options: Parameters<typeof startSandbox>[0] = {}): Promise<SandboxHandle> {
  const sandbox = await startSandbox({ seed: 4, ...options });
  started.push(sandbox);
  return sandbox;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

function status(result: RawResult): number {
  return answered(result).status;
}

describe('quota per channel', () => {
  it('above R accepted sends in one second: 429 with Retry-After, nothing recorded; the next second admits again', async () => {
    let now = T0 + 999;
    const sandbox = await sandboxWith({ quota: { sms: 3 }, now: () => new Date(now) });
    for (let i = 0; i < 3; i += 1) expect(status(await sendSms(sandbox.url, freshKey()))).toBe(201);
    const limited = answered(await sendSms(sandbox.url, freshKey()));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited' });
    // 1 ms before the next second, Retry-After is still a whole second.
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(sandbox.ledger.entries()).toHaveLength(3);
    // Other channels have their own (here: no) quota.
    expect(status(await sendEmail(sandbox.url, freshKey()))).toBe(200);

    now = T0 + 1_000;
    expect(status(await sendSms(sandbox.url, freshKey()))).toBe(201);
    expect(sandbox.ledger.perSecond('sms')).toEqual([
      { second: T0 / 1000, count: 3 },
      { second: T0 / 1000 + 1, count: 1 },
    ]);
    expect(sandbox.ledger.maxPerSecond('sms')).toBe(3);
    expect(sandbox.ledger.maxPerSecond()).toBe(4);
  });

  it('a quota refusal does not consume a fault', async () => {
    const sandbox = await sandboxWith({ quota: { email: 1 }, now: () => new Date(T0) });
    expect(status(await sendEmail(sandbox.url, freshKey()))).toBe(200);
    sandbox.faults.set({ mode: 'server_error', count: 1 });
    expect(status(await sendEmail(sandbox.url, freshKey()))).toBe(429);
    expect(sandbox.faults.list()).toEqual([{ mode: 'server_error', count: 1 }]);
  });

  it('a concurrent burst on the wall clock never exceeds R in any second', async () => {
    const sandbox = await sandboxWith({ quota: { sms: 5 } });
    const results = await Promise.all(Array.from({ length: 40 }, () => sendSms(sandbox.url, freshKey())));
    const statuses = results.map(status);
    const accepted = statuses.filter((s) => s === 201).length;
    expect(accepted).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - accepted);
    expect(sandbox.ledger.entries()).toHaveLength(accepted);
    expect(sandbox.ledger.maxPerSecond('sms')).toBeLessThanOrEqual(5);
    for (const result of results) {
      if (status(result) === 429) expect(Number(answered(result).headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('quota and per-second counts over the control API', () => {
  it('PUT merges channels, null lifts one, DELETE lifts all', async () => {
    const sandbox = await sandboxWith({ now: () => new Date(T0) });
    const put = answered(await rawRequest(sandbox.url, { method: 'PUT', path: '/quota', body: { sms: 2000, email: 1 } }));
    expect(put.body).toEqual({ quota: { sms: 2000, email: 1 } });
    answered(await rawRequest(sandbox.url, { method: 'PUT', path: '/quota', body: { sms: null } }));
    expect(answered(await rawRequest(sandbox.url, { path: '/quota' })).body).toEqual({ quota: { email: 1 } });
    expect(status(await sendEmail(sandbox.url, freshKey()))).toBe(200);
    expect(status(await sendEmail(sandbox.url, freshKey()))).toBe(429);
    expect(answered(await rawRequest(sandbox.url, { method: 'DELETE', path: '/quota' })).body).toEqual({ quota: {} });
    expect(status(await sendEmail(sandbox.url, freshKey()))).toBe(200);
  });

  it.each([
    [{ fax: 1 }, 'fax'],
    [{ sms: 0 }, 'sms'],
    [{ sms: 1.5 }, 'sms'],
    [{ sms: '10' }, 'sms'],
    [[1], 'body'],
  ])('refuses %j naming %s, changing nothing', async (body, field) => {
    const sandbox = await sandboxWith({ quota: { push: 7 } });
    const res = answered(await rawRequest(sandbox.url, { method: 'PUT', path: '/quota', body }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_quota', field });
    expect(sandbox.quota.get()).toEqual({ push: 7 });
  });

  it('GET /ledger/per-second lists counts per epoch second, per channel or in total', async () => {
    let now = T0;
    const sandbox = await sandboxWith({ now: () => new Date(now) });
    await sendSms(sandbox.url, freshKey());
    await sendSms(sandbox.url, freshKey());
    await sendEmail(sandbox.url, freshKey());
    now = T0 + 2_500;
    await sendSms(sandbox.url, freshKey());
    const s = T0 / 1000;
    const sms = answered(await rawRequest(sandbox.url, { path: '/ledger/per-second?channel=sms' }));
    expect(sms.body).toEqual([
      { second: s, count: 2 },
      { second: s + 2, count: 1 },
    ]);
    const all = answered(await rawRequest(sandbox.url, { path: '/ledger/per-second' }));
    expect(all.body).toEqual([
      { second: s, count: 3 },
      { second: s + 2, count: 1 },
    ]);
    expect(answered(await rawRequest(sandbox.url, { path: '/ledger/per-second?channel=fax' })).status).toBe(400);
    answered(await rawRequest(sandbox.url, { method: 'DELETE', path: '/ledger' }));
    expect(answered(await rawRequest(sandbox.url, { path: '/ledger/per-second' })).body).toEqual([]);
  });
});
