/**
 * What a campaign can send and how far it got: the rate its lane gives on the provider account
 * serving its channel, the progress counts folded from the store's one aggregate query, and
 * the campaign as the API shows it (snake_case; times ISO 8601, except inside `plan`, which is
 * the planner's own JSON with epoch-ms times).
 */
import { DEFAULT_LANES, laneBudgets, laneFor, projectFinish, type DownstreamStatus, type Purpose } from '../domain/index.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import type { AudienceView, CampaignDeliveryCount, CampaignRecord, CampaignRefusal, CampaignRefusalCount } from '../store/campaign-store.js';

export interface LaneCapacity {
  lane: string;
  /** Msg/s the lane may reach: the account's rate minus the other lanes' guaranteed shares. */
  maxRate: number;
  /** The other lanes' guaranteed share of the account, 0..1 (turns a lane rate into a provider rate). */
  reservedShare: number;
}

/**
 * Only the rates matter here; a large worker count keeps laneBudgets' slot arithmetic (one slot
 * per lane with a share) from refusing a configuration that validation already accepted.
 */
const PLANNING_CONCURRENCY = 10_000;

/** The lane that carries `purpose` on the account, and the most it can send; 0 msg/s when the account's numbers leave it nothing. */
export function laneCapacity(account: ProviderAccountConfig, purpose: Purpose): LaneCapacity {
  const lanes = account.lanes ?? DEFAULT_LANES;
  const lane = laneFor(purpose, lanes);
  const budgets = laneBudgets({ rate_per_second: account.rate_per_second, concurrency: PLANNING_CONCURRENCY }, lanes);
  const maxRate = budgets.ok ? (budgets.value.find((b) => b.name === lane.name)?.max_rate ?? 0) : 0;
  const reservedShare = lanes.filter((l) => l.name !== lane.name).reduce((a, l) => a + l.guaranteed_share, 0);
  return { lane: lane.name, maxRate, reservedShare: Math.min(1, reservedShare) };
}

export interface CampaignProgress {
  audience_size: number;
  /** Recipients turned into notifications so far. */
  fanned_out: number;
  /** Recipients not fanned out yet (skipped ones excluded). */
  not_fanned_out: number;
  /** Recipients fan-out refused (their data, a template render error, a part over its limit); never sent. Listed at GET /v1/campaigns/{id}/refusals. */
  skipped: number;
  /** The skipped recipients counted by problem code (e.g. template_render_failed). */
  refused_by_code: Record<string, number>;
  /** Waiting for their turn or for a retry (ready, retryable)... */
  queued: number;
  /** ...of which held by a pause. */
  held: number;
  /** A provider call in flight (submitting). */
  sending: number;
  /** The call's outcome is not known yet; reconciliation is finding out. Never resent blindly. */
  unknown: number;
  /** The provider acknowledged the submission (state accepted), whatever evidence followed. */
  accepted: number;
  /** Of the accepted: the provider reported it sent on (sent, delivered or read). */
  sent: number;
  /** Accepted, then reported bounced, failed or complained by the provider. */
  bounced: number;
  /** Ended without getting through: exhausted, rejected or unresolved. */
  failed: number;
  expired: number;
  suppressed: number;
  unsubscribed: number;
  cancelled: number;
  /** Accepted deliveries by downstream status. */
  downstream: Partial<Record<DownstreamStatus, number>>;
  /** When the rest (not fanned out, queued, sending) is sent at the lane's rate from now (from `send_at` while that is ahead); null while paused or not started. */
  projected_finish: { remaining: number; rate: number; seconds_remaining: number | null; finish_at: string | null };
}

const SENT: readonly DownstreamStatus[] = ['sent', 'delivered', 'read'];
const BOUNCED: readonly DownstreamStatus[] = ['bounced', 'failed', 'complained'];

