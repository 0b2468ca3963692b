/**
 * A customer's webhook endpoint for tests: a real node:http server on 127.0.0.1 that records
 * every request (headers and raw body) and answers what the test says. It can be closed (the
 * port refuses connections) and reopened on the same port, as a receiver that is down and back.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Clock } from '../../src/clock.js';
import type { Store } from '../../src/store/store.js';
import { AddressPolicy } from '../../src/webhooks/address-policy.js';
import { WebhookRelay } from '../../src/webhooks/webhook-relay.js';
import { WebhookSender } from '../../src/webhooks/webhook-sender.js';

/** The networks a test's receiver listens on, for a harness's `webhookAllowNetworks` and the sender's policy. */
export const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/**
 * One relay pass and one send pass, as the webhook services run them: the outbox's events so far
 * reach the tenant's endpoints (receivers on loopback), signed, each attempted once.
 */
export async function relayAndSendOnce(store: Store, clock: Clock): Promise<void> {
  const logger = pino({ level: 'silent' });
  const relay = new WebhookRelay({ store, clock, logger });
  const sender = new WebhookSender({ store, clock, logger, policy: new AddressPolicy({ allowNetworks: LOOPBACK }), random: () => 0 });
  try {
    await relay.runOnce();
    await sender.runOnce();
  } finally {
    await sender.stop();
  }
}

export interface ReceivedRequest {
  id: string;
  timestamp: string;
  signature: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The status this request was answered with. */
  status: number;
}

export type Responder = (r: Omit<ReceivedRequest, 'status'>) => { status: number; headers?: Record<string, string> } | 'hang';

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  respond: Responder = () => ({ status: 204 });
  private server: Server | null = null;
  private readonly hanging = new Set<ServerResponse>();
  port = 0;

  /** Listens on 127.0.0.1 (a free port the first time, the same port after a close). */
  async open(): Promise<this> {
    const server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** 2xx-answered requests, in arrival order. */
  get delivered(): ReceivedRequest[] {
    return this.requests.filter((r) => r.status >= 200 && r.status < 300);
  }

  /** Stops listening and drops open connections: new connections are refused until `open()`. */
  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const h = req.headers;
      const seen = {
        id: String(h['webhook-id']),
        timestamp: String(h['webhook-timestamp']),
        signature: String(h['webhook-signature']),
        headers: h,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const answer = this.respond(seen);
      if (answer === 'hang') {
        this.hanging.add(res);
        this.requests.push({ ...seen, status: 0 });
        return;
      }
      this.requests.push({ ...seen, status: answer.status });
      res.writeHead(answer.status, answer.headers ?? {});
      res.end();
    });
  }
}

/** A receiver listening on a free port. */
export async function startReceiver(): Promise<Receiver> {
  return new Receiver().open();
}
