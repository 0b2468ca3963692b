/**
 * The HTTP plumbing the JSON API fakes (resend.ts, postmark.ts) share: a real server on an
 * ephemeral port of 127.0.0.1 that reads each request whole, asks the fake's handler what to
 * do, and can also misbehave the way a provider's edge does: hold the answer, never answer,
 * reset the connection after reading the request, or answer bytes that are not HTTP.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  /** Header names lower-cased (Node's). */
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type FakeReply =
  /** Answer JSON, after `delayMs` when given. */
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string>; delayMs?: number }
  /** Read the request and never answer (the connection stays open until close()). */
  | { kind: 'hang' }
  /** Read the request, then reset the connection without a byte of answer. */
  | { kind: 'reset' }
  /** Answer these bytes instead of HTTP, then close. */
  | { kind: 'raw'; bytes: Buffer };

export interface HttpFake {
  url: string;
  /** From now on nothing listens on the port: new connections are refused. */
  refuse(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a fake whose `handle` decides every answer. */
export async function startHttpFake(handle: (request: FakeRequest) => FakeReply | Promise<FakeReply>): Promise<HttpFake> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake.invalid');
      const request: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      void Promise.resolve(handle(request)).then((reply) => {
        switch (reply.kind) {
          case 'hang':
            return;
          case 'reset':
            req.socket.resetAndDestroy();
            return;
          case 'raw':
            req.socket.end(reply.bytes);
            return;
          case 'json': {
            const send = (): void => {
              if (res.destroyed) return;
              res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
              res.end(JSON.stringify(reply.body));
            };
            if (reply.delayMs === undefined) send();
            else {
              const timer = setTimeout(() => {
                timers.delete(timer);
                send();
              }, reply.delayMs);
              timers.add(timer);
            }
          }
        }
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
    });
  return {
    url: `http://127.0.0.1:${port}`,
    refuse: async () => {
      const stopped = stop();
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      const stopped = stop();
      for (const socket of sockets) socket.destroy();
      await stopped;
    },
  };
}

/** The one value of a header, or undefined (absent or repeated). */
export function header(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
