/**
 * SSRF rules for customer webhook URLs (security-baseline.md §6 and its "Webhook URLs (SSRF)"
 * list): every URL of the list is refused; names are judged by every address they resolve to;
 * the operator's allow list opens exactly what it names; and the same check runs inside the
 * socket's lookup, so a name that resolves to a private address at connect time (DNS
 * rebinding) never gets a connection.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AddressPolicy, type Resolver } from '../../src/webhooks/address-policy.js';
import { WebhookHttpClient } from '../../src/webhooks/webhook-http.js';
import { REFUSED_URLS } from './fixtures.js';
import { startReceiver, type Receiver } from './receiver.js';

/** A resolver answering from a table (and failing like getaddrinfo for other names). */
function table(entries: Record<string, string[]>): Resolver {
  return async (name) => {
    const found = entries[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('AddressPolicy.checkUrl (registration)', () => {
  const strict = new AddressPolicy();

  it.each(REFUSED_URLS)('refuses %s', async (url) => {
    const r = await strict.checkUrl(url);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason.length).toBeGreaterThan(5);
  });

  it('says why, naming the address class', async () => {
    expect(await strict.checkUrl('http://169.254.169.254/')).toEqual({
      ok: false,
      reason: 'has a non-public host: 169.254.169.254 is a link-local (cloud metadata services live here) address',
    });
    expect(await strict.checkUrl('http://[64:ff9b::7f00:1]/')).toMatchObject({ reason: expect.stringContaining('NAT64') });
    expect(await strict.checkUrl('http://100.100.100.200/')).toMatchObject({ reason: expect.stringContaining('carrier-grade NAT') });
    expect(await strict.checkUrl('http://localhost/')).toMatchObject({
      reason: expect.stringMatching(/^host localhost resolves to a non-public address: (127\.0\.0\.1|::1) is a loopback address$/),
    });
  });

  it('judges a name by every address it resolves to', async () => {
    const p = new AddressPolicy({
      resolve: table({
        'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
        'private.example.com': ['10.1.2.3'],
        'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
        'metadata.google.internal': ['169.254.169.254'],
        'empty.example.com': [],
      }),
    });
    expect(await p.checkUrl('https://hooks.example.com/h?x=1')).toMatchObject({ ok: true, url: new URL('https://hooks.example.com/h?x=1') });
    expect(await p.checkUrl('https://private.example.com/')).toMatchObject({ ok: false, reason: expect.stringContaining('10.1.2.3') });
    expect(await p.checkUrl('https://mixed.example.com/')).toMatchObject({ ok: false, reason: expect.stringContaining('127.0.0.1') });
    expect(await p.checkUrl('https://metadata.google.internal/')).toMatchObject({ ok: false });
    expect(await p.checkUrl('https://empty.example.com/')).toMatchObject({ ok: false, reason: expect.stringContaining('no addresses') });
    expect(await p.checkUrl('https://nowhere.example.com/')).toMatchObject({ ok: false, reason: expect.stringContaining('does not resolve') });
  });

  it('accepts public IP literals, IPv4 and IPv6, on any port', async () => {
    for (const url of ['https://93.184.216.34/h', 'http://8.8.8.8:8080/', 'https://[2606:4700:4700::1111]/h']) {
      expect((await strict.checkUrl(url)).ok, url).toBe(true);
    }
  });

  it('the allow list opens exactly the networks it names', async () => {
    const p = new AddressPolicy({ allowNetworks: ['127.0.0.0/8', '::1/128'] });
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://127.5.6.7/', 'http://[::1]:9000/', 'http://localhost:8080/']) {
      expect((await p.checkUrl(url)).ok, url).toBe(true);
    }
    // Other classes stay refused, and so does a mapped form of an allowed address (not listed).
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://[::ffff:127.0.0.1]/', 'http://user@127.0.0.1/', 'ftp://127.0.0.1/']) {
      expect((await p.checkUrl(url)).ok, url).toBe(false);
    }
    expect(() => new AddressPolicy({ allowNetworks: ['127.0.0.1'] })).toThrow(/CIDR/);
  });
});

describe('the connect-time check (WebhookHttpClient)', () => {
  let receiver: Receiver;
  const clients: WebhookHttpClient[] = [];
  const client = (policy: AddressPolicy, timeoutMs = 2_000) => {
    const c = new WebhookHttpClient({ policy, timeoutMs });
    clients.push(c);
    return c;
  };
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await receiver.close();
  });

  it('refuses a host name that resolves to a private address when it is not allowed, without connecting', async () => {
    const url = `http://localhost:${receiver.port}/hooks`;
    const r = await client(new AddressPolicy()).post(url, {}, '{}');
    expect(r).toMatchObject({ kind: 'error', error: expect.stringMatching(/^refused: host localhost resolves to .*loopback/) });
    expect(receiver.requests).toEqual([]);
    // The same request with loopback allowed arrives.
    expect(await client(new AddressPolicy({ allowNetworks: ['127.0.0.0/8', '::1/128'] })).post(url, {}, '{}')).toMatchObject({ kind: 'response', status: 204 });
    expect(receiver.requests).toHaveLength(1);
  });

  it('defeats DNS rebinding: public at registration, private at connect time, no connection', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const policy = new AddressPolicy({ resolve: rebinding });
    const url = `http://rebind.example.com:${receiver.port}/hooks`;
    expect((await policy.checkUrl(url)).ok).toBe(true);
    const r = await client(policy).post(url, {}, '{}');
    expect(r).toMatchObject({ kind: 'error', error: expect.stringContaining('127.0.0.1 is a loopback address') });
    expect(receiver.requests).toEqual([]);
  });

  it('refuses an IP literal at send time too (no DNS lookup happens for it)', async () => {
    const r = await client(new AddressPolicy()).post(receiver.url, {}, '{}');
    expect(r).toMatchObject({ kind: 'error', error: expect.stringContaining('loopback') });
    expect(receiver.requests).toEqual([]);
  });

  it('does not follow redirects: a 3xx is the answer', async () => {
    const target = await startReceiver();
    try {
      receiver.respond = () => ({ status: 302, headers: { location: target.url } });
      const r = await client(new AddressPolicy({ allowNetworks: ['127.0.0.0/8'] })).post(receiver.url, {}, '{}');
      expect(r).toEqual({ kind: 'response', status: 302, retryAfter: null });
      expect(target.requests).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('gives up on an endpoint that hangs after the deadline', async () => {
    receiver.respond = () => 'hang';
    const started = Date.now();
    const r = await client(new AddressPolicy({ allowNetworks: ['127.0.0.0/8'] }), 300).post(receiver.url, {}, '{}');
    expect(r).toMatchObject({ kind: 'error', error: expect.stringContaining('ETIMEDOUT') });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
