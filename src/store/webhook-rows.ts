/** Maps the customer-webhook tables' rows (either driver) to the webhook part's views. */
import { numOrNull, strOrNull, type Row, str, json } from './rows.js';
import type { WebhookDisabledReason, WebhookEndpointStatus, WebhookEndpointView, WebhookMessage, WebhookTarget } from './webhook-store.js';

/** A `webhook_endpoints` row (with `pending`/`delivered` counts) as the contract's view. */
export function toWebhookEndpointView(r: Row): WebhookEndpointView {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    url: String(r.url),
    description: strOrNull(r.description),
    eventTypes: json<string[]>(r.event_types_json),
    status: r.status as WebhookEndpointStatus,
    disabledReason: (r.disabled_reason ?? null) as WebhookDisabledReason | null,
    disabledAt: numOrNull(r.disabled_at),
    previousSecretUntil: numOrNull(r.previous_secret_until),
    failureCount: Number(r.failure_count),
    failingSince: numOrNull(r.failing_since),
    nextAttemptAt: numOrNull(r.next_attempt_at),
    lastFailure:
      r.last_failure_at === null || r.last_failure_at === undefined
        ? null
        : { at: Number(r.last_failure_at), status: numOrNull(r.last_failure_status), error: strOrNull(r.last_failure_error) ?? '' },
    lastSuccessAt: numOrNull(r.last_success_at),
    pending: Number(r.pending ?? 0),
    delivered: Number(r.delivered ?? 0),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** A claimed `webhook_endpoints` row as a sender's target. */
export function toWebhookTarget(r: Row): WebhookTarget {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    url: String(r.url),
    secret: String(r.secret),
    previousSecret:
      r.previous_secret === null || r.previous_secret === undefined ? null : { secret: str(r.previous_secret), until: Number(r.previous_secret_until) },
    failureCount: Number(r.failure_count),
    failingSince: numOrNull(r.failing_since),
  };
}

/** A `webhook_messages` row as the contract's message. */
export function toWebhookMessage(r: Row): WebhookMessage {
  return {
    id: String(r.id),
    endpointId: String(r.endpoint_id),
    notificationId: String(r.notification_id),
    deliveryId: strOrNull(r.delivery_id),
    eventType: String(r.event_type),
    payload: json<Record<string, unknown>>(r.payload_json),
    eventAt: Number(r.event_at),
    attempts: Number(r.attempts),
  };
}
