/**
 * The observability part of the Store contract (`store.observability`): the state of the whole
 * system as one small, fixed set of aggregate reads, for the metrics endpoint (src/observability/),
 * the operator alerts and GET /v1/stats. Every process reads the same rows, so every process
 * reports the same truth. No row carries a destination or a recipient: only states, reasons,
 * provider account, device and campaign ids, counts and times.
 */
import { REFUSAL_OUTCOMES, type Channel, type DeliveryState, type DownstreamStatus, type Purpose, type TerminalReason } from '../domain/index.js';
import type { Row } from './rows.js';

/** Deliveries of one state (and terminal reason, for `terminal`). */
export interface DeliveryStateGroup {
  state: DeliveryState;
  /** Null unless `state` is `terminal`. */
  terminalReason: TerminalReason | null;
  count: number;
  /** The oldest `updated_at` in the group (for `unknown`: when the oldest became unknown). */
  oldestUpdatedAt: number;
  /** How many of the group the review queue lists (review-store.ts `listReview`). */
  inReview: number;
}

/**
 * Due work of one provider account and purpose: ready/retryable, `next_attempt_at` ≤ now, not
 * expired at now. The lane is configuration (`laneFor(purpose, account.lanes)`), not a column:
 * the reader maps purpose to lane (src/observability/system-metrics.ts).
 */
export interface DueGroup {
  providerAccount: string;
  purpose: Purpose;
  count: number;
  /** The earliest `next_attempt_at` among them: how long the oldest due message has waited. */
  oldestDueAt: number;
}

/** Accepted deliveries of one account and channel whose downstream status is still null or `accepted`, not updated since `now - acceptedProgressAfterMs`. */
export interface AcceptedWithoutProgressGroup {
  providerAccount: string;
  channel: Channel;
  count: number;
  /** The oldest `updated_at` among them (when the oldest was accepted, or its last `accepted` callback). */
  oldestUpdatedAt: number;
}

/** Deliveries of one channel and purpose that ended `terminal/expired` in the last hour without ever being accepted. */
export interface DeadlineMissGroup {
  channel: Channel;
  purpose: Purpose;
  count: number;
}

/** What the store knows about one provider account right now. */
export interface ProviderAccountState {
  providerAccount: string;
  /**
   * Failed messages (deliveries, by the one definition: domain/failed-message.ts, the
   * failed_messages view) that entered their failed state in the last 15 minutes.
   */
  failuresLast15m: number;
  /** Attempts finished in the last 15 minutes that were definitely refused (REFUSAL_OUTCOMES): attempts, not messages. */
  refusedAttemptsLast15m: number;
  /** The retry budget's window (store.health, since `healthSince`): calls and retryable/throttled failures. */
  healthCalls: number;
  healthFailures: number;
  /** When a throttle pause (a provider's 429) of the account ends; null when it is not paused at `now`. */
  pausedUntil: number | null;
}

/** One Android gateway device (no phone number, no SIM data). */
export interface DeviceState {
  id: string;
  name: string;
  tenantId: string;
  providerAccount: string;
  lastSeenAt: number;
}

/** The statuses a campaign's deliveries are counted under on the metrics endpoint. */
export const CAMPAIGN_DELIVERY_STATUSES = ['queued', 'accepted', 'delivered', 'failed', 'suppressed', 'expired'] as const;
export type CampaignDeliveryStatus = (typeof CAMPAIGN_DELIVERY_STATUSES)[number];

/** Deliveries of one unfinished campaign under one status (only statuses that have deliveries). */
export interface CampaignDeliveryGroup {
  campaignId: string;
  tenantId: string;
  status: CampaignDeliveryStatus;
  count: number;
}

/**
 * Where a campaign delivery is counted: still on its way (ready, retryable, submitting, unknown)
 * is queued; accepted is accepted until evidence says delivered/read (delivered) or
 * bounced/failed/complained (failed); ended without getting through (exhausted, rejected,
 * unresolved) is failed; suppressed/unsubscribed is suppressed; expired is expired. Cancelled and
 * superseded deliveries were stopped on purpose and are not counted (null).
 */
