/**
 * The sandbox provider: a local HTTP server that behaves like Resend, Twilio and FCM, keeps a
 * ground-truth ledger of what it accepted, answers look-ups by reference, posts signed
 * delivery callbacks, enforces an optional per-channel quota, and misbehaves on request.
 * Built on node:http rather than Fastify because its faults need raw socket control (hold a
 * socket open without answering, destroy one after accepting). It logs nothing:
 * destinations and bodies never leave the process (callbacks carry neither).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isChannel, type Channel } from '../domain/index.js';
import { AcceptanceMemory } from './acceptance-memory.js';
import { BehaviourController, type BehaviourPatch } from './behaviour.js';
import { CallbackDispatcher, CallbackSpecError, parseRegistration, type CallbackRegistration } from './callback-dispatcher.js';
import { handleControl, isControlPath } from './control-routes.js';
import { FaultController } from './faults.js';
import { writeJson } from './http-messages.js';
import { Ledger } from './ledger.js';
import { handleLookup, LOOKUP_PATH } from './lookup-route.js';
import { QuotaController, type QuotaSetting } from './quota.js';
import { freshSeed, mulberry32 } from './random.js';
import { matchSendPath } from './send-requests.js';
import { handleSend } from './send-route.js';

/** How long an idle keep-alive connection stays open (Node's default is 5 s); see startSandbox. */
export const SANDBOX_KEEP_ALIVE_MS = 65_000;

// Callbacks draw from their own stream of the same seed, so registering a callback URL never
// shifts which sends a probability fault hits (and the other way round).
const CALLBACK_STREAM = 0x9e3779b9;

export interface SandboxOptions {
  /** 0 (the default) picks an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** When set, sends must carry `Authorization: Bearer <apiKey>`, else 401. */
  apiKey?: string;
  /** PRNG seed for probability faults; a fresh one when omitted (see SandboxHandle.seed). */
  seed?: number;
  /** Clock for `received_at`, callback timestamps and signatures, quota seconds; defaults to the wall clock. */
  now?: () => Date;
  /** Starting behaviour (dedupe_by_key, callback behaviour); `DELETE /behaviour` returns to it. */
  behaviour?: BehaviourPatch;
  /** Callback registrations per channel; a missing secret is generated (read it from the handle). */
  callbacks?: Partial<Record<Channel, { url: string; secret?: string }>>;
  /** Accepted sends per second per channel; absent means unlimited. */
  quota?: QuotaSetting;
}

export interface SandboxHandle {
  /** e.g. http://127.0.0.1:PORT, without a trailing slash. */
  url: string;
  port: number;
  /** The seed in use, so a run with a random seed can be reproduced. */
  seed: number;
  ledger: Ledger;
  faults: FaultController;
  behaviour: BehaviourController;
  quota: QuotaController;
  /** Registrations, counters and `idle()` of the delivery callbacks. */
  callbacks: CallbackDispatcher;
  /** Resolves once no callback is scheduled or in flight (at once when none is). */
  idle(): Promise<void>;
  /** Stops listening, ends scheduled callbacks and destroys every open socket, including held ones. */
  close(): Promise<void>;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts a sandbox listening on host:port and resolves once it accepts connections. */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const host = options.host ?? '127.0.0.1';
  const seed = options.seed ?? freshSeed();
  const now = options.now ?? (() => new Date());
  const ledger = new Ledger();
  const faults = new FaultController(mulberry32(seed));
  // Validated before listening: a bad option is a programming error, thrown to the caller.
  const behaviour = new BehaviourController(options.behaviour);
  const quota = new QuotaController(options.quota);
  const initialCallbacks = Object.entries(options.callbacks ?? {}).map(([channel, input]): [Channel, CallbackRegistration] => {
    if (!isChannel(channel)) throw new CallbackSpecError(channel, `unknown channel ${channel}`);
    return [channel, parseRegistration(input)];
  });
  const memory = new AcceptanceMemory();
  const sockets = new Set<Socket>();
  const pendingDelays = new Set<{ timer: NodeJS.Timeout; resolve: (ran: boolean) => void }>();
  let closing = false;

  const delay = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      if (closing) {
        resolve(false);
        return;
      }
      const pending = {
        timer: setTimeout(() => {
          pendingDelays.delete(pending);
          resolve(true);
        }, ms),
        resolve,
      };
      pendingDelays.add(pending);
    });

  const callbacks = new CallbackDispatcher({
    random: mulberry32((seed ^ CALLBACK_STREAM) >>> 0),
    behaviour,
    ledger,
    now,
    delay,
  });
  for (const [channel, registration] of initialCallbacks) callbacks.register(channel, registration);

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    if (isControlPath(url.pathname)) {
      await handleControl(req, res, url, { ledger, faults, memory, behaviour, quota, callbacks });
      return;
    }
    if (url.pathname === LOOKUP_PATH) {
      handleLookup(req, res, url, { ledger, faults, apiKey: options.apiKey });
      return;
    }
    const endpoint = matchSendPath(url.pathname);
    if (endpoint === null) {
      writeJson(res, 404, { error: 'not_found' });
      return;
    }
    if (req.method !== 'POST') {
      writeJson(res, 405, { error: 'method_not_allowed' }, { allow: 'POST' });
      return;
    }
    await handleSend(req, res, endpoint, {
      ledger,
      faults,
      behaviour,
      memory,
      quota,
      callbacks,
      apiKey: options.apiKey,
      delay,
      now,
    });
  };

  const server = createServer((req, res) => {
    route(req, res).catch(() => {
      // A bug in the sandbox: answer 500 (never recorded) rather than leave the client hanging.
      if (!res.headersSent) writeJson(res, 500, { error: 'sandbox_internal_error' });
      else res.destroy();
    });
  });
  // Node's default requestTimeout (300 s) would answer 408 to a held request; holding is the point.
  server.requestTimeout = 0;
  // Idle keep-alive connections are kept 65 s, not Node's default 5 s. A keep-alive client that
  // keeps idle sockets longer than that (or whose idle timer fires late because its event loop is
  // stalled on a saturated machine) reuses a socket this server is closing: the
  // request is written, the server's RST arrives, and the attempt is `unknown` (ECONNRESET after
  // the request was sent). That is the campaign message bench:campaign saw stay queued: unknown →
  // looked up 30 s later, not found → retryable a minute later (docs/benchmarks.md). At 65 s the
  // stall would have to outlast a minute of idleness; a steady sender reuses its sockets long before.
  server.keepAliveTimeout = SANDBOX_KEEP_ALIVE_MS;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      closing = true;
      for (const pending of pendingDelays) {
        clearTimeout(pending.timer);
        pending.resolve(false);
      }
      pendingDelays.clear();
      callbacks.close();
      server.close(() => resolve());
      // server.close() waits for open connections; held and keep-alive ones would never end.
      for (const socket of sockets) socket.destroy();
    });
    return closed;
  };

  return {
    url: `http://${hostForUrl(host)}:${port}`,
    port,
    seed,
    ledger,
    faults,
    behaviour,
    quota,
    callbacks,
    idle: () => callbacks.idle(),
    close,
  };
}
