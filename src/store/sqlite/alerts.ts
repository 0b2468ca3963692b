/** The SQLite driver's alert part (see src/store/alert-store.ts). */
import type { AlertState } from '../../domain/index.js';
import type { AlertHistoryPage, AlertStore, NewAlertSent } from '../alert-store.js';
import { toAlertSent, toAlertState } from '../alert-rows.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** Thrown inside the transaction to roll back an evaluation that lost its compare-and-set. */
class VersionMoved extends Error {}

const stateParams = (s: AlertState, now: number) => ({
  rule: s.rule,
  subject: s.subject,
  status: s.status,
  since: s.since,
  clear_since: s.clearSince,
  line: s.line,
  value: s.value,
  announced: s.announced,
  announced_at: s.announcedAt,
  memory: s.memory,
  now,
});

/** `store.alerts` of the SQLite store. */
export class SqliteAlerts implements AlertStore {
  constructor(private readonly sql: SqliteContext) {}

  async listStates(): Promise<AlertState[]> {
    return (this.sql.stmt('alert_states_list').all() as Row[]).map(toAlertState);
  }

  async commitStates(changes: readonly AlertState[], now: number): Promise<AlertState[] | null> {
    try {
      // BEGIN IMMEDIATE: the versions are compared under the write lock, so of two processes one commits.
      return this.sql.write(() =>
        changes.map((s) => {
          const changed =
            s.version === 0
              ? this.sql.stmt('alert_state_insert').run(stateParams(s, now)).changes
              : this.sql.stmt('alert_state_update').run({ ...stateParams(s, now), version: s.version }).changes;
          if (changed !== 1) throw new VersionMoved();
          return { ...s, version: s.version + 1 };
        }),
      );
    } catch (err) {
      if (err instanceof VersionMoved) return null;
      throw err;
    }
  }

  async recordSent(entries: readonly NewAlertSent[]): Promise<void> {
    this.sql.write(() => {
      for (const e of entries) {
        this.sql.stmt('alert_history_insert').run({
          sent_at: e.sentAt,
          rule: e.rule,
          subject: e.subject,
          kind: e.kind,
          target_kind: e.targetKind,
          target: e.target,
          provider_account: e.providerAccount,
          outcome: e.outcome,
          error_class: e.errorClass,
        });
      }
    });
  }

  async pruneHistory(before: number): Promise<number> {
    return this.sql.stmt('alert_history_prune').run({ before }).changes;
  }

  async listHistory(before: number | null, limit: number): Promise<AlertHistoryPage> {
    const rows = (this.sql.stmt('alert_history_page').all({ before, limit: limit + 1 }) as Row[]).map(toAlertSent);
    const items = rows.slice(0, limit);
    return { items, nextBefore: rows.length > limit ? items[items.length - 1]!.id : null };
  }
}
