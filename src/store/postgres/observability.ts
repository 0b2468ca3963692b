/** The PostgreSQL driver's observability part (see src/store/observability-store.ts): aggregate reads for the metrics endpoint. */
import type { DeliveryState, TerminalReason } from '../../domain/index.js';
import type { ObservabilityStore, SystemState, SystemStateQuery } from '../observability-store.js';
import type { PostgresContext } from './sql-context.js';

/** `store.observability` of the PostgreSQL store. */
export class PostgresObservability implements ObservabilityStore {
  constructor(private readonly sql: PostgresContext) {}

  /**
   * The two statements run side by side on the pool, not in one snapshot: a delivery that moves
   * between them may show in one and not the other for one scrape. Gauges tolerate that; a
   * REPEATABLE READ transaction would hold a connection for no gain.
   */
  async systemState(q: SystemStateQuery): Promise<SystemState> {
    const [groups, due] = await Promise.all([
      this.sql.q('observability_deliveries_by_state', [q.now - q.unknownAfterMs]),
      this.sql.q('observability_due_by_account', [q.now]),
    ]);
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
  }
}
