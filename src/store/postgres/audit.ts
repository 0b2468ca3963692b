/** The PostgreSQL driver's audit part (see src/store/audit-store.ts). */
import { operatorActionParams, pageOf, toOperatorActionRecord } from '../audit-rows.js';
import type { AuditStore, NewOperatorAction, OperatorActionPage, OperatorActionRecord } from '../audit-store.js';
import type { PostgresContext } from './sql-context.js';

/** `store.audit` of the PostgreSQL store. */
export class PostgresAudit implements AuditStore {
  constructor(private readonly sql: PostgresContext) {}

  async record(actions: NewOperatorAction[]): Promise<void> {
    if (actions.length === 0) return;
    await this.sql.tx(async (c) => {
      for (const a of actions) {
        const p = operatorActionParams(a);
        await this.sql.q(
          'operator_actions_insert',
          [
            p.id,
            p.tenant_id,
            p.at,
            p.action,
            p.actor_kind,
            p.actor_id,
            p.actor_name,
            p.notification_id,
            p.delivery_id,
            p.campaign_id,
            p.device_id,
            p.detail_json,
            p.subject_id,
            p.ip,
          ],
          c,
        );
      }
    });
  }

  async listForDelivery(tenantId: string, deliveryId: string): Promise<OperatorActionRecord[]> {
    return (await this.sql.q('operator_actions_for_delivery', [tenantId, deliveryId])).map(toOperatorActionRecord);
  }

  async listForNotification(tenantId: string, notificationId: string): Promise<OperatorActionRecord[]> {
    return (await this.sql.q('operator_actions_for_notification', [tenantId, notificationId])).map(toOperatorActionRecord);
  }

  async listForCampaign(tenantId: string, campaignId: string): Promise<OperatorActionRecord[]> {
    return (await this.sql.q('operator_actions_for_campaign', [tenantId, campaignId])).map(toOperatorActionRecord);
  }

  async listForDevice(tenantId: string, deviceId: string): Promise<OperatorActionRecord[]> {
    return (await this.sql.q('operator_actions_for_device', [tenantId, deviceId])).map(toOperatorActionRecord);
  }

  async list(tenantId: string, cursor: string | null, limit: number): Promise<OperatorActionPage> {
    const rows = (await this.sql.q('operator_actions_page', [tenantId, cursor, limit + 1])).map(toOperatorActionRecord);
    return pageOf(rows, limit);
  }
}
