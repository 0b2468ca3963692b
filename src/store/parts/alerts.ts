/** `store.alerts`, written once for both drivers (see ../alert-store.ts). */
import type { AlertState } from '../../domain/index.js';
import type { AlertHistoryPage, AlertStore, NewAlertSent } from '../alert-store.js';
import { toAlertSent, toAlertState } from '../alert-rows.js';
import { type Executor, count } from '../sql-executor.js';

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

/** The alert rules' states and the history of what was sent. */
export class AlertsPart implements AlertStore {
  constructor(private readonly x: Executor) {}

  async listStates(): Promise<AlertState[]> {
    return (await this.x.all('alert_states_list')).map(toAlertState);
  }

  async commitStates(changes: readonly AlertState[], now: number): Promise<AlertState[] | null> {
    try {
      // Of two processes one commits: SQLite compares the versions under the write lock; in
      // PostgreSQL (READ COMMITTED is enough) each UPDATE re-checks `version` on the row it waited
      // for, and a concurrent INSERT of the same key conflicts; the loser changes no row.
      return await this.x.transaction(function* () {
        const written: AlertState[] = [];
        for (const s of changes) {
          const changed =
            s.version === 0
              ? yield* count('alert_state_insert', stateParams(s, now))
              : yield* count('alert_state_update', { ...stateParams(s, now), version: s.version });
          if (changed !== 1) throw new VersionMoved();
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
    await this.x.transaction(function* () {
      for (const e of entries) {
        yield* count('alert_history_insert', {
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

  pruneHistory(before: number): Promise<number> {
    return this.x.count('alert_history_prune', { before });
  }

  async listHistory(before: number | null, limit: number): Promise<AlertHistoryPage> {
    // A page of at least one: SQLite reads a negative LIMIT as none, PostgreSQL refuses it.
    const size = Math.max(1, limit);
    const rows = (await this.x.all('alert_history_page', { before, limit: size + 1 })).map(toAlertSent);
    const items = rows.slice(0, size);
    return { items, nextBefore: rows.length > size ? items[items.length - 1]!.id : null };
  }
}
