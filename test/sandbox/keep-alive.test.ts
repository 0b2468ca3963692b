/**
 * The sandbox keeps idle keep-alive connections long enough that a busy client does not reuse
 * one it is closing (server.ts: SANDBOX_KEEP_ALIVE_MS). With Node's default 5 s, a worker whose
 * event loop stalled past its agent's 4 s idle timer wrote a campaign message into a socket the
 * sandbox had closed: ECONNRESET after the request was sent, so `unknown`, then a lookup and a
 * retry more than a minute later (bench:campaign, docs/benchmarks.md).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SANDBOX_KEEP_ALIVE_MS } from '../../src/sandbox/server.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

let sandbox: SandboxHandle;
let agent: http.Agent;
beforeEach(async () => {
  sandbox = await startSandbox({ seed: 1 });
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
});
afterEach(async () => {
  agent.destroy();
  await sandbox.close();
});

function send(key: string): Promise<{ status: number; keepAlive: string | undefined; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const body = new URLSearchParams({ To: '+14155550123', Body: 'hello' }).toString();
    const url = new URL('/2010-04-01/Accounts/sandbox/Messages.json', sandbox.url);
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': key } },
      (res) => {
        res.resume();
        // The agent's own 'free' listener (which sets the idle timer) runs before this one.
        agent.once('free', (socket: Socket) => resolve({ status: res.statusCode ?? 0, keepAlive: res.headers['keep-alive'] as string | undefined, socket }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

it('announces a keep-alive of 65 s, and the connection is reused by the next call', async () => {
  const first = await send('ka-1');
  expect(first.status).toBeLessThan(300);
  expect(SANDBOX_KEEP_ALIVE_MS).toBeGreaterThanOrEqual(60_000);
  expect(first.keepAlive).toBe(`timeout=${SANDBOX_KEEP_ALIVE_MS / 1000}`);
  const second = await send('ka-2');
  expect(second.socket).toBe(first.socket);
});
