/**
 * The campaign part of the Store contract (`store.campaigns`): stored recipient profiles, audiences
 * (written batch by batch while an upload is parsed, never held whole in memory), campaigns
 * with their fan-out cursor, and the campaign's deliveries seen as one group (progress counts,
 * pause holds, resume releases). Both drivers implement it and pass
 * test/store/campaign-conformance.ts.
 */
import type { CampaignAction, CampaignPurpose, CampaignStatus } from '../domain/campaign-status.js';
import type { Channel, DeliveryState, DownstreamStatus, TerminalReason } from '../domain/index.js';
import type { MessageContent } from '../domain/index.js';
import type { DeliveryFacts, NewNotification, RecipientInput } from './core-store.js';

/** A stored recipient (PUT /v1/recipients/:id). Absent addresses are null. */
export interface RecipientProfile {
  id: string;
  email: string | null;
  phone: string | null;
  push_token: string | null;
  locale: string | null;
  /** IANA time zone for quiet hours, read at send time (a change applies to queued messages). */
  time_zone: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Where an audience's rows came from; the schema's CHECK repeats the list. */
export const AUDIENCE_SOURCES = ['ndjson', 'csv', 'inline', 'recipient_ids'] as const;
export type AudienceSource = (typeof AUDIENCE_SOURCES)[number];

/** `loading` while an upload is written batch by batch, `ready` once sealed. */
export const AUDIENCE_STATUSES = ['loading', 'ready'] as const;
export type AudienceStatus = (typeof AUDIENCE_STATUSES)[number];

/** One recipient of an audience: its place in the list and the source line it came from. */
export interface AudienceRow {
  position: number;
  /** 1-based line of the upload (or index + 1 in an inline list), for error messages. */
  line: number;
  recipient: RecipientInput;
  /** The recipient's template data (NDJSON `data`, CSV `data.*` columns); absent when the row gave none. Sealed at rest. */
  data?: Record<string, unknown>;
}

/** Recipients of an audience in one time zone (null: rows that named none). */
export interface AudienceZoneCount {
  timeZone: string | null;
  recipients: number;
}

export interface AudienceView {
  id: string;
  tenantId: string;
  status: AudienceStatus;
  source: AudienceSource;
  size: number;
  /** Rows skipped because their recipient id was already in the audience (the first one is kept). */
  duplicates: number;
  /** How many recipients have each address. */
  withAddress: Record<Channel, number>;
  createdAt: number;
}

export interface NewCampaign {
  id: string;
  tenantId: string;
  name: string | null;
  status: 'draft' | 'running';
  channel: Channel;
  purpose: CampaignPurpose;
  providerAccount: string;
  lane: string;
  /** The message every recipient gets; null when the campaign renders `template` per recipient. */
  content: MessageContent | null;
  /** The template rendered per recipient, with the version pinned at creation; null for a campaign with content. */
  template: { id: string; version: number } | null;
  metadata: Record<string, unknown> | null;
  /** Each notification's lifetime, counted from its fan-out. */
  ttlMs: number;
  audienceId: string;
  audienceSize: number;
  deadlineAt: number;
  /**
   * When its messages become due (`send_at`, epoch ms): fan-out gives each notification this
   * `send_at` while it is ahead, and the plan starts here. Null: due when the campaign starts.
   */
  sendAt: number | null;
  /** The planner's answer (src/domain/campaign-plan.ts), stored as given. */
  plan: unknown;
  createdAt: number;
  startedAt: number | null;
}

export interface CampaignRecord extends Omit<NewCampaign, 'status'> {
  status: CampaignStatus;
  /** The last audience position fanned out (or skipped); 0 before the first batch. */
  fannedOutPosition: number;
  fannedOut: number;
  skipped: number;
  updatedAt: number;
  pausedAt: number | null;
  finishedAt: number | null;
}

/** A recipient fan-out refused: never sent, counted in `skipped`, listed with its reason. */
export interface CampaignRefusal {
  position: number;
  line: number;
  recipientId: string;
  /** The problem code intake would have answered (src/errors.ts), e.g. template_render_failed. */
  code: string;
  /** What was wrong, naming template, version, locale and part for a template's refusal (never the data). */
  reason: string;
  /** The locale the template rendered in; null when the refusal was not a template's. */
  locale: string | null;
  createdAt: number;
}

/** How many recipients fan-out refused with one code. */
export interface CampaignRefusalCount {
  code: string;
  count: number;
}

/** One group of a campaign's deliveries, as the progress query counts them. */
export interface CampaignDeliveryCount {
  state: DeliveryState;
  terminalReason: TerminalReason | null;
  downstreamStatus: DownstreamStatus | null;
  /** Held by a pause (only ever true for ready/retryable deliveries of a paused campaign). */
  held: boolean;
  count: number;
}

/** One fan-out batch, committed with the cursor move in one transaction. */
export interface FanOutBatch {
  campaignId: string;
  /** The cursor as the runner read it: the batch applies only if it is still there (and the campaign still running). */
  expectPosition: number;
  /** The last audience position this batch covers. */
  toPosition: number;
  /** Built by intake (`IntakeService.prepare`); generation 1 of group `cmp:<campaign>:<recipient>`. */
  notifications: NewNotification[];
  /** Rows whose message could not be built (intake's refusal, a template's render error); recorded, counted as skipped, never sent. */
  refusals: readonly CampaignRefusal[];
  now: number;
}

/** A recipient profile to create or replace. */
export interface RecipientPut {
  tenantId: string;
  recipient: RecipientInput;
  now: number;
}

export interface RecipientPutResult {
  /** False when it replaced a stored profile. */
  created: boolean;
  profile: RecipientProfile;
}

export interface NewAudience {
  id: string;
  tenantId: string;
  source: AudienceSource;
  now: number;
}

/** Ends an audience's upload; `duplicates` are the rows the loader skipped. */
export interface AudienceSeal {
  audienceId: string;
  duplicates: number;
  now: number;
}

/** One of a tenant's campaigns, at `now`. */
export interface CampaignRef {
  tenantId: string;
  id: string;
  now: number;
}

/** A caller's start or cancel; `plan` replaces the stored plan when given. */
export interface CampaignActionRequest extends CampaignRef {
  action: 'start' | 'cancel';
  plan?: unknown;
}

/** A pause: the campaign's pending deliveries are held until `holdUntil` (CAMPAIGN_HOLD_UNTIL: until resumed). */
export interface CampaignPause extends CampaignRef {
  holdUntil: number;
}

export interface DeliveryHold {
  holdUntil: number;
}

/** A campaign (of any tenant: the runner's) to finish at `now` if nothing more will happen. */
export interface CampaignFinishRequest {
  id: string;
  now: number;
}

/** How a campaign finished: `complete` (every recipient fanned out and settled) or `cancel` (a cancelled one drained). */
export type CampaignFinish = Extract<CampaignAction, 'complete' | 'cancel'>;

/** A page of a tenant's campaigns, newest first: after the campaign `after` (a cursor), of `status` when given. */
export interface CampaignListQuery {
  tenantId: string;
  status?: CampaignStatus;
  /** The last campaign id of the previous page, or null for the first. */
  after: string | null;
  limit: number;
}

export interface CampaignPage {
  items: CampaignRecord[];
  /** The id to continue after, or null on the last page. */
  nextCursor: string | null;
}

/** One group of a campaign's deliveries, in an aggregate over several campaigns. */
export interface CampaignGroupCount extends CampaignDeliveryCount {
  campaignId: string;
}

/** `store.campaigns`; implemented by sqlite/campaigns.ts and postgres/campaigns.ts. */
export interface CampaignStore {
  /** Creates or replaces a recipient profile; `created` is false when it replaced one. */
  putRecipient(r: RecipientPut): Promise<RecipientPutResult>;
  /** The tenant's stored profiles among `ids` (unknown ids are absent), in no particular order. */
  getRecipients(tenantId: string, ids: readonly string[]): Promise<RecipientProfile[]>;

