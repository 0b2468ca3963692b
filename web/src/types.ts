/** The API's JSON answers as the dashboard reads them (see docs/api.md and src/http/routes/). */

export interface Delivery {
  id: string;
  notification_id: string;
  channel: string;
  purpose: string;
  state: string;
  terminal_reason: string | null;
  downstream_status: string | null;
  provider_account: string;
  provider_message_id: string | null;
  attempt_count: number;
  next_attempt_at: string | null;
  expires_at: string | null;
  last_error_code: string | null;
  created_at: string;
  updated_at: string;
  // GET /v1/deliveries list fields (dashboard contract).
  recipient_id?: string | null;
  operation_id?: string | null;
  campaign_id?: string | null;
  device_id?: string | null;
  last_event_at?: string | null;
  review_reason?: string;
  actions?: Action[];
  /** GET /v1/deliveries/:id only. */
  evidence?: EvidenceEvent[];
}

export interface Action {
  at: string;
  action: string;
  by: { kind: string; id: string; name: string };
  delivery_id?: string;
  detail: unknown;
}

export interface Attempt {
  number: number;
  started_at: string | null;
  finished_at: string | null;
  outcome: string | null;
  provider_message_id: string | null;
  error: { code: string; message: string | null } | null;
  retry_after_ms: number | null;
  late_outcome: string | null;
  ambiguity_policy: string | null;
  resolution: string | null;
  worker_id: string | null;
}

/** One item of a delivery's `evidence` (GET /v1/deliveries/:id): a provider callback or a reconciliation look-up. */
export type EvidenceEvent =
  | {
      kind: 'callback';
      at: string;
      provider_account: string;
      event_id: string;
      status: string;
      provider_message_id: string | null;
      occurred_at: string | null;
      received_at: string;
      applied_at: string | null;
      effect: 'applied' | 'no_change' | 'pending';
    }
  | {
      kind: 'lookup';
      at: string;
      attempt: number;
      result: 'found' | 'not_found' | 'no_answer';
      led_to: 'accepted' | 'retryable' | 'unresolved' | 'asked_later';
      provider_message_id: string | null;
      error_code: string | null;
    };

export interface NotificationDetail {
  id: string;
  purpose: string;
  recipient_id: string;
  channels: string[];
  group: { key: string; generation: number };
  metadata: Record<string, unknown> | null;
  expires_at: string;
  created_at: string;
  deliveries: Array<Delivery & { attempts: Attempt[]; evidence?: EvidenceEvent[]; sms?: { encoding: string; segments: number } }>;
  reports?: Array<{ kind: string; channel: string | null; note: string | null; created_at: string }>;
  actions?: Action[];
}

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
