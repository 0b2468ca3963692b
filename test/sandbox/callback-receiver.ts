/**
 * A real HTTP server standing in for Herald's callback route in the sandbox tests: it keeps
 * every request's raw bytes and headers in arrival order and answers what the test says
 * (a status, or 'drop' to destroy the connection without an answer).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Parsed body, for terse assertions. */
  body: any;
}

/** A status, 'drop' (destroy the connection unanswered), or a promise of either (a held answer). */
export type Answer = number | 'drop' | Promise<number | 'drop'>;

export interface CallbackReceiver {
  url: string;
  received: ReceivedCallback[];
  /** Decides the answer to the n-th request (0-based) given its body; default 200. */
  answer: (callback: ReceivedCallback, index: number) => Answer;
  close(): Promise<void>;
}

/** Starts a receiver on an ephemeral port. */
export async function startReceiver(answer: CallbackReceiver['answer'] = () => 200): Promise<CallbackReceiver> {
  const sockets = new Set<Socket>();
  const receiver: CallbackReceiver = {
    url: '',
    received: [],
    answer,
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let body: unknown = null;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        body = rawBody.toString('utf8');
      }
      const callback = { headers: req.headers, rawBody, body };
      const index = receiver.received.length;
      receiver.received.push(callback);
      void Promise.resolve(receiver.answer(callback, index)).then((decided) => {
        if (decided === 'drop') {
          req.socket.destroy();
          return;
        }
        res.writeHead(decided, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/sandbox`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return receiver;
}
