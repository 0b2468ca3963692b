/** The PostgreSQL driver's event stream part (see src/store/event-stream-store.ts). */
import { toOutboxEvent } from '../event-stream-rows.js';
import type { EventStreamStore, OutboxEvent } from '../event-stream-store.js';
import type { PostgresContext } from './sql-context.js';

/** `store.eventStream` of the PostgreSQL store. */
export class PostgresEventStream implements EventStreamStore {
  constructor(private readonly sql: PostgresContext) {}

  async readOutbox(tenantId: string, afterId: number, limit: number): Promise<OutboxEvent[]> {
    return (await this.sql.q('outbox_stream_read', [tenantId, afterId, limit])).map(toOutboxEvent);
  }

  async lastOutboxId(): Promise<number> {
    const [r] = await this.sql.q('outbox_stream_last_id');
    return Number(r!.id);
  }
}