export function campaignDeliveryStatus(
  state: DeliveryState,
  reason: TerminalReason | null,
  downstream: DownstreamStatus | null,
): CampaignDeliveryStatus | null {
  switch (state) {
    case 'ready':
    case 'retryable':
    case 'submitting':
    case 'unknown':
      return 'queued';
    case 'accepted':
      if (downstream === 'delivered' || downstream === 'read') return 'delivered';
      if (downstream === 'bounced' || downstream === 'failed' || downstream === 'complained') return 'failed';
      return 'accepted';
    case 'terminal':
      switch (reason) {
        case 'exhausted':
        case 'rejected':
        case 'unresolved':
          return 'failed';
        case 'suppressed':
        case 'unsubscribed':
          return 'suppressed';
        case 'expired':
          return 'expired';
        default:
          return null;
      }
  }
}

export interface SystemStateQuery {
  now: number;
  /** As in ReviewQuery: an `unknown` delivery not updated since `now - unknownAfterMs` is in review. */
  unknownAfterMs: number;
  /** An accepted delivery without downstream progress counts once not updated for this long (config `metrics.accepted_progress_after_s`). */
  acceptedProgressAfterMs: number;
  /** The start of the retry budget's window (`now - HEALTH_WINDOW_MS`). */
  healthSince: number;
  /** Only this tenant's deliveries, attempts, devices and campaigns (GET /v1/stats); absent: every tenant (the metrics endpoint). */
  tenantId?: string;
}

export interface SystemState {
  /** Only groups that have deliveries. */
  deliveries: DeliveryStateGroup[];
  /** Only account/purpose pairs that have due work. */
  due: DueGroup[];
  /** Only groups that have such deliveries. */
  acceptedWithoutProgress: AcceptedWithoutProgressGroup[];
  /** Only groups that have misses. */
  deadlineMissesLastHour: DeadlineMissGroup[];
  /**
   * Every account the store has anything on (recent failures, a health window, a limiter row).
   * The retry budget and the pause are the account's, shared by every tenant; only the failure
   * count is the tenant's when `tenantId` is given. Accounts with nothing stored are absent: the
   * reader fills in its configured accounts with zeros.
   */
  providerAccounts: ProviderAccountState[];
  devices: DeviceState[];
  /** Unfinished campaigns (finished_at null), by status. */
  campaigns: CampaignDeliveryGroup[];
}

/** How long "recent failures" looks back. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** How long "deadline misses" looks back. */
export const DEADLINE_MISS_WINDOW_MS = 60 * 60_000;

/** One bucket of the stats series (GET /v1/stats). */
export interface StatsBucket {
  /** Bucket start, epoch ms. */
  t: number;
  /** Attempts that ended accepted in the bucket, and `unknown` ones (phone offers among them) that evidence later showed arrived. */
  accepted: number;
  /** Deliveries whose downstream status first reached sent/delivered/read in the bucket. */
  confirmed: number;
  /** Failed messages (the one definition) that entered their failed state in the bucket: the sum of failedByAccount. */
  failed: number;
  /** Deliveries unknown now that became unknown in the bucket (so the series sums to the unknown count within its window). */
  unknown: number;
  /** The bucket's failed messages per provider account. */
  failedByAccount: Record<string, number>;
  /** Attempts that ended definitely refused (retryable, throttled, permanent) in the bucket: attempts, not messages. */
  refusedAttempts: number;
}

export interface StatsSeriesQuery {
  tenantId: string;
  /** Start of the first bucket (a multiple of bucketMs). */
  from: number;
  bucketMs: number;
  buckets: number;
}

/** `store.observability`; implemented by sqlite/observability.ts and postgres/observability.ts. */
export interface ObservabilityStore {
  /** The state of the system at `now` (nine aggregate statements, each served by an index or a small table). */
  systemState(q: SystemStateQuery): Promise<SystemState>;
  /** A tenant's activity in `buckets` buckets of `bucketMs` from `from`, oldest first, every bucket present (zeros included). */
  statsSeries(q: StatsSeriesQuery): Promise<StatsBucket[]>;
  /** User reports of a tenant, all time, by kind. */
  reportCounts(tenantId: string): Promise<{ duplicate: number; not_received: number }>;
}

