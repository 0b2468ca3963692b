/** The SQLite driver's observability part (see src/store/observability-store.ts): aggregate reads for the metrics endpoint. */
import type { DeliveryState, TerminalReason } from '../../domain/index.js';
import type { ObservabilityStore, SystemState, SystemStateQuery } from '../observability-store.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.observability` of the SQLite store. */
export class SqliteObservability implements ObservabilityStore {
  constructor(private readonly sql: SqliteContext) {}

  /** Both statements in one read transaction: the two halves describe the same moment. */
  async systemState(q: SystemStateQuery): Promise<SystemState> {
    const read = this.sql.db.transaction((): SystemState => {
      const groups = this.sql.stmt('observability_deliveries_by_state').all({ unknown_before: q.now - q.unknownAfterMs }) as Row[];
      const due = this.sql.stmt('observability_due_by_account').all({ now: q.now }) as Row[];
      return {
        deliveries: groups.map((r) => ({
          state: r.state as DeliveryState,
          terminalReason: (r.terminal_reason ?? null) as TerminalReason | null,
          count: Number(r.n),
          oldestUpdatedAt: Number(r.oldest_updated_at),
          inReview: Number(r.in_review),
        })),
        due: due.map((r) => ({ providerAccount: String(r.provider_account), count: Number(r.n), oldestDueAt: Number(r.oldest_due_at) })),
      };
    });
    return read();
  }
}
