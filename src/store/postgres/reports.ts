/** The PostgreSQL driver's report part (see src/store/report-store.ts). */
import type { NewReport, ReportRecord, ReportStore } from '../report-store.js';
import { toReportRecord } from '../report-rows.js';
import type { PostgresContext } from './sql-context.js';

/** `store.reports` of the PostgreSQL store. */
export class PostgresReports implements ReportStore {
  constructor(private readonly sql: PostgresContext) {}

  async addReport(r: NewReport): Promise<boolean> {
    return (await this.sql.count('notification_reports_insert', [r.id, r.tenantId, r.notificationId, r.kind, r.channel, r.note, r.reportedBy, r.now])) === 1;
  }

  async listReports(tenantId: string, notificationId: string): Promise<ReportRecord[]> {
    return (await this.sql.q('notification_reports_list', [tenantId, notificationId])).map(toReportRecord);
  }
}
