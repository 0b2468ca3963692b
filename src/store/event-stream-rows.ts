/** Maps outbox rows to the event stream part's records (event-stream-store.ts). */
import type { OutboxEvent } from './event-stream-store.js';
import { json, num, str, strOrNull, type Row } from './rows.js';

/** An `outbox` row as the contract's event. */
export function toOutboxEvent(r: Row): OutboxEvent {
  return {
    id: num(r.id),
    type: str(r.event_type),
    notificationId: str(r.notification_id),
    deliveryId: strOrNull(r.delivery_id),
    payload: json<Record<string, unknown>>(r.payload_json),
    createdAt: num(r.created_at),
  };
}