  /** Starts an audience in status `loading`. */
  createAudience(a: NewAudience): Promise<void>;
  /** Appends rows in one transaction; a recipient id already in the audience is skipped. Returns how many were written. */
  appendAudienceRows(audienceId: string, rows: readonly AudienceRow[]): Promise<number>;
  /** Marks a loading audience `ready`, counting its rows and their addresses; returns it. */
  sealAudience(r: AudienceSeal): Promise<AudienceView>;
  /** Deletes an audience and its rows (a failed upload). A campaign's audience cannot be deleted. */
  deleteAudience(audienceId: string): Promise<void>;
  /** Deletes audiences still `loading` that were created before `before` (their upload died); returns how many. */
  pruneLoadingAudiences(before: number): Promise<number>;
  /** One of the tenant's audiences, or null. */
  getAudience(tenantId: string, id: string): Promise<AudienceView | null>;
  /** Up to `limit` rows after `afterPosition`, in position order. */
  readAudienceRows(audienceId: string, afterPosition: number, limit: number): Promise<AudienceRow[]>;
  /** How many of the audience's rows name each time zone (`timeZone` null: rows that named none). */
  audienceZoneCounts(audienceId: string): Promise<AudienceZoneCount[]>;
  /** Source lines (first `limit`, in order) of rows without the channel's address. */
  audienceLinesWithout(audienceId: string, channel: Channel, limit: number): Promise<number[]>;

