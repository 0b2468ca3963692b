/**
 * The event types a customer endpoint can subscribe to: the outbox's `event_type` values.
 * Every applied delivery transition writes `delivery.<state>`, intake writes
 * `notification.created`, provider evidence writes `delivery.status` (downstream status), an
 * incoming SMS writes `message.received` (docs/inbound.md).
 */
import { DELIVERY_STATES } from '../domain/index.js';

/** Every event type Herald publishes, and `*` (all of them, including types added later). */
export const WEBHOOK_EVENT_TYPES = [
  '*',
  'notification.created',
  'delivery.status',
  'message.received',
  ...DELIVERY_STATES.map((s) => `delivery.${s}`),
] as const;

/** The JSON body of one webhook request (Standard Webhooks' `type` / `timestamp` / `data` shape). */
export function webhookBody(m: {
  eventType: string;
  eventAt: number;
  notificationId: string;
  deliveryId: string | null;
  payload: Record<string, unknown>;
}): string {
  return JSON.stringify({
    type: m.eventType,
    timestamp: new Date(m.eventAt).toISOString(),
    data: { notification_id: m.notificationId, ...(m.deliveryId !== null ? { delivery_id: m.deliveryId } : {}), ...m.payload },
  });
}
