/** The SQLite driver's report part (see src/store/report-store.ts). */
import type { NewReport, ReportRecord, ReportStore } from '../report-store.js';
import { toReportRecord } from '../report-rows.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.reports` of the SQLite store. */
export class SqliteReports implements ReportStore {
  constructor(private readonly sql: SqliteContext) {}

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
    return this.sql.stmt('notification_reports_insert').run(params).changes === 1;
  }

  async listReports(tenantId: string, notificationId: string): Promise<ReportRecord[]> {
    return (this.sql.stmt('notification_reports_list').all({ tenant_id: tenantId, notification_id: notificationId }) as Row[]).map(toReportRecord);
  }
}
