/** Maps database rows (snake_case columns, times as epoch-ms numbers or numeric strings) to the Store contract's views. */
import { accountIdempotencyKey, type RolloutDecisionKind } from '../domain/index.js';
import { bindTo, type ContentCipher, openContent } from './content-cipher.js';
import type { AttemptView, ClaimedDelivery, DeliveryFacts, DeliveryView } from './core-store.js';
import type { DueFallback } from './fallback-store.js';
import type { ProviderErrorCount, RolloutDecisionCount } from './health-store.js';
import type { NotificationSource, ReplayRecord } from './review-store.js';

export type Row = Record<string, unknown>;

/** A number column (drivers return BIGINT as a numeric string). */
export const num = (v: unknown): number => Number(v);
/** A nullable number column. */
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** A text column: a string as it is, a number formatted (SQLite may hand back either); anything else is a driver bug. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  throw new TypeError(`expected a text column, got ${v === null ? 'null' : typeof v}`);
}
/** A nullable text column. */
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : str(v));
/** A JSON text column, parsed (the writer stored what the contract's type says). */
export const json = <T>(v: unknown): T => JSON.parse(str(v)) as T;
/** A nullable JSON text column. */
export const jsonOrNull = <T>(v: unknown): T | null => (v === null || v === undefined ? null : json<T>(v));
/** Whether a row's notification pinned the account of its delivery's channel (`notifications.pinned_channels`, migration 0031). */
export const accountPinned = (r: Row): boolean => jsonOrNull<string[]>(r.pinned_channels)?.includes(str(r.channel)) ?? false;

/**
 * A claimed delivery's row (the delivery's columns after its claim, with its notification's
 * content_json, retry_ladder, pinned_channels and notification_created_at) as the contract's ClaimedDelivery.
 */
export function toClaimedDelivery(r: Row, cipher: ContentCipher | null, leaseUntil: number): ClaimedDelivery {
  return {
    deliveryId: String(r.id),
    notificationId: String(r.notification_id),
    tenantId: String(r.tenant_id),
    channel: r.channel as ClaimedDelivery['channel'],
    purpose: r.purpose as ClaimedDelivery['purpose'],
    providerAccount: String(r.provider_account),
    destination: String(r.destination),
    content: openContent(cipher, r.content_json, bindTo('notifications', 'content_json', String(r.notification_id))),
    retryLadder: (r.retry_ladder ?? null) as ClaimedDelivery['retryLadder'],
    notificationCreatedAt: Number(r.notification_created_at),
    accountPinned: accountPinned(r),
    // The key of the attempt's account: the delivery key, or after a move that account's own.
    idempotencyKey: accountIdempotencyKey(String(r.idempotency_key), String(r.provider_account), strOrNull(r.origin_account)),
    expiresAt: Number(r.expires_at),
    attemptNumber: Number(r.attempt_count),
    leaseVersion: Number(r.lease_version),
    leaseUntil,
  };
}

