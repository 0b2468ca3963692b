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
import { errorFields } from '../store-log.js';
import { listen } from './listen.js';
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
    for (const id of new Set(deviceIds))
      await this.sql
        .q('ready_notify', [this.channel, `${origin}|${id}`])
        .catch((err: unknown) =>
          this.sql.log.warn({ deviceId: id, ...errorFields(err) }, 'store: NOTIFY of a device offer failed; the phone finds it on its next pull'),
        );
  }

  async listenForOffers(onOffer: OfferListener): Promise<Unsubscribe> {
    return listen({
      channel: this.channel,
      onPayload: (payload) => {
        const bar = payload.indexOf('|');
        if (bar > 0) onOffer(payload.slice(bar + 1), payload.slice(0, bar));
      },
      log: this.sql.log,
      connect: () => new pg.Client({ connectionString: this.connectionString }),
    });
  }
}

class GuardRefusedPg extends Error {}
