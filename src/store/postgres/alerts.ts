/** The PostgreSQL driver's alert part (see src/store/alert-store.ts). */
import type { AlertState } from '../../domain/index.js';
import type { AlertHistoryPage, AlertStore, NewAlertSent } from '../alert-store.js';
import { toAlertSent, toAlertState } from '../alert-rows.js';
import type { PostgresContext } from './sql-context.js';

/** Thrown inside the transaction to roll back an evaluation that lost its compare-and-set. */
class VersionMoved extends Error {}

const stateParams = (s: AlertState) => [s.rule, s.subject, s.status, s.since, s.clearSince, s.line, s.value, s.announced, s.announcedAt, s.memory];

/** `store.alerts` of the PostgreSQL store. */
export class PostgresAlerts implements AlertStore {
  constructor(private readonly sql: PostgresContext) {}

  async listStates(): Promise<AlertState[]> {
    return (await this.sql.q('alert_states_list')).map(toAlertState);
  }

  async commitStates(changes: readonly AlertState[], now: number): Promise<AlertState[] | null> {
    try {
      // READ COMMITTED is enough: each UPDATE re-checks `version` on the row it waited for, and
      // a concurrent INSERT of the same key conflicts; either way the loser sees no row returned.
      return await this.sql.tx(async (c) => {
        const written: AlertState[] = [];
        for (const s of changes) {
          const rows =
            s.version === 0
              ? await this.sql.q('alert_state_insert', [...stateParams(s), now], c)
              : await this.sql.q('alert_state_update', [...stateParams(s), s.version, now], c);
          if (rows.length !== 1) throw new VersionMoved();
          written.push({ ...s, version: s.version + 1 });
        }
        return written;
      });
    } catch (err) {
      if (err instanceof VersionMoved) return null;
      throw err;
    }
  }

  async recordSent(entries: readonly NewAlertSent[]): Promise<void> {
    if (entries.length === 0) return;
    await this.sql.tx(async (c) => {
      for (const e of entries) {
        await this.sql.q('alert_history_insert', [e.sentAt, e.rule, e.subject, e.kind, e.targetKind, e.target, e.providerAccount, e.outcome, e.errorClass], c);
      }
    });
  }

  async pruneHistory(before: number): Promise<number> {
    return this.sql.count('alert_history_prune', [before]);
  }

  async listHistory(before: number | null, limit: number): Promise<AlertHistoryPage> {
    const rows = (await this.sql.q('alert_history_page', [before, limit + 1])).map(toAlertSent);
    const items = rows.slice(0, limit);
    return { items, nextBefore: rows.length > limit ? items[items.length - 1]!.id : null };
  }
}