  /** Stores a new campaign, with its plan, as given. */
  createCampaign(c: NewCampaign): Promise<void>;
  /** One of the tenant's campaigns, or null. */
  getCampaign(tenantId: string, id: string): Promise<CampaignRecord | null>;
  /**
   * Applies a caller's action (start, cancel; pause and resume have their own methods) as a
   * guarded update from the statuses CAMPAIGN_TRANSITIONS allows. `plan` replaces the stored
   * plan when given. False when the campaign is not (or no longer) in one of them.
   */
  transitionCampaign(r: CampaignActionRequest): Promise<boolean>;
  /**
   * running → paused, and in the same transaction every ready/retryable delivery of the campaign
   * is held: its next_attempt_at moves to `holdUntil`, the real one is kept. False when not running.
   */
  pauseCampaign(r: CampaignPause): Promise<boolean>;
  /** paused → running, and every held delivery is released: due at its real time, or now if that has passed. False when not paused. */
  resumeCampaign(r: CampaignRef): Promise<boolean>;
  /** Holds ready/retryable deliveries of paused campaigns that are not held yet (a call that ended retryable during the pause); returns how many. */
  holdPausedDeliveries(r: DeliveryHold): Promise<number>;
  /** A page of the tenant's campaigns, newest first (ids sort by creation time). */
  listCampaigns(q: CampaignListQuery): Promise<CampaignPage>;
  /** Running, paused and cancelled campaigns not finished yet, oldest first. */
  listActiveCampaigns(limit: number): Promise<CampaignRecord[]>;
  /**
   * Writes a batch's notifications through intake's own insert path, links their deliveries
   * to the campaign and moves the cursor, in one transaction; false (and nothing written) when
   * the campaign is no longer running or its cursor moved (another runner took the batch).
   */
  fanOutBatch(b: FanOutBatch): Promise<boolean>;
  /** The campaign's ready and retryable deliveries (held ones included). */
  countCampaignQueued(campaignId: string): Promise<number>;
  /** The campaign's deliveries grouped by state, terminal reason, downstream status and hold: one aggregate query. */
  campaignDeliveryCounts(campaignId: string): Promise<CampaignDeliveryCount[]>;
  /** campaignDeliveryCounts for several campaigns in one aggregate query (a page of the list), each group naming its campaign. */
  campaignDeliveryCountsMany(campaignIds: readonly string[]): Promise<CampaignGroupCount[]>;
  /** Up to `limit` of the campaign's refusals after audience position `afterPosition`, in position order. */
  listCampaignRefusals(campaignId: string, afterPosition: number, limit: number): Promise<CampaignRefusal[]>;
  /** The campaign's refusals counted by code. */
  campaignRefusalCounts(campaignId: string): Promise<CampaignRefusalCount[]>;
  /** Up to `limit` of the campaign's ready/retryable deliveries, for cancellation. */
  listCampaignPending(campaignId: string, limit: number): Promise<DeliveryFacts[]>;
  /**
   * Finishes a campaign when nothing more will happen: a running one with every recipient
   * fanned out and no delivery ready, retryable, submitting or unknown becomes `completed`; a
   * cancelled one with nothing ready, retryable or submitting gets its finish time. Returns the
   * action taken, or null when it is not finished yet.
   */
  finishCampaign(r: CampaignFinishRequest): Promise<CampaignFinish | null>;
}
