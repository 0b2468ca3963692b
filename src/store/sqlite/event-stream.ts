/** The SQLite driver's event stream part (see src/store/event-stream-store.ts). */
import { toOutboxEvent } from '../event-stream-rows.js';
import type { EventStreamStore, OutboxEvent } from '../event-stream-store.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.eventStream` of the SQLite store. */
export class SqliteEventStream implements EventStreamStore {
  constructor(private readonly sql: SqliteContext) {}

  async readOutbox(tenantId: string, afterId: number, limit: number): Promise<OutboxEvent[]> {
    return (this.sql.stmt('outbox_stream_read').all({ tenant_id: tenantId, after_id: afterId, limit }) as Row[]).map(toOutboxEvent);
  }

  async lastOutboxId(): Promise<number> {
    return Number((this.sql.stmt('outbox_stream_last_id').get() as Row).id);
  }
}
