import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FaultSpecError, startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { answered, freshKey, rawRequest, sendEmail, type RawResult } from './raw-http.js';

let sandbox: SandboxHandle;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 42 });
});

afterEach(async () => {
  await sandbox.close();
});

async function postFault(spec: object, target: SandboxHandle = sandbox): Promise<RawResult & { kind: 'answer' }> {
  return answered(await rawRequest(target.url, { method: 'POST', path: '/faults', body: spec }));
}

async function listFaults(): Promise<unknown[]> {
  return answered(await rawRequest(sandbox.url, { path: '/faults' })).body.faults;
}

function statusOf(result: RawResult): number | string {
  return result.kind === 'answer' ? result.status : result.kind;
}

describe('each fault mode through the HTTP control API', () => {
  it('server_error: 503 for the next N sends, not recorded, then normal', async () => {
    expect((await postFault({ mode: 'server_error', count: 2 })).status).toBe(200);
    const first = answered(await sendEmail(sandbox.url, freshKey()));
    expect(first.status).toBe(503);
    expect(first.body).toEqual({ error: 'server_error' });
    expect(await listFaults()).toEqual([{ mode: 'server_error', count: 1 }]);
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(503);
    expect(await listFaults()).toEqual([]);
    expect(sandbox.ledger.entries()).toEqual([]);
    const key = freshKey();
    expect(statusOf(await sendEmail(sandbox.url, key))).toBe(200);
    expect(sandbox.ledger.entries().map((e) => e.idempotency_key)).toEqual([key]);
  });

  it('rate_limit: 429 with Retry-After from retry_after_seconds (default 1), not recorded', async () => {
    await postFault({ mode: 'rate_limit', count: 1, retry_after_seconds: 7 });
    const limited = answered(await sendEmail(sandbox.url, freshKey()));
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.body).toEqual({ error: 'rate_limited' });

    await postFault({ mode: 'rate_limit', count: 1 });
    const defaulted = answered(await sendEmail(sandbox.url, freshKey()));
    expect(defaulted.status).toBe(429);
    expect(defaulted.headers['retry-after']).toBe('1');
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('rate_limit throttle_headers: an HTTP-date, the RateLimit-* set, or no hint', async () => {
    const sent = Date.now();
    await postFault({ mode: 'rate_limit', count: 1, retry_after_seconds: 90, throttle_headers: 'retry_after_date' });
    const dated = answered(await sendEmail(sandbox.url, freshKey()));
    expect(dated.status).toBe(429);
    const at = Date.parse(String(dated.headers['retry-after']));
    expect(String(dated.headers['retry-after'])).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    // Whole seconds, so up to a second before sent + 90 s; never after the answer + 90 s.
    expect(at).toBeGreaterThanOrEqual(Math.floor(sent / 1000) * 1000 + 90_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 90_000);

    await postFault({ mode: 'rate_limit', count: 1, retry_after_seconds: 4, throttle_headers: 'ratelimit' });
    const limited = answered(await sendEmail(sandbox.url, freshKey()));
    expect(limited.status).toBe(429);
    expect(limited.headers).toMatchObject({ 'retry-after': '4', 'ratelimit-remaining': '0', 'ratelimit-reset': '4' });

    await postFault({ mode: 'rate_limit', count: 1, throttle_headers: 'none' });
    expect(await listFaults()).toEqual([{ mode: 'rate_limit', count: 1, retry_after_seconds: 1, throttle_headers: 'none' }]);
    const bare = answered(await sendEmail(sandbox.url, freshKey()));
    expect(bare.status).toBe(429);
    expect(bare.headers['retry-after']).toBeUndefined();
    expect(bare.headers['ratelimit-reset']).toBeUndefined();
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('reject_permanent: 400 invalid_destination for a valid destination, not recorded', async () => {
    await postFault({ mode: 'reject_permanent', count: 1 });
    const res = answered(await sendEmail(sandbox.url, freshKey()));
    expect(res.status).toBe(400);
    // Quoting the destination, as Twilio does: clients must not copy provider text.
    expect(res.body).toEqual({ error: 'invalid_destination', message: expect.stringContaining('ada@example.test') });
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('lose_response_after_accept: recorded, then the connection drops without an answer', async () => {
    await postFault({ mode: 'lose_response_after_accept', count: 1 });
    const key = freshKey('lost');
    const result = await sendEmail(sandbox.url, key);
    expect(result).toEqual({ kind: 'error', code: 'ECONNRESET' });
    expect(sandbox.ledger.countByKey(key)).toBe(1);
    expect(sandbox.ledger.entries()).toHaveLength(1);
  });

  it('timeout_before_accept: never answers, records nothing, and the next send is normal', async () => {
    await postFault({ mode: 'timeout_before_accept', count: 1 });
    const held = await sendEmail(sandbox.url, freshKey(), { timeoutMs: 300 });
    expect(held).toEqual({ kind: 'timeout' });
    expect(sandbox.ledger.entries()).toEqual([]);
    expect(await listFaults()).toEqual([]);
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(200);
  });

  it('latency: delays the answer, then processes normally or with another fault', async () => {
    await postFault({ mode: 'latency', count: 2, latency_ms: 150 });
    let started = Date.now();
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);

    await postFault({ mode: 'server_error', count: 1 });
    started = Date.now();
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(await listFaults()).toEqual([]);
    expect(sandbox.ledger.entries()).toHaveLength(1);
  });
});

describe('count semantics and clearing', () => {
  it('evaluates in order and consumes only the fault that triggered', async () => {
    await postFault({ mode: 'rate_limit', count: 1 });
    await postFault({ mode: 'server_error', count: 1 });
    expect(await listFaults()).toEqual([
      { mode: 'server_error', count: 1 },
      { mode: 'rate_limit', count: 1, retry_after_seconds: 1 },
    ]);
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(503);
    expect(await listFaults()).toEqual([{ mode: 'rate_limit', count: 1, retry_after_seconds: 1 }]);
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(429);
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(200);
  });

  it('a send the sandbox refuses on its own does not consume a fault', async () => {
    await postFault({ mode: 'server_error', count: 1 });
    const noKey = answered(await rawRequest(sandbox.url, { method: 'POST', path: '/emails', body: { to: 'a@example.test', subject: 's', text: 't' } }));
    expect(noKey.status).toBe(400);
    expect(await listFaults()).toEqual([{ mode: 'server_error', count: 1 }]);
  });

  it('count: 0 clears one mode; DELETE /faults clears all', async () => {
    await postFault({ mode: 'server_error', count: 5 });
    await postFault({ mode: 'reject_permanent', probability: 0.5 });
    await postFault({ mode: 'server_error', count: 0 });
    expect(await listFaults()).toEqual([{ mode: 'reject_permanent', probability: 0.5 }]);

    await postFault({ mode: 'timeout_before_accept', count: 3 });
    const deleted = answered(await rawRequest(sandbox.url, { method: 'DELETE', path: '/faults' }));
    expect(deleted.status).toBe(200);
    expect(await listFaults()).toEqual([]);
    expect(statusOf(await sendEmail(sandbox.url, freshKey()))).toBe(200);
  });

  it('setting a mode again replaces its previous setting', async () => {
    await postFault({ mode: 'server_error', count: 5 });
    await postFault({ mode: 'server_error', count: 1 });
    expect(await listFaults()).toEqual([{ mode: 'server_error', count: 1 }]);
  });
});

describe('probability faults', () => {
  async function pattern(target: SandboxHandle, sends: number): Promise<string> {
    let seen = '';
    for (let i = 0; i < sends; i += 1) {
      const status = statusOf(await sendEmail(target.url, freshKey()));
      seen += status === 503 ? 'X' : status === 200 ? '.' : '?';
    }
    return seen;
  }

  it('is reproducible for a seed, mixes outcomes, and differs across seeds', async () => {
    const runs: string[] = [];
    for (const seed of [7, 7, 8]) {
      const target = await startSandbox({ seed });
      try {
        expect((await postFault({ mode: 'server_error', probability: 0.5 }, target)).status).toBe(200);
        runs.push(await pattern(target, 40));
        // Only accepted sends are recorded: the ledger agrees with the pattern.
        expect(target.ledger.entries()).toHaveLength(runs.at(-1)!.split('.').length - 1);
      } finally {
        await target.close();
      }
    }
    const [first, again, other] = runs as [string, string, string];
    expect(first).toMatch(/^[X.]{40}$/);
    expect(first).toContain('X');
    expect(first).toContain('.');
    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  it('probability 1 always triggers and probability 0 clears', async () => {
    await postFault({ mode: 'server_error', probability: 1 });
    expect(await pattern(sandbox, 5)).toBe('XXXXX');
    await postFault({ mode: 'server_error', probability: 0 });
    expect(await listFaults()).toEqual([]);
    expect(await pattern(sandbox, 2)).toBe('..');
  });
});

describe('bad fault requests', () => {
  const cases: Array<{ body: unknown; field: string }> = [
    { body: { mode: 'explode', count: 1 }, field: 'mode' },
    { body: { count: 1 }, field: 'mode' },
    { body: { mode: 'server_error' }, field: 'count' },
    { body: { mode: 'server_error', count: 1, probability: 0.5 }, field: 'count' },
    { body: { mode: 'server_error', count: -1 }, field: 'count' },
    { body: { mode: 'server_error', count: 1.5 }, field: 'count' },
    { body: { mode: 'server_error', count: '2' }, field: 'count' },
    { body: { mode: 'server_error', probability: 1.5 }, field: 'probability' },
    { body: { mode: 'server_error', count: 1, retry_after_seconds: 3 }, field: 'retry_after_seconds' },
    { body: { mode: 'rate_limit', count: 1, retry_after_seconds: -3 }, field: 'retry_after_seconds' },
    { body: { mode: 'server_error', count: 1, throttle_headers: 'none' }, field: 'throttle_headers' },
    { body: { mode: 'rate_limit', count: 1, throttle_headers: 'x-ratelimit' }, field: 'throttle_headers' },
    { body: { mode: 'latency', count: 1 }, field: 'latency_ms' },
    { body: { mode: 'server_error', count: 1, latency_ms: 5 }, field: 'latency_ms' },
    { body: { mode: 'server_error', count: 1, colour: 'red' }, field: 'colour' },
    { body: [1, 2], field: 'body' },
    { body: 'not json', field: 'body' },
  ];

  it.each(cases)('$field: $body', async ({ body, field }) => {
    const res = answered(
      await rawRequest(sandbox.url, {
        method: 'POST',
        path: '/faults',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_fault');
    expect(res.body.field).toBe(field);
    expect(res.body.message).toContain(field === 'body' ? 'body' : field);
    expect(await listFaults()).toEqual([]);
  });

  it('the in-process controller throws the same error', () => {
    expect(() => sandbox.faults.set({ mode: 'latency', count: 1 })).toThrow(FaultSpecError);
    sandbox.faults.set({ mode: 'latency', count: 1, latency_ms: 10 });
    expect(sandbox.faults.list()).toEqual([{ mode: 'latency', count: 1, latency_ms: 10 }]);
    sandbox.faults.clear();
    expect(sandbox.faults.list()).toEqual([]);
  });
});

describe('close', () => {
  it('closes promptly while a held request is open', async () => {
    const target = await startSandbox();
    target.faults.set({ mode: 'timeout_before_accept', count: 1 });
    const held = sendEmail(target.url, freshKey(), { timeoutMs: 20_000 });
    // The fault is consumed once the sandbox has the whole request and is holding it.
    await vi.waitFor(() => expect(target.faults.list()).toEqual([]), { timeout: 5_000, interval: 5 });
    const started = Date.now();
    await target.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await held).toEqual({ kind: 'error', code: 'ECONNRESET' });
  });
});
