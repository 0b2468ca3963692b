/**
 * What GET /v1/events/stream reads (`store.eventStream`): a tenant's outbox rows after an id, in
 * id order, the same events the webhook relay publishes. Read-only; rows are pruned after the
 * relay publishes them (webhooks.retention), so a stream resumes within that retention.
 * Both drivers implement it; test/http/event-stream.test.ts reads it through the route on each.
 */

export interface OutboxEvent {
  /** The outbox id: the SSE `id:`, increasing. */
  id: number;
  type: string;
  notificationId: string;
  deliveryId: string | null;
  /** The event's JSON payload as the webhook relay sends it. */
  payload: Record<string, unknown>;
  createdAt: number;
}

/** `store.eventStream`; implemented by sqlite/event-stream.ts and postgres/event-stream.ts. */
export interface EventStreamStore {
  /** Up to `limit` of the tenant's outbox events with id > `afterId`, lowest id first. */
  readOutbox(tenantId: string, afterId: number, limit: number): Promise<OutboxEvent[]>;
  /** The highest outbox id of any tenant now (0 when empty): where a stream without Last-Event-ID starts. */
  lastOutboxId(): Promise<number>;
}
