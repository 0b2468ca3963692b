/** `store.audit`, written once for both drivers (see ../audit-store.ts). */
import { operatorActionParams, pageOf, toOperatorActionRecord } from '../audit-rows.js';
import type { AuditStore, NewOperatorAction, OperatorActionPage, OperatorActionRecord } from '../audit-store.js';
import { type Executor, count } from '../sql-executor.js';

/** Who did each operator action. */
export class AuditPart implements AuditStore {
  constructor(private readonly x: Executor) {}

  async record(actions: NewOperatorAction[]): Promise<void> {
    if (actions.length === 0) return;
    await this.x.transaction(function* () {
      for (const a of actions) yield* count('operator_actions_insert', operatorActionParams(a));
    });
  }

  async listForDelivery(tenantId: string, deliveryId: string): Promise<OperatorActionRecord[]> {
    return (await this.x.all('operator_actions_for_delivery', { tenant_id: tenantId, delivery_id: deliveryId })).map(toOperatorActionRecord);
  }

  async listForNotification(tenantId: string, notificationId: string): Promise<OperatorActionRecord[]> {
    return (await this.x.all('operator_actions_for_notification', { tenant_id: tenantId, notification_id: notificationId })).map(toOperatorActionRecord);
  }

  async listForCampaign(tenantId: string, campaignId: string): Promise<OperatorActionRecord[]> {
    return (await this.x.all('operator_actions_for_campaign', { tenant_id: tenantId, campaign_id: campaignId })).map(toOperatorActionRecord);
  }

  async listForDevice(tenantId: string, deviceId: string): Promise<OperatorActionRecord[]> {
    return (await this.x.all('operator_actions_for_device', { tenant_id: tenantId, device_id: deviceId })).map(toOperatorActionRecord);
  }

  async list(tenantId: string, cursor: string | null, limit: number): Promise<OperatorActionPage> {
    const size = Math.max(1, limit);
    const rows = (await this.x.all('operator_actions_page', { tenant_id: tenantId, cursor, limit: size + 1 })).map(toOperatorActionRecord);
    return pageOf(rows, size);
  }
}