/** A `deliveries` row as the contract's DeliveryView. */
export function toDeliveryView(r: Row): DeliveryView {
  return {
    id: String(r.id),
    notificationId: String(r.notification_id),
    tenantId: String(r.tenant_id),
    channel: r.channel as DeliveryView['channel'],
    purpose: r.purpose as DeliveryView['purpose'],
    providerAccount: String(r.provider_account),
    idempotencyKey: String(r.idempotency_key),
    state: r.state as DeliveryView['state'],
    terminalReason: (r.terminal_reason ?? null) as DeliveryView['terminalReason'],
    downstreamStatus: (r.downstream_status ?? null) as DeliveryView['downstreamStatus'],
    providerMessageId: strOrNull(r.provider_message_id),
    attemptCount: num(r.attempt_count),
    leaseVersion: num(r.lease_version),
    nextAttemptAt: numOrNull(r.next_attempt_at),
    expiresAt: num(r.expires_at),
    lastErrorCode: strOrNull(r.last_error_code),
    holdReason: (r.hold_reason ?? null) as DeliveryView['holdReason'],
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** An `attempts` row as the contract's AttemptView. */
export function toAttemptView(r: Row): AttemptView {
  return {
    number: num(r.number),
    startedAt: num(r.started_at),
    finishedAt: numOrNull(r.finished_at),
    outcome: strOrNull(r.outcome),
    providerMessageId: strOrNull(r.provider_message_id),
    errorCode: strOrNull(r.error_code),
    errorMessage: strOrNull(r.error_message),
    retryAfterMs: numOrNull(r.retry_after_ms),
    workerId: String(r.worker_id),
    lateOutcome: strOrNull(r.late_outcome),
    ambiguityPolicy: (r.ambiguity_policy ?? null) as AttemptView['ambiguityPolicy'],
    resolution: (r.resolution ?? null) as AttemptView['resolution'],
    decision: r.decision == null ? null : { kind: r.decision as RolloutDecisionKind, retryAt: numOrNull(r.decision_retry_at) },
    nextStageDecision: r.next_stage_decision == null ? null : { kind: r.next_stage_decision as RolloutDecisionKind, retryAt: numOrNull(r.next_stage_retry_at) },
    providerAccount: strOrNull(r.provider_account),
    failoverReason: (r.failover_reason ?? null) as AttemptView['failoverReason'],
  };
}

/** The columns a sweeper needs to ask `decide`. */
export function toDeliveryFacts(r: Row): DeliveryFacts {
  return {
    deliveryId: String(r.id),
    state: r.state as DeliveryFacts['state'],
    attemptCount: num(r.attempt_count),
    leaseVersion: num(r.lease_version),
    expiresAt: num(r.expires_at),
    nextAttemptAt: numOrNull(r.next_attempt_at),
  };
}

/** A `replays` row (SQLite stores the boolean as 0/1). */
export function toReplayRecord(r: Row): ReplayRecord {
  return {
    deliveryId: String(r.delivery_id),
    tenantId: String(r.tenant_id),
    requestedBy: String(r.requested_by),
    fromState: r.from_state as ReplayRecord['fromState'],
    fromReason: strOrNull(r.from_reason),
    acceptDuplicateRisk: r.accept_duplicate_risk === true || Number(r.accept_duplicate_risk) === 1,
    note: strOrNull(r.note),
    createdAt: num(r.created_at),
  };
}

/** A `notifications` row with its stored request (JSON columns parsed). */
export function toNotificationSource(r: Row): NotificationSource {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    recipient: json(r.recipient_json),
    purpose: r.purpose as NotificationSource['purpose'],
    channels: json(r.channels_json),
    content: json(r.content_json),
    groupKey: String(r.group_key),
    generation: num(r.generation),
    metadata: jsonOrNull(r.metadata_json),
    expiresAt: num(r.expires_at),
    createdAt: num(r.created_at),
  };
}

/** A `fallbacks_due` row (pending fallback joined with its notification and previous delivery). */
export function toDueFallback(r: Row): DueFallback {
  return {
    notificationId: String(r.notification_id),
    position: Number(r.position),
    tenantId: String(r.tenant_id),
    channel: r.channel as DueFallback['channel'],
    providerAccount: String(r.provider_account),
    dueAt: Number(r.due_at),
    expiresAt: Number(r.expires_at),
    evidence: r.fallback_evidence as DueFallback['evidence'],
    afterMs: Number(r.fallback_after_ms),
    previous: {
      state: r.previous_state as DueFallback['previous']['state'],
      downstreamStatus: (r.previous_downstream ?? null) as DueFallback['previous']['downstreamStatus'],
    },
  };
}

/** A `rollout_decisions_since` row. */
export function toRolloutDecisionCount(r: Row): RolloutDecisionCount {
  return {
    decision: r.decision as RolloutDecisionKind,
    nextStageDecision: r.next_stage_decision as RolloutDecisionKind,
    attempts: num(r.attempts),
  };
}

/** A `provider_errors_recent` row. */
export function toProviderErrorCount(r: Row): ProviderErrorCount {
  return {
    providerAccount: String(r.provider_account),
    kind: r.kind === 'terminal' ? 'terminal' : 'attempt',
    errorClass: String(r.error_class),
    last15m: Number(r.last_15m),
    last1h: Number(r.last_1h),
    last24h: Number(r.last_24h),
  };
}
