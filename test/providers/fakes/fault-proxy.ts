/**
 * A TCP proxy between an adapter and its provider's fake that breaks the connection on
 * request: the transport faults every provider can suffer, written once for every fake of a
 * request/answer protocol (HTTP/1.1 one exchange at a time per connection; `frame` says where
 * a request ends). Faults are armed per request, in order; an unarmed request passes.
 *
 * What the fake sees is the point: `reset_while_writing` forwards nothing (the request provably
 * never arrived), while `reset_after_write`, `hang`, `replace_answer` and `delay_answer` forward
 * the whole request and tamper only with the answer, so the fake may well have accepted it
 * (which is why the adapter must say `unknown`).
 */
import net, { type AddressInfo, type Socket } from 'node:net';

export type ProxyFault =
  /** Forward the request and its answer untouched. */
  | { kind: 'pass' }
  /** Reset the connection once `afterBytes` of the request arrived, forwarding none of it. */
  | { kind: 'reset_while_writing'; afterBytes: number }
  /** Forward the request; reset the connection when the fake starts answering. */
  | { kind: 'reset_after_write' }
  /** Forward the request; swallow the answer and keep the connection open. */
  | { kind: 'hang' }
  /** Forward the request; hold the answer for `ms` before passing it on. */
  | { kind: 'delay_answer'; ms: number }
  /** Forward the request; answer `bytes` instead of the fake's answer, then close. */
  | { kind: 'replace_answer'; bytes: Buffer };

export interface FaultProxyOptions {
  /** Where the fake listens. */
  upstream: { host: string; port: number };
  /** Length of the first complete request at the start of the bytes, null while incomplete; may throw. */
  frame(buffer: Buffer): number | null;
}

export interface FaultProxy {
  /** e.g. http://127.0.0.1:PORT: configure the adapter against this, not the fake. */
  readonly url: string;
  /** Arms `fault` for the next request to arrive; several queue in order. */
  next(fault: ProxyFault): void;
  /** From now on nothing listens on the port: every new connection is refused. */
  refuse(): void;
  /** The complete requests forwarded to the fake, in arrival order. */
  readonly forwarded: readonly Buffer[];
  /** Closes everything; rejects if a request could not be framed or a fault could not apply as armed. */
  close(): Promise<void>;
}

const PASS: ProxyFault = { kind: 'pass' };

/** Starts a proxy on an ephemeral port of 127.0.0.1 in front of `options.upstream`. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const queue: ProxyFault[] = [];
  const forwarded: Buffer[] = [];
  const failures: Error[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const track = (socket: Socket): Socket => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // Resets are what this proxy is for: an error on either side only ends that connection.
    socket.on('error', () => socket.destroy());
    return socket;
  };

  const onConnection = (client: Socket): void => {
    track(client);
    let pending: Buffer = Buffer.alloc(0);
    /** The fault of the request being received; null between requests. */
    let receiving: ProxyFault | null = null;
    /** The fault of the last request forwarded: it decides what happens to the fake's answer. */
    let answering: ProxyFault = PASS;
    let held: Buffer[] | null = null;
    let upstream: Socket | null = null;

    const toClient = (chunk: Buffer): void => {
      if (!client.destroyed) client.write(chunk);
    };
    const onAnswer = (chunk: Buffer): void => {
      const fault = answering;
      switch (fault.kind) {
        case 'pass':
          toClient(chunk);
          return;
        case 'hang':
          return;
        case 'reset_after_write':
          client.resetAndDestroy();
          upstream?.destroy();
          return;
        case 'replace_answer':
          answering = { kind: 'hang' };
          if (!client.destroyed) client.end(fault.bytes);
          upstream?.destroy();
          return;
        case 'delay_answer': {
          if (held !== null) {
            held.push(chunk);
            return;
          }
          held = [chunk];
          const timer = setTimeout(() => {
            timers.delete(timer);
            for (const part of held ?? []) toClient(part);
            held = null;
            answering = PASS;
          }, fault.ms);
          timers.add(timer);
          return;
        }
        case 'reset_while_writing':
          return; // never forwarded, so never answered
      }
    };
    const forward = (request: Buffer): void => {
      if (upstream === null) {
        upstream = track(net.connect(options.upstream.port, options.upstream.host));
        upstream.on('data', onAnswer);
        // The fake closed its side: pass that on, unless the fault keeps the client waiting.
        upstream.once('end', () => {
          if (answering.kind === 'pass') client.end();
        });
      }
      upstream.write(request);
    };

    client.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length > 0) {
        receiving ??= queue.shift() ?? PASS;
        let length: number | null;
        try {
          length = options.frame(pending);
        } catch (error) {
          failures.push(error instanceof Error ? error : new Error(String(error)));
          client.destroy();
          return;
        }
        if (receiving.kind === 'reset_while_writing') {
          if (length === null && pending.length < receiving.afterBytes) return;
          if (length !== null) {
            // The client may already count the request as written: the fault did not apply as armed.
            failures.push(new Error(`reset_while_writing: the whole request (${length} bytes) arrived before ${receiving.afterBytes} bytes`));
          }
          client.resetAndDestroy();
          return;
        }
        if (length === null) return;
        const request = Buffer.from(pending.subarray(0, length));
        pending = pending.subarray(length);
        forwarded.push(request);
        answering = receiving;
        receiving = null;
        forward(request);
      }
    });
    client.once('end', () => upstream?.end());
    client.once('close', () => upstream?.destroy());
  };

  const server = net.createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let listening = true;
  const stopListening = (): Promise<void> =>
    new Promise((resolve) => {
      if (!listening) {
        resolve();
        return;
      }
      listening = false;
      // The callback waits for open connections; close() destroys those itself.
      server.close(() => resolve());
    });

  return {
    url: `http://127.0.0.1:${port}`,
    next: (fault) => {
      queue.push(fault);
    },
    refuse: () => {
      void stopListening();
    },
    forwarded,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const stopped = stopListening();
      for (const socket of sockets) socket.destroy();
      await stopped;
      if (failures.length > 0) throw failures[0]!;
    },
  };
}
