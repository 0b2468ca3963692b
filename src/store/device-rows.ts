/** Maps `devices`, `device_offers` and `device_sweeps` rows to the device part's records (shared by both drivers). */
import {
  foldPhoneState,
  type DeliveryState,
  type DownstreamStatus,
  type LadderName,
  type OfferState,
  type PhoneState,
  type Purpose,
  type TerminalReason,
} from '../domain/index.js';
import type {
  DeviceMessageView,
  DeviceRecord,
  OfferPull,
  OfferRecord,
  PhoneReport,
  PulledMessage,
  SimCard,
  SweepCause,
  SweepRecord,
  UnappliedReport,
} from './device-store.js';
import { num, numOrNull, strOrNull, type Row } from './rows.js';

/** SQLite answers 0/1, PostgreSQL true/false. */
export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't';

export function toDeviceRecord(r: Row): DeviceRecord {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    providerAccount: String(r.provider_account),
    login: String(r.login),
    name: String(r.name),
    simCards: typeof r.sim_cards_json === 'string' ? (JSON.parse(r.sim_cards_json) as SimCard[]) : null,
    appVersion: strOrNull(r.app_version),
    createdAt: num(r.created_at),
    lastSeenAt: num(r.last_seen_at),
    returnedAt: numOrNull(r.returned_at),
    awaySince: numOrNull(r.away_since),
  };
}

export function toOfferRecord(r: Row): OfferRecord {
  return {
    id: num(r.id),
    messageId: String(r.message_id),
    deliveryId: String(r.delivery_id),
    seq: num(r.seq),
    attemptNumber: num(r.attempt_number),
    deviceId: String(r.device_id),
    providerAccount: String(r.provider_account),
    state: r.state as OfferState,
    simNumber: numOrNull(r.sim_number),
    priority: num(r.priority),
    validUntil: num(r.valid_until),
    offeredAt: num(r.offered_at),
    pulledAt: numOrNull(r.pulled_at),
    lastPulledAt: numOrNull(r.last_pulled_at),
    pullCount: num(r.pull_count),
    reofferedAt: numOrNull(r.reoffered_at),
    reofferCount: num(r.reoffer_count),
    phoneState: (r.phone_state ?? null) as PhoneState | null,
    phoneError: strOrNull(r.phone_error),
    sent: bool(r.sent),
    reportedAt: numOrNull(r.reported_at),
  };
}

export function toDeviceMessageView(r: Row): DeviceMessageView {
  return {
    ...toOfferRecord(r),
    deliveryState: r.delivery_state as DeliveryState,
    terminalReason: (r.terminal_reason ?? null) as TerminalReason | null,
    downstreamStatus: (r.downstream_status ?? null) as DownstreamStatus | null,
    purpose: r.purpose as Purpose,
    expiresAt: num(r.expires_at),
    current: bool(r.is_current),
  };
}

export function toUnappliedReport(r: Row): UnappliedReport {
  return {
    offerId: num(r.offer_id),
    messageId: String(r.message_id),
    reportSeq: num(r.report_seq),
    phoneState: r.phone_state as PhoneState,
    sent: bool(r.sent),
    phoneError: strOrNull(r.phone_error),
    providerAccount: String(r.provider_account),
    current: bool(r.is_current),
    attemptNumber: num(r.attempt_number),
    delivery: {
      deliveryId: String(r.delivery_id),
      state: r.state as DeliveryState,
      terminalReason: (r.terminal_reason ?? null) as TerminalReason | null,
      downstreamStatus: (r.downstream_status ?? null) as DownstreamStatus | null,
      attemptCount: num(r.attempt_count),
      leaseVersion: num(r.lease_version),
      expiresAt: num(r.expires_at),
      nextAttemptAt: numOrNull(r.next_attempt_at),
      purpose: r.purpose as Purpose,
      retryLadder: (r.retry_ladder ?? null) as LadderName | null,
    },
  };
}

export function toSweepRecord(r: Row): SweepRecord {
  return {
    id: num(r.id),
    deviceId: String(r.device_id),
    tenantId: String(r.tenant_id),
    providerAccount: String(r.provider_account),
    cause: r.cause as SweepCause,
    awaySince: numOrNull(r.away_since),
    returnedAt: numOrNull(r.returned_at),
    sweptAt: num(r.swept_at),
    retried: num(r.retried),
    reoffered: num(r.reoffered),
    skippedExpired: num(r.skipped_expired),
  };
}

/** The outbox event of a downstream change a report made, or null when the status did not change. */
export function reportDownstreamEvent(
  deliveryId: string,
  from: DownstreamStatus | null,
  to: DownstreamStatus | null,
): { eventType: string; payload: string } | null {
  if (to === null || to === from) return null;
  return {
    eventType: 'delivery.status',
    payload: JSON.stringify({ delivery_id: deliveryId, downstream_status: to, previous_downstream_status: from }),
  };
}

/** The SMS text of a stored notification's content (a rendered template's SMS part over the top-level text). */
export function contentText(contentJson: unknown): string {
  const c = JSON.parse(String(contentJson)) as { text?: unknown; channels?: { sms?: { text?: unknown } } | null };
  const sms = c.channels?.sms?.text;
  if (typeof sms === 'string') return sms;
  return typeof c.text === 'string' ? c.text : '';
}

/** The offer's phone state after a report (folded forward), or null when the report tells Herald nothing new. */
export function foldReport(cur: Row, rep: PhoneReport): { state: PhoneState; sent: boolean } | null {
  const before = (cur.phone_state ?? null) as PhoneState | null;
  const state = foldPhoneState(before, rep.state);
  const sent = bool(cur.sent) || rep.sent || state === 'Sent' || state === 'Delivered';
  const changed = cur.state !== 'reported' || state !== before || sent !== bool(cur.sent) || (rep.error !== null && rep.error !== cur.phone_error);
  return changed ? { state, sent } : null;
}

/**
 * Pulled rows in the app's order (a statement's RETURNING has none): `lifo` newest first,
 * `fifo` highest priority first, then oldest first (the reference server's orders).
 */
export function sortPulled(rows: Row[], order: OfferPull['order']): PulledMessage[] {
  const sorted = [...rows].sort((a, b) => (order === 'lifo' ? num(b.id) - num(a.id) : num(b.priority) - num(a.priority) || num(a.id) - num(b.id)));
  return sorted.map((r) => ({
    messageId: String(r.message_id),
    phoneNumber: String(r.destination),
    text: contentText(r.content_json),
    simNumber: numOrNull(r.sim_number),
    // SQLite's json_extract gives 0 for false, PostgreSQL's ->> the text 'false'.
    withDeliveryReport: !(r.delivery_report === 0 || r.delivery_report === 'false' || r.delivery_report === false),
    priority: num(r.priority),
    validUntil: num(r.valid_until),
    offeredAt: num(r.offered_at),
  }));
}
