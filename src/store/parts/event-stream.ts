/** `store.eventStream`, written once for both drivers (see ../event-stream-store.ts). */
import { toOutboxEvent } from '../event-stream-rows.js';
import type { EventStreamStore, OutboxEvent } from '../event-stream-store.js';
import type { Executor } from '../sql-executor.js';

/** A tenant's outbox events, for GET /v1/events/stream. */
export class EventStreamPart implements EventStreamStore {
  constructor(private readonly x: Executor) {}

  async readOutbox(tenantId: string, afterId: number, limit: number): Promise<OutboxEvent[]> {
    return (await this.x.all('outbox_stream_read', { tenant_id: tenantId, after_id: afterId, limit: Math.max(0, limit) })).map(toOutboxEvent);
  }

  async lastOutboxId(): Promise<number> {
    return Number((await this.x.one('outbox_stream_last_id'))!.id);
  }
}