/** Folds the aggregate rows into the progress counts and projects the finish at `rate` msg/s from `now`. */
export function campaignProgress(
  c: CampaignRecord,
  counts: readonly CampaignDeliveryCount[],
  rate: number,
  now: number,
  refused: readonly CampaignRefusalCount[] = [],
): CampaignProgress {
  const p: CampaignProgress = {
    audience_size: c.audienceSize,
    fanned_out: c.fannedOut,
    not_fanned_out: c.audienceSize - c.fannedOut - c.skipped,
    skipped: c.skipped,
    refused_by_code: Object.fromEntries(refused.map((r) => [r.code, r.count])),
    queued: 0,
    held: 0,
    sending: 0,
    unknown: 0,
    accepted: 0,
    sent: 0,
    bounced: 0,
    failed: 0,
    expired: 0,
    suppressed: 0,
    unsubscribed: 0,
    cancelled: 0,
    downstream: {},
    projected_finish: { remaining: 0, rate, seconds_remaining: null, finish_at: null },
  };
  for (const g of counts) {
    switch (g.state) {
      case 'ready':
      case 'retryable':
        p.queued += g.count;
        if (g.held) p.held += g.count;
        break;
      case 'submitting':
        p.sending += g.count;
        break;
      case 'unknown':
        p.unknown += g.count;
        break;
      case 'accepted': {
        p.accepted += g.count;
        const d = g.downstreamStatus ?? 'accepted';
        p.downstream[d] = (p.downstream[d] ?? 0) + g.count;
        if (SENT.includes(d)) p.sent += g.count;
        if (BOUNCED.includes(d)) p.bounced += g.count;
        break;
      }
      case 'terminal':
        if (g.terminalReason === 'expired') p.expired += g.count;
        else if (g.terminalReason === 'suppressed') p.suppressed += g.count;
        else if (g.terminalReason === 'unsubscribed') p.unsubscribed += g.count;
        else if (g.terminalReason === 'cancelled' || g.terminalReason === 'superseded') p.cancelled += g.count;
        else p.failed += g.count;
        break;
    }
  }
  const remaining = c.status === 'cancelled' ? 0 : p.not_fanned_out + p.queued + p.sending;
  // Nothing goes before the campaign's send_at: the drain starts there while it is ahead.
  const f = projectFinish({ remaining, rate, now: Math.max(now, c.sendAt ?? now) });
  // A draft or paused campaign sends nothing until someone acts: no finish time to promise.
  const at = c.finishedAt ?? (c.status === 'running' ? f.finish_at : null);
  p.projected_finish = { remaining, rate, seconds_remaining: f.seconds_remaining, finish_at: at === null ? null : new Date(at).toISOString() };
  return p;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** A campaign as the API shows it. */
export function campaignJson(c: CampaignRecord, progress: CampaignProgress, laneRate: number) {
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    channel: c.channel,
    purpose: c.purpose,
    provider_account: c.providerAccount,
    lane: c.lane,
    lane_rate: laneRate,
    audience: { id: c.audienceId, size: c.audienceSize },
    /** The template rendered per recipient and the version pinned at creation; null for a campaign with content. */
    template: c.template,
    deadline_at: iso(c.deadlineAt),
    /** When its messages become due; null: when it started. */
    send_at: iso(c.sendAt),
    ttl_seconds: c.ttlMs / 1000,
    metadata: c.metadata,
    plan: c.plan,
    progress,
    created_at: iso(c.createdAt),
    started_at: iso(c.startedAt),
    paused_at: iso(c.pausedAt),
    finished_at: iso(c.finishedAt),
  };
}

/** A refused recipient as the API shows it. */
export function refusalJson(r: CampaignRefusal) {
  return {
    position: r.position,
    line: r.line,
    recipient_id: r.recipientId,
    code: r.code,
    reason: r.reason,
    locale: r.locale,
    at: new Date(r.createdAt).toISOString(),
  };
}

/** An audience as the API shows it. */
export function audienceJson(a: AudienceView) {
  return {
    id: a.id,
    source: a.source,
    size: a.size,
    duplicates: a.duplicates,
    with_address: a.withAddress,
    created_at: iso(a.createdAt),
  };
}
