/** The API's JSON answers as the dashboard reads them (see docs/api.md and src/http/routes/). */

import type { components } from './api-types.js';

/** The answers with a response schema, as generated from the OpenAPI document (api-types.ts). */
type Schemas = components['schemas'];

/** An attempt as GET /v1/notifications/:id and /v1/deliveries/:id show it. */
export type Attempt = Schemas['Attempt'];

/** One operator action of the audit trail (who retried, resent or cancelled what). */
export type Action = Schemas['Action'];

type EvidenceItem = Schemas['DeliveryDetail']['evidence'][number];
type Has<K extends keyof EvidenceItem> = { [P in K]-?: Exclude<EvidenceItem[P], undefined> };

/**
 * One item of a delivery's `evidence` (GET /v1/deliveries/:id): a provider callback or a
 * reconciliation look-up. The document has one item schema in which `kind` says which fields
 * are present (src/http/evidence-schema.ts); this union says the same to the compiler.
 */
export type EvidenceEvent =
  | (EvidenceItem & { kind: 'callback' } & Has<'provider_account' | 'event_id' | 'status' | 'received_at' | 'effect'>)
  | (EvidenceItem & { kind: 'lookup' } & Has<'attempt' | 'result' | 'led_to'>);

/**
 * A delivery as the pages read it: the fields every answer has (Delivery), and those only some
 * answers carry (the list's, the review queue's `review_reason`, the detail's actions and evidence).
 */
export type Delivery = Schemas['Delivery'] &
  Partial<Omit<Schemas['DeliveryListItem'], keyof Schemas['Delivery']>> & {
    review_reason?: string;
    actions?: Action[];
    evidence?: EvidenceEvent[];
  };

/** GET /v1/notifications/:id. */
export type NotificationDetail = Schemas['NotificationDetail'];

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Device {
  id: string;
  name: string;
  provider_account: string;
  online: boolean;
  connections: number;
  last_seen_at: string;
  away_since: string | null;
  queue_depth: number;
  failures_24h: number;
  sim_cards: Array<{ slotIndex: number; simNumber: number; phoneNumber?: string | null; carrierName?: string | null }>;
  app_version: string | null;
  registered_at: string;
  sweep_pending: boolean;
  /** The phone's newest own report (system:ping); null when it never pinged. */
  phone_health: {
    reported_at: string;
    battery_percent: number | null;
    charging: boolean | null;
    internet: boolean | null;
    transports: string[] | null;
    cellular: string | null;
    signal: number | null;
    low_battery: boolean;
  } | null;
}

export interface DeviceMessage {
  message_id: string;
  delivery_id: string;
  attempt: number;
  current: boolean;
  state: string;
  phone_state: string | null;
  phone_error: string | null;
  offered_at: string | null;
  reported_at: string | null;
  provider_account: string;
  delivery_state: string;
  terminal_reason: string | null;
  downstream_status: string | null;
  purpose: string;
}

export interface Sweep {
  id: string | number;
  cause: string;
  away_since: string | null;
  returned_at: string | null;
  swept_at: string | null;
  retried: number;
  reoffered: number;
  skipped_expired: number;
}

export interface ProviderAccount {
  id: string;
  kind: string;
  channel: string;
  settings: Record<string, unknown>;
  rate_per_second: number;
  burst: number;
  ambiguity_policy: string;
  lanes: Array<{ name: string; purposes: string[]; guaranteed_share: number; guaranteed_rate: number | null; max_rate: number | null }>;
  retry_budget: { state: string; window_seconds: number; calls: number; failures: number; failure_ratio: number };
  rollout?: { stage?: string; [k: string]: unknown } | null;
  throttle?: { paused_until?: string | null } | null;
}

/** The figures a route change was made on (GET /v1/provider-accounts). */
export interface RouteFigures {
  accepted: number;
  slow: number;
  calls: number;
  failures: number;
}

/** One configured route with its accounts in order and where each stands (GET /v1/provider-accounts, `routes`). */
export interface RouteStanding {
  route: string;
  tenant: string;
  channel: string;
  purpose: string;
  order: string;
  accounts: Array<{
    provider_account: string;
    position: number;
    state: 'in_service' | 'demoted';
    since: string | null;
    reasons: string[];
    last_change: { action: 'demote' | 'restore'; at: string; figures: RouteFigures } | null;
  }>;
}

/** One demotion or restoration of the last day (GET /v1/provider-accounts, `route_changes`). */
export interface RouteChange {
  route: string;
  provider_account: string;
  action: 'demote' | 'restore';
  reasons: string[];
  at: string;
  figures: RouteFigures;
}

/** How often one error class happened in each window (GET /v1/provider-accounts/recent-errors). */
export interface ErrorCounts {
  last_15m: number;
  last_1h: number;
  last_24h: number;
}

/** One account's item of GET /v1/provider-accounts/recent-errors. */
export interface RecentErrors {
  provider_account: string;
  attempts: Array<{ class: string } & ErrorCounts>;
  terminal: Array<{ reason: string } & ErrorCounts>;
}

export interface Stats {
  at: string;
  deliveries: Record<string, number>;
  terminal: Record<string, number>;
  unknown: { count: number; oldest_age_seconds: number | null };
  due: Array<{ provider_account: string; lane: string; purpose: string; count: number; oldest_age_seconds: number | null }>;
  accepted_without_progress: Array<{ provider_account: string; channel: string; count: number }>;
  deadline_misses_last_hour: number;
  review_queue_size: number;
  provider_accounts: Array<{
    id: string;
    failures_last_15m: number;
    refused_attempts_last_15m: number;
    retry_budget: 'healthy' | 'degraded';
    paused_until: string | null;
  }>;
  series: {
    window: 'hour' | 'day';
    bucket_seconds: number;
    points: Array<{
      t: string;
      accepted: number;
      confirmed: number;
      failed: number;
      unknown: number;
      failed_by_account: Record<string, number>;
      refused_attempts: number;
    }>;
  };
  reports: { duplicate: number; not_received: number };
}

export interface Campaign {
  id: string;
  name: string | null;
  status: string;
  channel: string;
  purpose: string;
  provider_account: string;
  lane: string;
  lane_rate: number;
  audience: { id: string; size: number };
  deadline_at: string | null;
  /** When its messages become due; null: when it was started. */
  send_at: string | null;
  plan: {
    feasible: boolean;
    reason: string | null;
    required_rate: number | null;
    available_rate: number;
    best_case_seconds: number | null;
    projected_finish_at: number | null;
    deadline_at: number;
  } | null;
  progress: {
    audience_size: number;
    fanned_out: number;
    not_fanned_out: number;
    queued: number;
    held: number;
    sending: number;
    unknown: number;
    accepted: number;
    sent: number;
    bounced: number;
    failed: number;
    expired: number;
    suppressed: number;
    unsubscribed: number;
    cancelled: number;
    projected_finish: { remaining: number; rate: number; seconds_remaining: number | null; finish_at: string | null };
  };
  created_at: string;
  started_at: string | null;
  paused_at: string | null;
  finished_at: string | null;
}
