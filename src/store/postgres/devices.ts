/**
 * The PostgreSQL driver's own part of `store.devices` (the rest: parts/devices.ts). Row locks
 * (FOR UPDATE, SKIP LOCKED) in the shared statements keep two connections of one phone, or two
 * sweepers of one return, from doing the same work twice. Dialect-specific: a batch of reports is
 * applied one transaction per write (SQLite: a savepoint per write in one transaction), and offers
 * made in one process reach the phones' SSE connections held by another through NOTIFY on a
 * per-schema channel (SQLite: one process, nothing to signal).
 */
import pg from 'pg';
import type { Unsubscribe } from '../core-store.js';
import type { OfferListener, ReportWrite } from '../device-store.js';
import { DevicesPart } from '../parts/devices.js';
import type { PostgresContext } from './sql-context.js';
import { guardedTransition } from './transitions.js';

/** `store.devices` of the PostgreSQL store. */
export class PostgresDevices extends DevicesPart {
  /** NOTIFY channel, per schema, so stores sharing a server (tests) do not signal each other. */
  private readonly channel: string;

  constructor(
    private readonly sql: PostgresContext,
    private readonly connectionString: string,
  ) {
    super(sql, guardedTransition);
    this.channel = `herald_offers_${sql.schema}`;
  }

  /** One transaction per write: a refused guard rolls back that write alone. */
  async applyReports(writes: ReportWrite[]): Promise<boolean[]> {
    const out: boolean[] = [];
    const woken = new Set<string>();
    for (const w of writes) {
      const result = await this.sql
        .tx(async (c) => {
          const account = await this.sql.drive(this.applyReport(w), c);
          if (account === null) throw new GuardRefusedPg();
          return account;
        })
        .catch((err: unknown) => {
          if (err instanceof GuardRefusedPg) return null;
          throw err;
        });
      out.push(result !== null);
      if (result && (w.transition?.to === 'retryable' || w.transition?.to === 'ready')) woken.add(result);
    }
    // A retry is due: workers in other processes.
    if (woken.size > 0) this.sql.wakeListeners([...woken]);
    return out;
  }

  async signalOffers(deviceIds: string[], origin: string): Promise<void> {
    for (const id of new Set(deviceIds)) await this.sql.q('ready_notify', [this.channel, `${origin}|${id}`]).catch(() => {});
  }

  async listenForOffers(onOffer: OfferListener): Promise<Unsubscribe> {
    // A dedicated connection (LISTEN is per session); reconnects after errors with a short backoff.
    let stopped = false;
    let client: pg.Client | null = null;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const c = new pg.Client({ connectionString: this.connectionString });
      c.on('notification', (msg) => {
        const bar = msg.payload?.indexOf('|') ?? -1;
        if (msg.channel === this.channel && msg.payload && bar > 0) onOffer(msg.payload.slice(bar + 1), msg.payload.slice(0, bar));
      });
      c.on('error', () => {
        client = null;
        c.end().catch(() => {});
        if (!stopped) setTimeout(() => void connect().catch(() => {}), 1_000).unref();
      });
      await c.connect();
      await c.query(`LISTEN ${this.channel}`);
      client = c;
    };
    await connect();
    return async () => {
      stopped = true;
      await client?.end().catch(() => {});
      client = null;
    };
  }
}

class GuardRefusedPg extends Error {}
