/** Row mapping shared by both drivers' report parts. */
import type { Channel } from '../domain/index.js';
import type { ReportKind, ReportRecord } from './report-store.js';
import { str, strOrNull, type Row } from './rows.js';

/** A `notification_reports` row as the contract's record. */
export function toReportRecord(r: Row): ReportRecord {
  return {
    id: str(r.id),
    notificationId: str(r.notification_id),
    kind: r.kind as ReportKind,
    channel: strOrNull(r.channel) as Channel | null,
    note: strOrNull(r.note),
    reportedBy: str(r.reported_by),
    createdAt: Number(r.created_at),
  };
}
