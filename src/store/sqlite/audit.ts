/** The SQLite driver's audit part (see src/store/audit-store.ts). */
import { operatorActionParams, toOperatorActionRecord } from '../audit-rows.js';
import type { AuditStore, NewOperatorAction, OperatorActionRecord } from '../audit-store.js';
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
}
