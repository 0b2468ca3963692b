/**
 * The sandbox adapter's capabilities and look-up by reference, against a real sandbox and
 * against stub servers for the answers the sandbox never gives. The rule under test: only a
 * well-formed 200 is authoritative; everything else is `error`, never `not_found`.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../../src/domain/index.js';
import type { LookupResult, ProviderAccountConfig, ProviderAdapter } from '../../../src/providers/provider.js';
import { createSandboxAdapter } from '../../../src/providers/sandbox/adapter.js';
import { startSandbox, type SandboxHandle } from '../../../src/sandbox/index.js';

let sandbox: SandboxHandle;
const adapters: ProviderAdapter[] = [];
const stubs: Server[] = [];
let sequence = 0;

beforeEach(async () => {
  sandbox = await startSandbox({ seed: 6 });
});

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((adapter) => adapter.close()));
  for (const stub of stubs.splice(0)) {
    stub.closeAllConnections();
    await new Promise<void>((resolve) => stub.close(() => resolve()));
  }
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

function key(): string {
  sequence += 1;
  return `lookup-${process.pid}-${sequence}`;
}

function submitEmail(adapter: ProviderAdapter, idempotencyKey: string) {
  return adapter.submit({
    deliveryId: `dlv-${idempotencyKey}`,
    idempotencyKey,
    channel: 'email',
    purpose: 'otp',
    destination: 'ada@example.test',
    content: { subject: 'Code', text: 'Your code is 123456' },
    expiresAt: Date.now() + 60_000,
  });
}

async function stub(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stubs.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function lookupVia(baseUrl: string, idempotencyKey = 'k', overrides: Partial<ProviderAccountConfig> = {}): Promise<LookupResult> {
  return adapterFor('email', { base_url: baseUrl, ...overrides }).lookup!({ idempotencyKey, channel: 'email' });
}

describe('capabilities from the account', () => {
  it('default: lookup true (lookup present), dedupesByKey false', () => {
    const adapter = adapterFor('sms');
    expect(adapter.capabilities).toEqual({ lookup: true, dedupesByKey: false });
    expect(typeof adapter.lookup).toBe('function');
  });

  it('capabilities.lookup false removes lookup; dedupes_by_key true is declared', () => {
    const adapter = adapterFor('sms', { capabilities: { lookup: false, dedupes_by_key: true } });
    expect(adapter.capabilities).toEqual({ lookup: false, dedupesByKey: true });
    expect(adapter.lookup).toBeUndefined();
  });
});

describe('lookup against the sandbox', () => {
  it('found after an accepted submit, with the same provider message id', async () => {
    const adapter = adapterFor('email');
    const k = key();
    const outcome = await submitEmail(adapter, k);
    expect(outcome.kind).toBe('accepted');
    expect(await adapter.lookup!({ idempotencyKey: k, channel: 'email' })).toEqual({
      kind: 'found',
      providerMessageId: (outcome as { providerMessageId: string }).providerMessageId,
    });
  });

  it('not_found for a reference the sandbox never accepted', async () => {
    expect(await adapterFor('sms').lookup!({ idempotencyKey: key(), channel: 'sms' })).toEqual({ kind: 'not_found' });
  });

  it('resolves a lost response: unknown on submit, found on look-up', async () => {
    sandbox.faults.set({ mode: 'lose_response_after_accept', count: 1 });
    const adapter = adapterFor('email');
    const k = key();
    expect((await submitEmail(adapter, k)).kind).toBe('unknown');
    expect(await adapter.lookup!({ idempotencyKey: k, channel: 'email' })).toEqual({
      kind: 'found',
      providerMessageId: sandbox.ledger.entries()[0]!.provider_message_id,
    });
  });

  it('lookup_unavailable: error, never not_found', async () => {
    sandbox.faults.set({ mode: 'lookup_unavailable', count: 1 });
    const result = await adapterFor('email').lookup!({ idempotencyKey: key(), channel: 'email' });
    expect(result).toEqual({ kind: 'error', code: 'server_error', message: expect.any(String) });
  });

  it('a message on another channel with the same reference is not this one', async () => {
    const k = key();
    expect((await submitEmail(adapterFor('email'), k)).kind).toBe('accepted');
    expect(await adapterFor('sms').lookup!({ idempotencyKey: k, channel: 'sms' })).toEqual({ kind: 'not_found' });
  });

  it('sends the bearer key; a wrong key is an error', async () => {
    const guarded = await startSandbox({ apiKey: 'sk_lk' });
    try {
      expect(await lookupVia(guarded.url, key(), { api_key: 'sk_lk' })).toEqual({ kind: 'not_found' });
      expect(await lookupVia(guarded.url, key(), { api_key: 'sk_wrong' })).toMatchObject({ kind: 'error', code: 'provider_auth_failed' });
    } finally {
      await guarded.close();
    }
  });

  it('a base_url path the sandbox does not serve (404) is an error', async () => {
    expect(await lookupVia(`${sandbox.url}/prefix`)).toMatchObject({ kind: 'error', code: 'unexpected_status' });
  });
});

describe('answers the sandbox never gives', () => {
  function answering(status: number, body: string, headers: Record<string, string> = {}): Promise<string> {
    return stub((req, res) => {
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
  }

  it.each([
    [429, '{"error":"rate_limited"}', 'rate_limited'],
    [500, '', 'server_error'],
    [503, '{"error":"server_error"}', 'server_error'],
    [502, '', 'server_error'],
    [404, '{"error":"not_found"}', 'unexpected_status'],
    [200, 'not json', 'malformed_response'],
    [200, '{"items":[]}', 'malformed_response'],
    [200, '{"data":[{"reference":"k"}]}', 'malformed_response'],
    [200, '{"data":[7]}', 'malformed_response'],
  ])('HTTP %i %s: error %s', async (status, body, code) => {
    expect(await lookupVia(await answering(status, body))).toEqual({ kind: 'error', code, message: expect.any(String) });
  });

  it('items for another reference are ignored', async () => {
    expect(await lookupVia(await answering(200, '{"data":[{"id":"x","reference":"other"}]}'))).toEqual({ kind: 'not_found' });
  });

  it('sends the reference as a query parameter, URL-encoded', async () => {
    let seen = '';
    const url = await stub((req, res) => {
      seen = req.url ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[{"id":"m1","reference":"a b&c"}]}');
    });
    expect(await lookupVia(url, 'a b&c')).toEqual({ kind: 'found', providerMessageId: 'm1' });
    expect(new URL(seen, 'http://x').searchParams.get('reference')).toBe('a b&c');
    expect(new URL(seen, 'http://x').pathname).toBe('/v1/messages');
  });

  it('no answer within timeout_ms: error timeout', async () => {
    const url = await stub(() => {});
    const started = Date.now();
    expect(await lookupVia(url, 'k', { timeout_ms: 100 })).toMatchObject({ kind: 'error', code: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('a closed port: error transport_error', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    expect(await lookupVia(`http://127.0.0.1:${port}`)).toMatchObject({ kind: 'error', code: 'transport_error' });
  });

  it('an aborted signal: error aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const adapter = adapterFor('email');
    expect(await adapter.lookup!({ idempotencyKey: 'k', channel: 'email' }, controller.signal)).toMatchObject({ kind: 'error', code: 'aborted' });
  });
});
