/**
 * Recording operator actions from the routes that perform them (store.audit), and showing them:
 * who asked comes from the request's principal (auth.ts), an API key or a dashboard user.
 */
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { NewOperatorAction, OperatorAction, OperatorActionRecord, Store } from '../store/store.js';

/** What an action was done to. */
export interface ActionTarget {
  notificationId?: string | null;
  deliveryId?: string | null;
  campaignId?: string | null;
  deviceId?: string | null;
  /** A key, tenant, recipient or provider account the action changed. */
  subjectId?: string | null;
}

/** One action row for this request's principal (an API key when the request had no session). */
export function operatorAction(
  request: FastifyRequest,
  now: number,
  action: OperatorAction,
  target: ActionTarget,
  detail: Record<string, unknown>,
): NewOperatorAction {
  const p = request.principal;
  return {
    id: newId('act', now),
    tenantId: request.tenantId,
    at: now,
    action,
    actor: p ? { kind: p.kind, id: p.id, name: p.name } : { kind: 'api_key', id: request.apiKeyId, name: null },
    notificationId: target.notificationId ?? null,
    deliveryId: target.deliveryId ?? null,
    campaignId: target.campaignId ?? null,
    deviceId: target.deviceId ?? null,
    subjectId: target.subjectId ?? null,
    ip: request.ip,
    detail,
  };
}

/** Records one action of this request. */
export async function recordAction(
  deps: { store: Store; clock: Clock },
  request: FastifyRequest,
  action: OperatorAction,
  target: ActionTarget,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await deps.store.audit.record([operatorAction(request, deps.clock.now(), action, target, detail)]);
}

/** An action as GET /v1/audit shows it: every target it names, and where it came from. */
export function auditEntryJson(a: OperatorActionRecord) {
  return {
    id: a.id,
    at: new Date(a.at).toISOString(),
    action: a.action,
    by: { kind: a.actor.kind, id: a.actor.id, name: a.actor.name },
    ip: a.ip,
    notification_id: a.notificationId,
    delivery_id: a.deliveryId,
    campaign_id: a.campaignId,
    device_id: a.deviceId,
    subject_id: a.subjectId,
    detail: a.detail,
  };
}

/** An action as GET /v1/deliveries/:id and GET /v1/notifications/:id show it. */
export function actionJson(a: OperatorActionRecord) {
  return {
    at: new Date(a.at).toISOString(),
    action: a.action,
    by: { kind: a.actor.kind, id: a.actor.id, name: a.actor.name },
    ...(a.deliveryId !== null ? { delivery_id: a.deliveryId } : {}),
    detail: a.detail,
  };
}
