/**
 * The SQLite driver's own part of `store.devices` (the rest: parts/devices.ts). Dialect-specific:
 * a batch of reports is one transaction with a savepoint per write (PostgreSQL: a transaction per
 * write), and offers need no signal between processes: one SQLite file serves one Herald process,
 * whose gateway signals its own connections in memory (PostgreSQL: NOTIFY).
 */
import type { Unsubscribe } from '../core-store.js';
import type { OfferListener, ReportWrite } from '../device-store.js';
import { DevicesPart } from '../parts/devices.js';
import type { SqliteContext } from './sql-context.js';
import { guardedTransition } from './transitions.js';

/** Thrown inside a savepoint to undo one write of a batch. */
class GuardRefused extends Error {}

/** `store.devices` of the SQLite store. */
export class SqliteDevices extends DevicesPart {
  constructor(private readonly sql: SqliteContext) {
    super(sql, guardedTransition);
  }

  async applyReports(writes: ReportWrite[]): Promise<boolean[]> {
    if (writes.length === 0) return [];
    return this.sql.write(() =>
      writes.map((w) => {
        try {
          // A nested better-sqlite3 transaction is a SAVEPOINT: a refused guard undoes this write alone.
          this.sql.db.transaction(() => {
            if (this.sql.drive(this.applyReport(w)) === null) throw new GuardRefused();
          })();
          return true;
        } catch (err) {
          if (err instanceof GuardRefused) return false;
          throw err;
        }
      }),
    );
  }

  async signalOffers(): Promise<void> {}

  async listenForOffers(_onOffer: OfferListener): Promise<Unsubscribe> {
    return async () => {};
  }
}
