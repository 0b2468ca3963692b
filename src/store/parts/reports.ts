/** `store.reports`, written once for both drivers (see ../report-store.ts). */
import type { NewReport, ReportRecord, ReportStore } from '../report-store.js';
import { toReportRecord } from '../report-rows.js';
import type { Executor } from '../sql-executor.js';

/** What people reported about a notification (a duplicate, one not received). */
export class ReportsPart implements ReportStore {
  constructor(private readonly x: Executor) {}

  async addReport(r: NewReport): Promise<boolean> {
    const params = {
      id: r.id,
      tenant_id: r.tenantId,
      notification_id: r.notificationId,
      kind: r.kind,
      channel: r.channel,
      note: r.note,
      reported_by: r.reportedBy,
      now: r.now,
    };
    return (await this.x.count('notification_reports_insert', params)) === 1;
  }

  async listReports(tenantId: string, notificationId: string): Promise<ReportRecord[]> {
    return (await this.x.all('notification_reports_list', { tenant_id: tenantId, notification_id: notificationId })).map(toReportRecord);
  }
}
