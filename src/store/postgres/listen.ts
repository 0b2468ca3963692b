/**
 * LISTEN on a dedicated connection (LISTEN is per session), for the wake-ups between processes:
 * ready deliveries (the store's listenForReady) and device offers (devices.ts). A connection that
 * fails is replaced after a short pause, and a replacement that cannot connect yet is tried again
 * after the same pause, until the listener is stopped: the server may be down for longer than one
 * pause. Meanwhile workers find their work by polling, as after a missed NOTIFY. One outage is two
 * log lines whatever its length: the fall back to polling when the connection fails, and the
 * recovery (with how many tries it took) when a replacement listens again.
 */
import pg from 'pg';
import type { Unsubscribe } from '../core-store.js';
import { errorFields, type StoreLogger } from '../store-log.js';

export interface ListenOptions {
  channel: string;
  /** Called with each notification's payload on `channel`. */
  onPayload: (payload: string) => void;
  log: StoreLogger;
  /** A new client for the connection (tests pass one that fails). */
  connect: () => pg.Client;
  /** The pause before a new connection. Default 1 s. */
  retryMs?: number;
}

/** Listens until the returned function is called; the first connection's failure is thrown to the caller. */
export async function listen(o: ListenOptions): Promise<Unsubscribe> {
  const retryMs = o.retryMs ?? 1_000;
  let stopped = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  const context = { channel: o.channel };
  /** Failed tries since the connection was lost; null while listening. */
  let failedTries: number | null = null;

  const close = (c: pg.Client, why: string) =>
    c.end().catch((err: unknown) => o.log.warn({ ...context, ...errorFields(err) }, `store: closing a LISTEN connection (${why}) failed`));

  const retry = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      connect().catch(() => {
        failedTries = (failedTries ?? 0) + 1;
        retry();
      });
    }, retryMs);
    timer.unref();
  };

  const connect = async (): Promise<void> => {
    if (stopped) return;
    const c = o.connect();
    c.on('notification', (msg) => {
      if (msg.channel === o.channel && msg.payload) o.onPayload(msg.payload);
    });
    c.on('error', (err) => {
      if (client === c) {
        client = null;
        failedTries = 0;
        o.log.warn({ ...context, ...errorFields(err) }, 'store: LISTEN connection failed; wake-ups fall back to polling until it is back');
      }
      void close(c, 'after its error');
      retry();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${o.channel}`);
    } catch (err) {
      void close(c, 'after a failed connect');
      throw err;
    }
    if (stopped) return void close(c, 'stopped while connecting');
    client = c;
    if (failedTries !== null) {
      o.log.info?.({ ...context, failedTries }, 'store: LISTEN connection restored; wake-ups resume');
      failedTries = null;
    }
  };

  await connect();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    timer = null;
    const c = client;
    client = null;
    if (c) await close(c, 'on stop');
  };
}
