/** Row mapping shared by both drivers' alert parts. */
import type { AlertState, AlertStatus, AnnouncementKind } from '../domain/index.js';
import type { AlertHistoryKind, AlertOutcome, AlertSentRecord, AlertTargetKind } from './alert-store.js';
import { num, numOrNull, str, strOrNull, type Row } from './rows.js';

/** An `alert_states` row as the domain's state. */
export function toAlertState(r: Row): AlertState {
  return {
    rule: str(r.rule),
    subject: str(r.subject),
    status: str(r.status) as AlertStatus,
    since: num(r.since),
    clearSince: numOrNull(r.clear_since),
    line: str(r.line),
    value: num(r.value),
    announced: strOrNull(r.announced) as AnnouncementKind | null,
    announcedAt: numOrNull(r.announced_at),
    memory: strOrNull(r.memory),
    version: num(r.version),
  };
}

/** An `alert_history` row as the contract's record. */
export function toAlertSent(r: Row): AlertSentRecord {
  return {
    id: num(r.id),
    sentAt: num(r.sent_at),
    rule: strOrNull(r.rule),
    subject: strOrNull(r.subject),
    kind: str(r.kind) as AlertHistoryKind,
    targetKind: str(r.target_kind) as AlertTargetKind,
    target: str(r.target),
    providerAccount: strOrNull(r.provider_account),
    outcome: str(r.outcome) as AlertOutcome,
    errorClass: strOrNull(r.error_class),
  };
}
