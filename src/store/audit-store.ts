/**
 * The audit trail of operator actions (`store.audit`): who (an API key, or a dashboard user)
 * retried, resent, cancelled, bulk-retried, retried a phone's failed messages, paused, resumed
 * or cancelled a campaign, created, revoked or rotated a key, created a tenant, assigned a
 * provider account, edited preferences or suppressions or erased a recipient: when, on what,
 * from which address and with what detail. Written beside the action, never edited (the
 * contract has no update and no delete, the drivers no such statement); shown as `actions` on
 * GET /v1/deliveries/:id, /v1/notifications/:id, /v1/campaigns/:id and /v1/devices/:id, and
 * all of a tenant's at GET /v1/audit. Both drivers implement it; test/store/audit-conformance.ts runs on each.
 */

/** Every operator action the trail records. */
export const OPERATOR_ACTIONS = [
  'retry',
  'bulk_retry',
  'resend',
  'cancel',
  'device_retry_failed',
  'device_retry',
  'campaign_pause',
  'campaign_resume',
  'campaign_cancel',
  'key_create',
  'key_revoke',
  'key_rotate',
  'tenant_create',
  'account_assign',
  'account_unassign',
  'preferences_edit',
  'suppression_add',
  'suppression_remove',
  'recipient_erase',
  'scheduling_edit',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** Who did it. */
/** `cli`: `herald keys` and `herald tenants` at the shell (the actor id is the OS user). */
export const ACTOR_KINDS = ['api_key', 'user', 'cli'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

export interface NewOperatorAction {
  id: string;
  tenantId: string;
  at: number;
  action: OperatorAction;
  actor: { kind: ActorKind; id: string; name: string | null };
  /** What it acted on; a delivery's action names its notification too, so the notification's page lists it. */
  notificationId: string | null;
  deliveryId: string | null;
  campaignId: string | null;
  deviceId: string | null;
  /** Any other target: a key id, a tenant id, a recipient id, a provider account id. */
  subjectId: string | null;
  /** The caller's address as the server saw it (request.ip: the peer, or X-Forwarded-For behind a trusted proxy). */
  ip: string | null;
  /** The action's own facts (accept_duplicate_risk, note, filter, counts), as JSON. */
  detail: Record<string, unknown>;
}

export type OperatorActionRecord = NewOperatorAction;

/** One page of a tenant's trail, newest first; `next` is the cursor of the page after, null at the end. */
export interface OperatorActionPage {
  items: OperatorActionRecord[];
  next: string | null;
}

/** `store.audit`; implemented by sqlite/audit.ts and postgres/audit.ts. */
export interface AuditStore {
  /** Records actions (one transaction). */
  record(actions: NewOperatorAction[]): Promise<void>;
  /** The actions on one of the tenant's deliveries, oldest first. */
  listForDelivery(tenantId: string, deliveryId: string): Promise<OperatorActionRecord[]>;
  /** The actions on one of the tenant's notifications or any of its deliveries, oldest first. */
  listForNotification(tenantId: string, notificationId: string): Promise<OperatorActionRecord[]>;
  /** The actions on one of the tenant's campaigns (pause, resume, cancel), oldest first. */
  listForCampaign(tenantId: string, campaignId: string): Promise<OperatorActionRecord[]>;
  /** The actions on one of the tenant's phones (retry-failed, a message's retry), oldest first. */
  listForDevice(tenantId: string, deviceId: string): Promise<OperatorActionRecord[]>;
  /** The tenant's actions newest first, after the cursor (an action id) when given. */
  list(tenantId: string, cursor: string | null, limit: number): Promise<OperatorActionPage>;
}
