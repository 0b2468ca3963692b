/** Row mappers for the evidence tables, shared by both drivers. */
import {
  accountIdempotencyKey,
  type Channel,
  type DeliveryState,
  type DownstreamStatus,
  type LadderName,
  type Purpose,
  type TerminalReason,
} from '../domain/index.js';
import type { CallbackEvidence, EvidenceWrite, LookupEvidence, LookupRecord, PendingEvidence, UnknownDelivery } from './evidence-store.js';
import { accountPinned, num, numOrNull, strOrNull, type Row } from './rows.js';

/** A row of `evidence_pending` as a PendingEvidence. */
export function toPendingEvidence(r: Row): PendingEvidence {
  return {
    rowId: num(r.row_id),
    providerAccount: String(r.event_account),
    eventId: String(r.event_id),
    status: r.event_status as DownstreamStatus,
    providerMessageId: strOrNull(r.event_pmid),
    reference: strOrNull(r.reference),
    suppress: (r.suppress ?? null) as PendingEvidence['suppress'],
    receivedAt: num(r.received_at),
    delivery: {
      deliveryId: String(r.delivery_id),
      tenantId: String(r.tenant_id),
      notificationId: String(r.notification_id),
      channel: r.channel as Channel,
      destination: String(r.destination),
      state: r.state as DeliveryState,
      terminalReason: (r.terminal_reason ?? null) as TerminalReason | null,
      downstreamStatus: (r.downstream_status ?? null) as DownstreamStatus | null,
      providerMessageId: strOrNull(r.provider_message_id),
      attemptCount: num(r.attempt_count),
      leaseVersion: num(r.lease_version),
      expiresAt: num(r.expires_at),
      nextAttemptAt: numOrNull(r.next_attempt_at),
      moved: r.origin_account != null,
    },
  };
}

/** A row of `unknown_due` as an UnknownDelivery. */
export function toUnknownDelivery(r: Row): UnknownDelivery {
  return {
    deliveryId: String(r.id),
    tenantId: String(r.tenant_id),
    providerAccount: String(r.provider_account),
    channel: r.channel as Channel,
    purpose: r.purpose as Purpose,
    // The key of the unknown attempt's account (the reconciler looks it up under that key).
    idempotencyKey: accountIdempotencyKey(String(r.idempotency_key), String(r.provider_account), strOrNull(r.origin_account)),
    attemptCount: num(r.attempt_count),
    leaseVersion: num(r.lease_version),
    expiresAt: num(r.expires_at),
    unknownSince: num(r.updated_at),
    retryLadder: (r.retry_ladder ?? null) as LadderName | null,
    accountPinned: accountPinned(r),
  };
}

/** The outbox event a downstream status change writes (`delivery.status`), or null when it did not change. */
export function downstreamEvent(w: EvidenceWrite): { eventType: string; payload: string } | null {
  if (w.downstreamStatus === w.expect.downstreamStatus || w.downstreamStatus === null) return null;
  return {
    eventType: 'delivery.status',
    payload: JSON.stringify({
      delivery_id: w.deliveryId,
      downstream_status: w.downstreamStatus,
      previous_downstream_status: w.expect.downstreamStatus,
    }),
  };
}

/** Whether an evidence write changes anything on the delivery (else only its events are settled). */
export function changesDelivery(w: EvidenceWrite): boolean {
  return w.transition !== null || w.downstreamStatus !== w.expect.downstreamStatus;
}

/** A `delivery_callbacks` row. */
export function toCallbackEvidence(r: Row): CallbackEvidence {
  return {
    providerAccount: String(r.provider_account),
    eventId: String(r.event_id),
    status: r.status as DownstreamStatus,
    providerMessageId: strOrNull(r.provider_message_id),
    occurredAt: numOrNull(r.occurred_at),
    receivedAt: num(r.received_at),
    appliedAt: numOrNull(r.applied_at),
    fate: r.outcome === null || r.outcome === undefined ? 'pending' : (r.outcome as CallbackEvidence['fate']),
  };
}

/** A `delivery_lookups` row. */
export function toLookupEvidence(r: Row): LookupEvidence {
  return {
    attemptNumber: num(r.attempt_number),
    lookedAt: num(r.looked_at),
    result: r.result as LookupEvidence['result'],
    ledTo: r.led_to as LookupEvidence['ledTo'],
    providerMessageId: strOrNull(r.provider_message_id),
    errorCode: strOrNull(r.error_code),
  };
}

/** The parameters of `reconcile_lookup_insert`, in the SQLite driver's named form. */
export function lookupParams(deliveryId: string, attemptNumber: number, l: LookupRecord) {
  return {
    delivery_id: deliveryId,
    attempt_number: attemptNumber,
    looked_at: l.at,
    result: l.result,
    led_to: l.ledTo,
    provider_message_id: l.providerMessageId,
    error_code: l.errorCode,
  };
}
