/**
 * The audit trail of operator actions (`store.audit`): who (an API key, or a dashboard user)
 * retried, resent, cancelled, bulk-retried, retried a phone's failed messages, or paused,
 * resumed or cancelled a campaign, when, on what, and with what detail. Written beside the
 * action, never edited; shown on GET /v1/deliveries/:id and GET /v1/notifications/:id as
 * `actions`. Both drivers implement it; test/store/audit-conformance.ts runs on each.
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
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** Who did it. */
export const ACTOR_KINDS = ['api_key', 'user'] as const;
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
  /** The action's own facts (accept_duplicate_risk, note, filter, counts), as JSON. */
  detail: Record<string, unknown>;
}

export type OperatorActionRecord = NewOperatorAction;

/** `store.audit`; implemented by sqlite/audit.ts and postgres/audit.ts. */
export interface AuditStore {
  /** Records actions (one transaction). */
  record(actions: NewOperatorAction[]): Promise<void>;
  /** The actions on one of the tenant's deliveries, oldest first. */
  listForDelivery(tenantId: string, deliveryId: string): Promise<OperatorActionRecord[]>;
  /** The actions on one of the tenant's notifications or any of its deliveries, oldest first. */
  listForNotification(tenantId: string, notificationId: string): Promise<OperatorActionRecord[]>;
}
