/** The API's JSON shapes: snake_case, ISO 8601 times. One function per resource. */
import { isErasedContent } from '../store/retention-store.js';
import { contentForChannel, smsSegments, smsText, type MessageContent, type RolloutDecision } from '../domain/index.js';
import type { AttemptView, DeliveryListItem, DeliveryView, NotificationView } from '../store/store.js';
import type { DeliveryEvidence } from '../store/evidence-store.js';
import { deliveredAccounts } from '../delivery/duplicates-across-accounts.js';
import { showDestination, type DestinationView } from './masking.js';

/** The segments of the text an SMS delivery sends (its one-time code marked up, if asked): encoding, count and units. */
function smsSegmentsJson(content: MessageContent) {
  const s = smsSegments(smsText(contentForChannel(content, 'sms')));
  return { encoding: s.encoding, segments: s.segments, units: s.units };
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** A rollout decision: its word and, for `retry_at`, when the next call is (or would be) allowed. */
function decisionJson(d: RolloutDecision | null) {
  return d === null ? null : { kind: d.kind, retry_at: iso(d.retryAt) };
}

/** An attempt as the API shows it. */
export function attemptJson(a: AttemptView) {
  return {
    number: a.number,
    started_at: iso(a.startedAt),
    finished_at: iso(a.finishedAt),
    outcome: a.outcome,
    provider_message_id: a.providerMessageId,
    error: a.errorCode === null ? null : { code: a.errorCode, message: a.errorMessage },
    retry_after_ms: a.retryAfterMs,
    late_outcome: a.lateOutcome,
    // Set when the attempt ended unknown: the account's ambiguity policy and how the ambiguity ended.
    ambiguity_policy: a.ambiguityPolicy,
    resolution: a.resolution,
    // The rollout (docs/operations.md#staged-rollout): what Herald decided at the account's stage, and what the next stage would.
    decision: decisionJson(a.decision),
    next_stage_decision: decisionJson(a.nextStageDecision),
    // Failover (docs/routing.md): the account this attempt used, and why the delivery moved on after it.
    provider_account: a.providerAccount,
    failover_reason: a.failoverReason,
    worker_id: a.workerId,
  };
}

/** A delivery as the API shows it. */
export function deliveryJson(d: DeliveryView) {
  return {
    id: d.id,
    notification_id: d.notificationId,
    channel: d.channel,
    purpose: d.purpose,
    state: d.state,
    terminal_reason: d.terminalReason,
    downstream_status: d.downstreamStatus,
    provider_account: d.providerAccount,
    provider_message_id: d.providerMessageId,
    idempotency_key: d.idempotencyKey,
    attempt_count: d.attemptCount,
    next_attempt_at: iso(d.nextAttemptAt),
    expires_at: iso(d.expiresAt),
    last_error_code: d.lastErrorCode,
    hold_reason: d.holdReason,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

/**
 * A row of the delivery list: the delivery, its notification's recipient and operation (group
 * key), campaign, phone, destination (masked for sessions below admin) and when it last changed.
 */
export function deliveryListItemJson(d: DeliveryListItem, view: DestinationView) {
  return {
    ...deliveryJson(d),
    recipient_id: d.recipientId,
    operation_id: d.operationId,
    campaign_id: d.campaignId,
    device_id: d.deviceId,
    // Push targets are never shown, as at /v1/recipients/:id/push-subscriptions.
    destination: d.channel === 'push' ? null : showDestination(d.channel, d.destination, view),
    // Every transition, evidence merge and reconciliation writes updated_at.
    last_event_at: iso(d.updatedAt),
  };
}

/** The template a notification was rendered from at intake (id, version, locale, inputs hash), or null. */
export function templateJson(content: MessageContent | null | undefined) {
  const t = content?.template;
  return t ? { id: t.id, version: t.version, locale: t.locale, inputs_hash: t.inputs_hash } : null;
}

/** A notification with its deliveries and their attempt timelines. */
export function notificationJson(n: NotificationView) {
  return {
    id: n.id,
    purpose: n.purpose,
    recipient_id: n.recipientId,
    channels: n.channels,
    group: { key: n.groupKey, generation: n.generation },
    metadata: n.metadata,
    expires_at: iso(n.expiresAt),
    created_at: iso(n.createdAt),
    template: templateJson(n.content),
    deliveries: n.deliveries.map((d) => ({
      ...deliveryJson(d),
      // What an SMS costs and how fast it can go: providers bill and throttle per segment.
      // Erased content (docs/retention.md) has no text left to count segments of.
      ...(d.channel === 'sms' && !isErasedContent(n.content) ? { sms: smsSegmentsJson(n.content) } : {}),
      attempts: d.attempts.map(attemptJson),
    })),
  };
}

/**
 * A delivery's evidence as one timeline ordered by time (`at`): provider callbacks (`at` is when
 * Herald received one; `occurred_at` the provider's own time, when it gives one) and the
 * reconciler's look-ups. A callback's `effect` says what it did: `applied` moved the delivery's
 * state or downstream status, `no_change` was late or repeated (the lattice never moves back),
 * `pending` is parked until its delivery is settled. None of these fields is a destination or
 * the provider's free text (neither is stored), so every role sees the same evidence.
 */
/** The accounts that reported the delivery delivered when two or more did (a duplicate across accounts, docs/routing.md), else null. */
export function duplicateAcrossAccountsJson(e: DeliveryEvidence): { accounts: string[] } | null {
  const accounts = deliveredAccounts(e.callbacks);
  return accounts.length >= 2 ? { accounts } : null;
}

export function evidenceJson(e: DeliveryEvidence) {
  const callbacks = e.callbacks.map((c) => ({
    kind: 'callback' as const,
    at: iso(c.receivedAt)!,
    provider_account: c.providerAccount,
    event_id: c.eventId,
    status: c.status,
    provider_message_id: c.providerMessageId,
    occurred_at: iso(c.occurredAt),
    received_at: iso(c.receivedAt)!,
    applied_at: iso(c.appliedAt),
    effect: c.fate,
  }));
  const lookups = e.lookups.map((l) => ({
    kind: 'lookup' as const,
    at: iso(l.lookedAt)!,
    attempt: l.attemptNumber,
    result: l.result,
    led_to: l.ledTo,
    provider_message_id: l.providerMessageId,
    error_code: l.errorCode,
  }));
  // ISO 8601 UTC strings of one format sort as their times do; a stable sort keeps each list's own order on a tie.
  return [...callbacks, ...lookups].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
