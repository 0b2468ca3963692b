/** The SQLite driver's audit part (see src/store/audit-store.ts). */
import { operatorActionParams, pageOf, toOperatorActionRecord } from '../audit-rows.js';
import type { AuditStore, NewOperatorAction, OperatorActionPage, OperatorActionRecord } from '../audit-store.js';
import type { Row } from '../rows.js';
import type { SqliteContext } from './sql-context.js';

/** `store.audit` of the SQLite store. */
export class SqliteAudit implements AuditStore {
  constructor(private readonly sql: SqliteContext) {}

  async record(actions: NewOperatorAction[]): Promise<void> {
    if (actions.length === 0) return;
    const insert = this.sql.stmt('operator_actions_insert');
    this.sql.write(() => {
      for (const a of actions) insert.run(operatorActionParams(a));
    });
  }

  async listForDelivery(tenantId: string, deliveryId: string): Promise<OperatorActionRecord[]> {
    return (this.sql.stmt('operator_actions_for_delivery').all({ tenant_id: tenantId, delivery_id: deliveryId }) as Row[]).map(toOperatorActionRecord);
  }

  async listForNotification(tenantId: string, notificationId: string): Promise<OperatorActionRecord[]> {
    return (this.sql.stmt('operator_actions_for_notification').all({ tenant_id: tenantId, notification_id: notificationId }) as Row[]).map(
      toOperatorActionRecord,
    );
  }

  async listForCampaign(tenantId: string, campaignId: string): Promise<OperatorActionRecord[]> {
    return (this.sql.stmt('operator_actions_for_campaign').all({ tenant_id: tenantId, campaign_id: campaignId }) as Row[]).map(toOperatorActionRecord);
  }

  async listForDevice(tenantId: string, deviceId: string): Promise<OperatorActionRecord[]> {
    return (this.sql.stmt('operator_actions_for_device').all({ tenant_id: tenantId, device_id: deviceId }) as Row[]).map(toOperatorActionRecord);
  }

  async list(tenantId: string, cursor: string | null, limit: number): Promise<OperatorActionPage> {
    const rows = (this.sql.stmt('operator_actions_page').all({ tenant_id: tenantId, cursor, limit: limit + 1 }) as Row[]).map(toOperatorActionRecord);
    return pageOf(rows, limit);
  }
}
