/**
 * The customer-webhook part of the Store contract (`store.webhooks`): endpoints a tenant registers, the relay
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

export const WEBHOOK_ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export type WebhookEndpointStatus = (typeof WEBHOOK_ENDPOINT_STATUSES)[number];
/** `gone`: the endpoint answered 410. `failing`: it kept failing for longer than the sender allows. */
export const WEBHOOK_DISABLED_REASONS = ['gone', 'failing'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

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

/** The last failed request to an endpoint. */
export interface WebhookFailure {
  at: number;
  status: number | null;
  error: string;
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
  lastFailure: WebhookFailure | null;
  lastSuccessAt: number | null;
  /** Messages not yet delivered, and delivered messages still kept. */
  pending: number;
  delivered: number;
  createdAt: number;
  updatedAt: number;
}

/** The secret a rotation replaced, still signing until `until`. */
export interface PreviousSecret {
  secret: string;
  until: number;
}

/** An endpoint a sender holds a lease on, with what it needs to sign and pace requests. */
export interface WebhookTarget {
  id: string;
  tenantId: string;
  url: string;
  secret: string;
  previousSecret: PreviousSecret | null;
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

/** One of a tenant's endpoints. */
export interface WebhookEndpointRef {
  tenantId: string;
  id: string;
}

/** Makes `secret` current; the old one keeps signing until `previousUntil`. */
export interface WebhookSecretRotation extends WebhookEndpointRef {
  secret: string;
  previousUntil: number;
  now: number;
}

/** Re-activates an endpoint at `now`. */
export interface WebhookEndpointEnabling extends WebhookEndpointRef {
  now: number;
}

export interface OutboxRelayRequest {
  now: number;
  limit: number;
}

/** Outbox rows published, and the endpoint messages they became. */
export interface OutboxRelayed {
  published: number;
  messages: number;
}

export interface WebhookHistoryPruning {
  outboxBefore: number;
  messagesBefore: number;
  limit: number;
}

export interface PrunedWebhookHistory {
  outbox: number;
  messages: number;
}

/** A sender asking to lease up to `limit` endpoints for `leaseMs`. */
export interface WebhookEndpointClaim {
  now: number;
  owner: string;
  leaseMs: number;
  limit: number;
}

export interface WebhookHeadsQuery {
  endpointId: string;
  now: number;
  limit: number;
}

/** The lease a sender holds on an endpoint. */
export interface WebhookEndpointLease {
  endpointId: string;
  owner: string;
}

/** One round of requests to an endpoint, recorded while `owner` holds its lease (extended to `leaseUntil`). */
export interface WebhookAttemptRound extends WebhookEndpointLease {
  now: number;
  leaseUntil: number;
  attempts: WebhookAttemptRecord[];
  endpoint: WebhookEndpointOutcome;
}

/** `store.webhooks`; implemented by sqlite/webhooks.ts and postgres/webhooks.ts. */
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
  rotateWebhookSecret(r: WebhookSecretRotation): Promise<boolean>;
  /**
   * Re-activates an endpoint: failures and backoff cleared, its undelivered messages due at
   * `now`. Events published while it was disabled were not queued for it. False when not found.
   */
  enableWebhookEndpoint(r: WebhookEndpointEnabling): Promise<boolean>;

  /**
   * Publishes up to `limit` unpublished outbox rows, lowest id first, in one transaction: one
   * message per active endpoint of the row's tenant subscribed to its event type, and the rows
   * marked published. Reads by `published_at IS NULL`, never "after the last id seen", so a row
   * that commits after rows with higher ids is published by a later call, not skipped.
   */
  relayOutbox(r: OutboxRelayRequest): Promise<OutboxRelayed>;
  /** Deletes outbox rows published before `outboxBefore` and messages delivered before `messagesBefore`, at most `limit` of each. */
  pruneWebhookHistory(r: WebhookHistoryPruning): Promise<PrunedWebhookHistory>;

  /**
   * Leases up to `limit` active endpoints that are out of backoff, not leased by anyone (or
   * whose lease ran out), and have an undelivered message due at `now`. One sender at a time
   * serves an endpoint, so the per-endpoint order and concurrency cap hold across processes.
   */
  claimWebhookEndpoints(r: WebhookEndpointClaim): Promise<WebhookTarget[]>;
  /**
   * The endpoint's sendable messages, lowest `seq` first: undelivered, due at `now`, and the
   * first undelivered message of their notification (a later event waits for every earlier one).
   */
  listWebhookHeads(r: WebhookHeadsQuery): Promise<WebhookMessage[]>;
  /**
   * Records one round of requests in one transaction: each message delivered or rescheduled,
   * the endpoint healthy, backing off, or disabled, and the lease extended to `leaseUntil`
   * while `owner` still holds it.
   */
  recordWebhookAttempts(r: WebhookAttemptRound): Promise<void>;
  /** Gives the endpoint's lease back if `owner` still holds it. */
  releaseWebhookEndpoint(r: WebhookEndpointLease): Promise<void>;
}
