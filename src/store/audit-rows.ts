/** Maps `operator_actions` rows to the audit part's records (audit-store.ts). */
import type { ActorKind, NewOperatorAction, OperatorAction, OperatorActionPage, OperatorActionRecord } from './audit-store.js';
import { json, num, str, strOrNull, type Row } from './rows.js';

/** An `operator_actions` row as the contract's record. */
export function toOperatorActionRecord(r: Row): OperatorActionRecord {
  return {
    id: str(r.id),
    tenantId: str(r.tenant_id),
    at: num(r.at),
    action: str(r.action) as OperatorAction,
    actor: { kind: str(r.actor_kind) as ActorKind, id: str(r.actor_id), name: strOrNull(r.actor_name) },
    notificationId: strOrNull(r.notification_id),
    deliveryId: strOrNull(r.delivery_id),
    campaignId: strOrNull(r.campaign_id),
    deviceId: strOrNull(r.device_id),
    subjectId: strOrNull(r.subject_id),
    ip: strOrNull(r.ip),
    detail: json<Record<string, unknown>>(r.detail_json),
  };
}

/** The insert's parameters, by column name. */
export function operatorActionParams(a: NewOperatorAction) {
  return {
    id: a.id,
    tenant_id: a.tenantId,
    at: a.at,
    action: a.action,
    actor_kind: a.actor.kind,
    actor_id: a.actor.id,
    actor_name: a.actor.name,
    notification_id: a.notificationId,
    delivery_id: a.deliveryId,
    campaign_id: a.campaignId,
    device_id: a.deviceId,
    detail_json: JSON.stringify(a.detail),
    subject_id: a.subjectId,
    ip: a.ip,
  };
}

/** A page from `limit + 1` rows read: the extra row only says there is a next page. */
export function pageOf(rows: OperatorActionRecord[], limit: number): OperatorActionPage {
  const items = rows.slice(0, limit);
  return { items, next: rows.length > limit ? items[items.length - 1]!.id : null };
}
