/**
 * The sandbox adapter end to end: a real sandbox on an ephemeral port, faults injected
 * through its control API, outcomes checked against the sandbox's ledger (the ground truth).
 * The classes every adapter must get right are in the conformance suite
 * (adapters.conformance.test.ts); this file covers what is the sandbox's own: its named fault
 * modes, magic destinations, the bearer key, pooling and the adapter's configuration contract.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Channel } from '../../../src/domain/index.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../../../src/providers/provider.js';
import { createSandboxAdapter } from '../../../src/providers/sandbox/adapter.js';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';

let sandbox: SandboxHandle;
const adapters: ProviderAdapter[] = [];
let sequence = 0;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 3 });
});

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((adapter) => adapter.close()));
  await sandbox.close();
});

function adapterFor(channel: Channel, overrides: Partial<ProviderAccountConfig> = {}): ProviderAdapter {
  const adapter = createSandboxAdapter({
    id: `sandbox-${channel}`,
    kind: 'sandbox',
    channel,
    base_url: sandbox.url,
    rate_per_second: 100,
    burst: 100,
    ambiguity_policy: 'wait_for_evidence',
    timeout_ms: 2_000,
    ...overrides,
  });
  adapters.push(adapter);
  return adapter;
}

const DESTINATIONS: Record<Channel, string> = {
  email: 'ada@example.test',
  sms: '+15551234567',
  push: 'device-token-abc',
};

function request(channel: Channel, overrides: Partial<SubmitRequest> = {}): SubmitRequest {
  sequence += 1;
  return {
    deliveryId: `dlv-${sequence}`,
    idempotencyKey: `idem-${process.pid}-${sequence}`,
    channel,
    purpose: 'otp',
    destination: DESTINATIONS[channel],
    content: { subject: 'Your code', text: 'Your code is 123456' },
    expiresAt: Date.now() + 60_000,
    ...overrides,
  };
}

async function postFault(spec: object): Promise<void> {
  const res = await fetch(`${sandbox.url}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  expect(res.status).toBe(200);
}

describe('accepted sends', () => {
  it.each(['email', 'sms', 'push'] as const)('%s: accepted with the id the ledger recorded', async (channel) => {
    const adapter = adapterFor(channel);
    expect(adapter.capabilities).toEqual({ lookup: true, dedupesByKey: false });
    const req = request(channel);
    const outcome = await adapter.submit(req);
    const entries = sandbox.ledger.entries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      idempotency_key: req.idempotencyKey,
      channel,
      destination: req.destination,
    });
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: entries[0]!.provider_message_id });
  });

  it('reuses pooled connections across sends', async () => {
    const adapter = adapterFor('sms');
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => adapter.submit(request('sms'))));
    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(sandbox.ledger.entries()).toHaveLength(20);
    // Sequential sends after the burst: the pooled keep-alive sockets still work.
    for (let i = 0; i < 3; i += 1) expect((await adapter.submit(request('sms'))).kind).toBe('accepted');
  });
});

describe('every fault mode, classified', () => {
  it('lose_response_after_accept: unknown, and the ledger holds exactly one entry', async () => {
    await postFault({ mode: 'lose_response_after_accept', count: 1 });
    const req = request('email');
    const outcome = await adapterFor('email').submit(req);
    expect(outcome).toEqual({ kind: 'unknown', code: 'connection_lost', message: expect.any(String) });
    expect(sandbox.ledger.entries()).toHaveLength(1);
    expect(sandbox.ledger.countByKey(req.idempotencyKey)).toBe(1);
  });

  it('timeout_before_accept: unknown after timeout_ms, and the ledger is empty', async () => {
    await postFault({ mode: 'timeout_before_accept', count: 1 });
    const outcome = await adapterFor('sms', { timeout_ms: 250 }).submit(request('sms'));
    expect(outcome).toEqual({ kind: 'unknown', code: 'timeout', message: expect.any(String) });
    expect(sandbox.ledger.entries()).toEqual([]);
    expect(sandbox.faults.list()).toEqual([]);
  });

  it('rate_limit: throttled with retryAfterMs from Retry-After', async () => {
    await postFault({ mode: 'rate_limit', count: 1, retry_after_seconds: 2 });
    const outcome = await adapterFor('push').submit(request('push'));
    expect(outcome).toEqual({ kind: 'throttled', code: 'rate_limited', message: expect.any(String), retryAfterMs: 2_000 });
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('server_error: retryable', async () => {
    await postFault({ mode: 'server_error', count: 1 });
    const outcome = await adapterFor('email').submit(request('email'));
    expect(outcome).toMatchObject({ kind: 'retryable', code: 'server_error' });
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('reject_permanent: permanent invalid_destination', async () => {
    await postFault({ mode: 'reject_permanent', count: 1 });
    const outcome = await adapterFor('sms').submit(request('sms'));
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'invalid_destination' });
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('latency within the timeout: accepted', async () => {
    await postFault({ mode: 'latency', count: 1, latency_ms: 100 });
    expect((await adapterFor('email', { timeout_ms: 2_000 }).submit(request('email'))).kind).toBe('accepted');
    expect(sandbox.ledger.entries()).toHaveLength(1);
  });

  it('latency beyond the timeout: unknown, and the sandbox still accepts it later', async () => {
    await postFault({ mode: 'latency', count: 1, latency_ms: 300 });
    const req = request('email');
    const outcome = await adapterFor('email', { timeout_ms: 100 }).submit(req);
    expect(outcome).toMatchObject({ kind: 'unknown', code: 'timeout' });
    // The truthful part: "unknown" was right, the provider went on to accept it.
    await vi.waitFor(() => expect(sandbox.ledger.countByKey(req.idempotencyKey)).toBe(1), { timeout: 5_000, interval: 10 });
  });
});

describe('magic destinations', () => {
  it.each([
    ['email', 'someone@reject.sandbox.test'],
    ['sms', '+15005550001'],
    ['push', 'invalid-token-1'],
  ] as const)('%s %s: permanent invalid_destination, nothing recorded', async (channel, destination) => {
    const outcome = await adapterFor(channel).submit(request(channel, { destination }));
    expect(outcome).toEqual({
      kind: 'permanent',
      reason: 'invalid_destination',
      code: 'invalid_destination',
      message: expect.any(String),
    });
    expect(JSON.stringify(outcome)).not.toContain(destination);
    expect(sandbox.ledger.entries()).toEqual([]);
  });
});

describe('transport failures', () => {
  it('a closed port: retryable connect_failed', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const outcome = await adapterFor('email', { base_url: `http://127.0.0.1:${port}` }).submit(request('email'));
    expect(outcome).toEqual({ kind: 'retryable', code: 'connect_failed', message: expect.any(String) });
  });

  it('abort after the request was written: unknown', async () => {
    await postFault({ mode: 'timeout_before_accept', count: 1 });
    const controller = new AbortController();
    const pending = adapterFor('email', { timeout_ms: 10_000 }).submit(request('email'), controller.signal);
    // The sandbox consumes the fault once it has read the whole request and is holding it.
    await vi.waitFor(() => expect(sandbox.faults.list()).toEqual([]), { timeout: 5_000, interval: 5 });
    controller.abort();
    expect(await pending).toEqual({ kind: 'unknown', code: 'aborted', message: expect.any(String) });
  });

  it('a signal aborted before the call: retryable, nothing sent', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await adapterFor('email').submit(request('email'), controller.signal);
    expect(outcome).toMatchObject({ kind: 'retryable', code: 'aborted_before_send' });
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('close() releases the pool; a later send does not hang', async () => {
    const adapter = adapterFor('email');
    expect((await adapter.submit(request('email'))).kind).toBe('accepted');
    await adapter.close();
    await sandbox.close();
    const outcome = await adapter.submit(request('email'));
    expect(outcome).toMatchObject({ kind: 'retryable', code: 'connect_failed' });
  });
});

describe('API key', () => {
  it('sends the bearer key from api_key or api_key_env; a wrong key is retryable provider_auth_failed', async () => {
    const guarded = await startSandbox({ apiKey: 'sk_sandbox_1' });
    const envName = `HERALD_TEST_SANDBOX_KEY_${process.pid}`;
    process.env[envName] = 'sk_sandbox_1';
    try {
      const literal = adapterFor('email', { base_url: guarded.url, api_key: 'sk_sandbox_1' });
      const fromEnv = adapterFor('email', { base_url: guarded.url, api_key_env: envName });
      const wrong = adapterFor('email', { base_url: guarded.url, api_key: 'sk_wrong' });
      const missing = adapterFor('email', { base_url: guarded.url });

      expect((await literal.submit(request('email'))).kind).toBe('accepted');
      expect((await fromEnv.submit(request('email'))).kind).toBe('accepted');
      expect(await wrong.submit(request('email'))).toMatchObject({ kind: 'retryable', code: 'provider_auth_failed' });
      expect(await missing.submit(request('email'))).toMatchObject({ kind: 'retryable', code: 'provider_auth_failed' });
      expect(guarded.ledger.entries()).toHaveLength(2);
    } finally {
      delete process.env[envName];
      await guarded.close();
    }
  });
});

describe('contract', () => {
  it('rejects a request for another channel as a programming error, sending nothing', async () => {
    await expect(adapterFor('email').submit(request('sms'))).rejects.toThrow(/serves email, not sms/);
    expect(sandbox.ledger.entries()).toEqual([]);
  });

  it('refuses a non-http base_url at construction', () => {
    expect(() => adapterFor('email', { base_url: 'ftp://127.0.0.1/' })).toThrow(/http or https/);
  });

  it('keeps a base_url path prefix', async () => {
    const outcome = await adapterFor('email', { base_url: `${sandbox.url}/prefix/` }).submit(request('email'));
    // The sandbox serves no prefix, so the prefixed path is a 404: proof the prefix was used.
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'other', code: 'not_found' });
  });
});