/** Folds the three per-account reads into one row per account (shared by both drivers). */
export function mergeProviderAccounts(
  failures: readonly { providerAccount: string; count: number }[],
  refusals: readonly { providerAccount: string; count: number }[],
  health: readonly { providerAccount: string; calls: number; failures: number }[],
  pauses: readonly { providerAccount: string; pausedUntil: number | null }[],
  now: number,
): ProviderAccountState[] {
  const byId = new Map<string, ProviderAccountState>();
  const get = (id: string): ProviderAccountState => {
    let a = byId.get(id);
    if (!a) byId.set(id, (a = { providerAccount: id, failuresLast15m: 0, refusedAttemptsLast15m: 0, healthCalls: 0, healthFailures: 0, pausedUntil: null }));
    return a;
  };
  for (const f of failures) get(f.providerAccount).failuresLast15m = f.count;
  for (const r of refusals) get(r.providerAccount).refusedAttemptsLast15m = r.count;
  for (const h of health) Object.assign(get(h.providerAccount), { healthCalls: h.calls, healthFailures: h.failures });
  for (const p of pauses) get(p.providerAccount).pausedUntil = p.pausedUntil !== null && p.pausedUntil > now ? p.pausedUntil : null;
  return [...byId.values()].sort((a, b) => a.providerAccount.localeCompare(b.providerAccount));
}

/** Sums the raw (state, reason, downstream) groups of each campaign into its statuses; uncounted (null) ones are dropped. */
export function foldCampaignGroups(
  rows: readonly { campaignId: string; tenantId: string; status: CampaignDeliveryStatus | null; count: number }[],
): CampaignDeliveryGroup[] {
  const byKey = new Map<string, CampaignDeliveryGroup>();
  for (const r of rows) {
    if (r.status === null) continue;
    const key = `${r.campaignId}\u0000${r.status}`;
    const g = byKey.get(key);
    if (g) g.count += r.count;
    else byKey.set(key, { campaignId: r.campaignId, tenantId: r.tenantId, status: r.status, count: r.count });
  }
  return [...byKey.values()].sort((a, b) => a.campaignId.localeCompare(b.campaignId) || a.status.localeCompare(b.status));
}

/** Every bucket of a series query, zeros. */
export function emptyBuckets(q: StatsSeriesQuery): StatsBucket[] {
  return Array.from({ length: q.buckets }, (_, i) => ({
    t: q.from + i * q.bucketMs,
    accepted: 0,
    confirmed: 0,
    failed: 0,
    unknown: 0,
    failedByAccount: {},
    refusedAttempts: 0,
  }));
}

/** Adds the series reads (rows with a bucket index) into `buckets` (shared by both drivers). */
export function foldSeries(
  buckets: StatsBucket[],
  rows: { attempts: readonly Row[]; failed: readonly Row[]; unknown: readonly Row[]; confirmed: readonly Row[] },
): void {
  const at = (r: Row): StatsBucket | undefined => buckets[Number(r.bucket)];
  for (const r of rows.attempts) {
    const b = at(r);
    if (!b) continue;
    const n = Number(r.n);
    if (r.outcome === 'accepted') b.accepted += n;
    else if ((REFUSAL_OUTCOMES as readonly unknown[]).includes(r.outcome)) b.refusedAttempts += n;
  }
  for (const r of rows.failed) {
    const b = at(r);
    if (!b) continue;
    const n = Number(r.n);
    const account = String(r.provider_account);
    b.failed += n;
    b.failedByAccount[account] = (b.failedByAccount[account] ?? 0) + n;
  }
  for (const r of rows.unknown) {
    const b = at(r);
    if (b) b.unknown += Number(r.n);
  }
  for (const r of rows.confirmed) {
    const b = at(r);
    if (b) b.confirmed += Number(r.n);
  }
}
