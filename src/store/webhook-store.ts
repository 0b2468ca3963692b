/**
 * The customer-webhook part of the Store contract: endpoints a tenant registers, the relay
 * that fans outbox rows out into one message per subscribed endpoint, and what the sender
 * needs to deliver those messages in order per notification. Both drivers implement it and
 * pass test/store/webhooks-conformance.ts.
 *
 * Ordering: messages of one endpoint are ordered by `seq`, assigned by the relay in the order
 * it publishes outbox rows. Relays run one at a time (an advisory lock on Postgres; SQLite has
 * one writer), so `seq` order is the order in which outbox rows became visible, by id within a
 * batch: an event that causally follows another (a later transition of the same delivery) is
 * always behind it.
 */
import { numOrNull, strOrNull, type Row } from './rows.js';

export type WebhookEndpointStatus = 'active' | 'disabled';
/** `gone`: the endpoint answered 410. `failing`: it kept failing for longer than the sender allows. */
export type WebhookDisabledReason = 'gone' | 'failing';

export interface NewWebhookEndpoint {
  id: string;
  tenantId: string;
  url: string;
  description: string | null;
  /** Event type names, or `*` for every type. */
  eventTypes: string[];
  secret: string;
  now: number;
}

export interface WebhookEndpointView {
  id: string;
  tenantId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  status: WebhookEndpointStatus;
  disabledReason: WebhookDisabledReason | null;
  disabledAt: number | null;
  /** Until when the previous secret still signs beside the current one (a rotation in progress), or null. */
  previousSecretUntil: number | null;
  /** Consecutive failed requests; 0 when the last request succeeded. */
  failureCount: number;
  failingSince: number | null;
  /** The endpoint as a whole is not tried before this (its backoff), or null. */
  nextAttemptAt: number | null;
  lastFailure: { at: number; status: number | null; error: string } | null;
  lastSuccessAt: number | null;
  /** Messages not yet delivered, and delivered messages still kept. */
  pending: number;
  delivered: number;
  createdAt: number;
  updatedAt: number;
}

/** An endpoint a sender holds a lease on, with what it needs to sign and pace requests. */
export interface WebhookTarget {
  id: string;
  tenantId: string;
  url: string;
  secret: string;
  previousSecret: { secret: string; until: number } | null;
  failureCount: number;
  failingSince: number | null;
}

/** One event for one endpoint. `id` is the `webhook-id`, the same on every retry. */
export interface WebhookMessage {
  id: string;
  endpointId: string;
  notificationId: string;
  deliveryId: string | null;
  eventType: string;
  payload: Record<string, unknown>;
  /** When the outbox row was written (the event's time). */
  eventAt: number;
  attempts: number;
}

/** The result of one request for one message. */
export interface WebhookAttemptRecord {
  messageId: string;
  delivered: boolean;
  status: number | null;
  error: string | null;
  /** When a failed message may be tried again; ignored for a delivered one. */
  nextAttemptAt: number | null;
}

/** What a round of requests says about the endpoint as a whole. */
export type WebhookEndpointOutcome =
  | { kind: 'healthy' }
  | { kind: 'failing'; nextAttemptAt: number; status: number | null; error: string }
  | { kind: 'disabled'; reason: WebhookDisabledReason; status: number | null; error: string };

export interface WebhookStore {
  /** Registers an endpoint, active, with its signing secret. */
  createWebhookEndpoint(e: NewWebhookEndpoint): Promise<void>;
  /** The tenant's endpoints, oldest first, with message counts (never the secrets). */
  listWebhookEndpoints(tenantId: string): Promise<WebhookEndpointView[]>;
  /** One of the tenant's endpoints, or null (unknown id or another tenant's). */
  getWebhookEndpoint(tenantId: string, id: string): Promise<WebhookEndpointView | null>;
  /** Deletes an endpoint and its messages; false when the tenant has no such endpoint. */
  deleteWebhookEndpoint(tenantId: string, id: string): Promise<boolean>;
  /** Makes `secret` current; the old current secret keeps signing until `previousUntil`. False when not found. */
  rotateWebhookSecret(r: { tenantId: string; id: string; secret: string; previousUntil: number; now: number }): Promise<boolean>;
  /**
   * Re-activates an endpoint: failures and backoff cleared, its undelivered messages due at
   * `now`. Events published while it was disabled were not queued for it. False when not found.
   */
  enableWebhookEndpoint(r: { tenantId: string; id: string; now: number }): Promise<boolean>;

  /**
   * Publishes up to `limit` unpublished outbox rows, lowest id first, in one transaction: one
   * message per active endpoint of the row's tenant subscribed to its event type, and the rows
   * marked published. Reads by `published_at IS NULL`, never "after the last id seen", so a row
   * that commits after rows with higher ids is published by a later call, not skipped.
   */
  relayOutbox(r: { now: number; limit: number }): Promise<{ published: number; messages: number }>;
  /** Deletes outbox rows published before `outboxBefore` and messages delivered before `messagesBefore`, at most `limit` of each. */
  pruneWebhookHistory(r: { outboxBefore: number; messagesBefore: number; limit: number }): Promise<{ outbox: number; messages: number }>;

  /**
   * Leases up to `limit` active endpoints that are out of backoff, not leased by anyone (or
   * whose lease ran out), and have an undelivered message due at `now`. One sender at a time
   * serves an endpoint, so the per-endpoint order and concurrency cap hold across processes.
   */
  claimWebhookEndpoints(r: { now: number; owner: string; leaseMs: number; limit: number }): Promise<WebhookTarget[]>;
  /**
   * The endpoint's sendable messages, lowest `seq` first: undelivered, due at `now`, and the
   * first undelivered message of their notification (a later event waits for every earlier one).
   */
  listWebhookHeads(r: { endpointId: string; now: number; limit: number }): Promise<WebhookMessage[]>;
  /**
   * Records one round of requests in one transaction: each message delivered or rescheduled,
   * the endpoint healthy, backing off, or disabled, and the lease extended to `leaseUntil`
   * while `owner` still holds it.
   */
  recordWebhookAttempts(r: {
    endpointId: string;
    owner: string;
    now: number;
    leaseUntil: number;
    attempts: WebhookAttemptRecord[];
    endpoint: WebhookEndpointOutcome;
  }): Promise<void>;
  /** Gives the endpoint's lease back if `owner` still holds it. */
  releaseWebhookEndpoint(r: { endpointId: string; owner: string }): Promise<void>;
}


/** A `webhook_endpoints` row (with `pending`/`delivered` counts) as the contract's view. */
export function toWebhookEndpointView(r: Row): WebhookEndpointView {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    url: String(r.url),
    description: strOrNull(r.description),
    eventTypes: JSON.parse(String(r.event_types_json)) as string[],
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
        : { at: Number(r.last_failure_at), status: numOrNull(r.last_failure_status), error: String(r.last_failure_error ?? '') },
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
      r.previous_secret === null || r.previous_secret === undefined
        ? null
        : { secret: String(r.previous_secret), until: Number(r.previous_secret_until) },
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
    deliveryId: r.delivery_id === null || r.delivery_id === undefined ? null : String(r.delivery_id),
    eventType: String(r.event_type),
    payload: JSON.parse(String(r.payload_json)) as Record<string, unknown>,
    eventAt: Number(r.event_at),
    attempts: Number(r.attempts),
  };
}
