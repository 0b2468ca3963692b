/**
 * The Store contract: every read and write Herald makes goes through it. Each driver
 * (sqlite/, and postgres/ later) owns its SQL and passes test/store/conformance.
 *
 * Rules every implementation keeps:
 * - times are epoch milliseconds and are passed in (`now`), never read from a clock;
 * - every delivery state change is a guarded update naming the expected state and lease
 *   version (the fencing token); zero rows changed means a stale writer, reported, not thrown;
 * - intake writes notification, deliveries, outbox event and idempotency record in one transaction.
 */
import type {
  AmbiguityPolicy,
  Channel,
  DeliveryState,
  DownstreamStatus,
  Purpose,
  SubmitOutcome,
  TerminalReason,
  Transition,
  FallbackEvidence,
  LadderName,
} from '../domain/index.js';
import type { MessageContent } from '../domain/index.js';
import type { AttemptResolution, EvidenceStore } from './evidence-store.js';
import type { LimiterStore } from './limiter-store.js';
import type { WebhookStore } from './webhook-store.js';
import type { CampaignStore } from './campaign-store.js';
import type { PreferenceStore } from './preference-store.js';

export interface RecipientInput {
  id: string;
  email?: string | null;
  phone?: string | null;
  push_token?: string | null;
  locale?: string | null;
}

export interface NewDelivery {
  id: string;
  channel: Channel;
  providerAccount: string;
  destination: string;
  idempotencyKey: string;
}

export interface NewNotification {
  id: string;
  tenantId: string;
  recipient: RecipientInput;
  purpose: Purpose;
  channels: Channel[];
  content: MessageContent;
  groupKey: string;
  generation: number;
  metadata: Record<string, unknown> | null;
  expiresAt: number;
  createdAt: number;
  /**
   * With fallback, only deliveries[0] is created now; each later one waits as a pending
   * fallback until the previous channel misses its deadline (afterMs) or ends.
   */
  fallback?: { afterMs: number; evidence: FallbackEvidence } | null;
  /** The producer's retry ladder for every delivery of this notification (overrides account and purpose). */
  retryLadder?: LadderName | null;
  deliveries: NewDelivery[];
}

/** What accepting a notification changed besides itself. */
export interface CreatedNotification {
  /** Older generations' pending deliveries this one superseded. */
  superseded: Array<{ deliveryId: string; channel: Channel; purpose: Purpose }>;
}

/** A pending fallback whose turn may have come, with the facts `decideFallback` needs. */
export interface DueFallback {
  notificationId: string;
  position: number;
  tenantId: string;
  channel: Channel;
  providerAccount: string;
  dueAt: number;
  expiresAt: number;
  evidence: FallbackEvidence;
  afterMs: number;
  previous: { state: DeliveryState; downstreamStatus: DownstreamStatus | null };
}

/**
 * The response an idempotent request stores with the notification, for replay. The
 * fingerprint names the reservation: a request whose lock ran out and was taken over by a
 * different body cannot complete the newcomer's reservation.
 */
export interface IdempotencyCompletion {
  key: string;
  fingerprint: string;
  statusCode: number;
  body: unknown;
}

export type Reservation =
  | { kind: 'reserved' }
  | { kind: 'replay'; statusCode: number; body: unknown }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface AttemptView {
  number: number;
  startedAt: number;
  finishedAt: number | null;
  /** An outcome kind, `lease_expired`, or null while in flight. */
  outcome: string | null;
  providerMessageId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  retryAfterMs: number | null;
  workerId: string;
  /** What the worker reported after its lease had already expired (evidence, kept). */
  lateOutcome: string | null;
  /** For an attempt that ended `unknown`: the provider account's ambiguity policy the reconciler applied. */
  ambiguityPolicy: AmbiguityPolicy | null;
  /** How that ambiguity ended (look-up, callback, policy, window closed), or null while open. */
  resolution: AttemptResolution | null;
}

export interface DeliveryView {
  id: string;
  notificationId: string;
  tenantId: string;
  channel: Channel;
  purpose: Purpose;
  providerAccount: string;
  idempotencyKey: string;
  state: DeliveryState;
  terminalReason: TerminalReason | null;
  downstreamStatus: DownstreamStatus | null;
  providerMessageId: string | null;
  attemptCount: number;
  leaseVersion: number;
  nextAttemptAt: number | null;
  expiresAt: number;
  lastErrorCode: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NotificationView {
  id: string;
  tenantId: string;
  recipientId: string;
  purpose: Purpose;
  channels: Channel[];
  groupKey: string;
  generation: number;
  metadata: Record<string, unknown> | null;
  expiresAt: number;
  createdAt: number;
  deliveries: Array<DeliveryView & { attempts: AttemptView[] }>;
}

export interface DeliveryFilter {
  state?: DeliveryState;
  channel?: Channel;
  purpose?: Purpose;
}

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. Null when this is the last page. */
  nextCursor: string | null;
}

/** Why a delivery is in the review queue: it ended without getting through, or has been `unknown` too long. */
export type ReviewReason = 'exhausted' | 'rejected' | 'unresolved' | 'unknown_overdue';

export type ReviewItem = DeliveryView & { reviewReason: ReviewReason };

/** Which deliveries a bulk replay walks. Times are epoch ms: `createdFrom` inclusive, `createdTo` exclusive. */
export interface ReplayFilter {
  state?: DeliveryState;
  channel?: Channel;
  providerAccount?: string;
  createdFrom?: number;
  createdTo?: number;
}

/** The audit row written with a replay. */
export interface ReplayAudit {
  /** The API key id (or operator) that asked. */
  requestedBy: string;
  acceptDuplicateRisk: boolean;
  note: string | null;
  /** The terminal reason the delivery had, or null when it was not terminal. */
  fromReason: string | null;
}

export interface ReplayRecord extends ReplayAudit {
  deliveryId: string;
  tenantId: string;
  fromState: DeliveryState;
  createdAt: number;
}

/** What a notification was asked to send, as stored: enough to send it again as a new generation. */
export type NotificationSource = Omit<NewNotification, 'deliveries' | 'fallback' | 'retryLadder'>;

/** A delivery a worker now owns: the attempt row and lease are committed. */
export interface ClaimedDelivery {
  deliveryId: string;
  notificationId: string;
  tenantId: string;
  channel: Channel;
  purpose: Purpose;
  providerAccount: string;
  destination: string;
  content: MessageContent;
  idempotencyKey: string;
  expiresAt: number;
  attemptNumber: number;
  leaseVersion: number;
  leaseUntil: number;
  /** The notification's own ladder choice, if the producer made one. */
  retryLadder: LadderName | null;
}

export interface ClaimRequest {
  providerAccount: string;
  /** Only deliveries of these purposes (one lane's); every purpose when absent. */
  purposes?: readonly Purpose[];
  workerId: string;
  now: number;
  leaseMs: number;
  limit: number;
}

/** A delivery as a sweeper sees it: enough to ask `decide` and to guard the write. */
export interface DeliveryFacts {
  deliveryId: string;
  state: DeliveryState;
  attemptCount: number;
  leaseVersion: number;
  expiresAt: number;
  nextAttemptAt: number | null;
}

/** One guarded transition. Applied only if the row is still in `expect`. */
export interface TransitionWrite {
  deliveryId: string;
  expect: { state: DeliveryState; leaseVersion: number };
  transition: Transition;
  now: number;
  /** Closes the open attempt with what the call (or the lease rescuer) learned. */
  attempt?: { number: number; outcome: SubmitOutcome | { kind: 'lease_expired' } };
}

export interface TransitionResult {
  deliveryId: string;
  applied: boolean;
}

export interface ApiKeyRecord {
  id: string;
  tenantId: string;
}

export interface Store extends EvidenceStore, LimiterStore, WebhookStore, CampaignStore, PreferenceStore {
  readonly driver: 'sqlite' | 'postgres';
  /** Applies pending numbered migrations; returns the names applied now. */
  migrate(): Promise<string[]>;
  /** Releases connections; calling it again is a no-op. */
  close(): Promise<void>;

  ensureTenant(tenant: { id: string; name: string }, now: number): Promise<void>;
  createApiKey(key: { id: string; tenantId: string; keyHash: string; label: string; now: number }): Promise<void>;
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null>;
  /** True when at least one unrevoked API key exists (first-start bootstrap checks this). */
  hasApiKeys(): Promise<boolean>;

  /**
   * Takes the (tenant, key) pair for one request, or says why not: a completed request with
   * the same fingerprint is replayed, a different fingerprint is a mismatch, and a live lock
   * held by another request is in progress. A lock older than `lockMs` is taken over (its
   * holder crashed before committing).
   */
  reserveIdempotencyKey(r: {
    tenantId: string;
    key: string;
    fingerprint: string;
    now: number;
    lockMs: number;
    retentionMs: number;
  }): Promise<Reservation>;
  /** Drops an uncompleted reservation, so a request that failed before committing may be retried. */
  releaseIdempotencyKey(r: { tenantId: string; key: string }): Promise<void>;
  /** Stores a response for a reserved key outside intake (e.g. an error that must replay). */
  completeIdempotencyKey(r: { tenantId: string; key: string; fingerprint: string; statusCode: number; body: unknown }): Promise<void>;
  /** Deletes keys past retention: completed ones, and reservations whose lock also ran out (their holder died). */
  pruneIdempotencyKeys(now: number): Promise<number>;

  /**
   * Writes the notification, its `ready` deliveries, a `notification.created` outbox event
   * and (when given) the completed idempotency record in one transaction. Throws
   * `StoreConflictError` when a delivery key already exists (the same challenge generation).
   */
  createNotification(n: NewNotification, idempotency?: IdempotencyCompletion & { tenantId: string }): Promise<CreatedNotification>;
  getNotification(tenantId: string, id: string): Promise<NotificationView | null>;
  /**
   * Lists a tenant's deliveries newest first. Delivery ids are ULIDs (time-ordered), so the
   * order is by id descending and the cursor is the last id returned.
   */
  listDeliveries(tenantId: string, filter: DeliveryFilter, cursor: string | null, limit: number): Promise<Page<DeliveryView>>;
  getDelivery(id: string): Promise<DeliveryView | null>;

  /**
   * Claims up to `limit` due deliveries of one provider account in one transaction: each
   * gets a new lease version, state `submitting`, and an open attempt row, all committed
   * before this resolves. Deliveries at or past expiry are never claimed.
   */
  claimBatch(req: ClaimRequest): Promise<ClaimedDelivery[]>;
  /**
   * Extends the leases of deliveries still held by `workerId` under the given fencing tokens
   * (a long call must not be declared `unknown` while it runs); returns the ids renewed.
   */
  renewLeases(r: { leases: Array<{ deliveryId: string; leaseVersion: number }>; workerId: string; leaseUntil: number; now: number }): Promise<string[]>;
  /** Applies guarded transitions in one transaction; each result says whether it applied. */
  applyTransitions(writes: TransitionWrite[]): Promise<TransitionResult[]>;
  /** Records what a worker learned after its lease was gone, on the attempt row; changes no state. */
  recordLateOutcome(r: { deliveryId: string; attemptNumber: number; outcome: SubmitOutcome }): Promise<void>;
  /** `submitting` deliveries whose lease ended at or before `now`. */
  listExpiredLeases(now: number, limit: number): Promise<DeliveryFacts[]>;
  /** `ready`/`retryable` deliveries whose `expires_at` is at or before `now`. */
  listExpiredPending(now: number, limit: number): Promise<DeliveryFacts[]>;
  /** Earliest `next_attempt_at` among an account's ready/retryable deliveries (of these purposes, when given) not yet expired at `now`, or null. */
  nextDueAt(providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null>;
  /**
   * The tenant's review queue, newest first (cursor as in listDeliveries): `terminal`
   * deliveries that ended exhausted, rejected or unresolved, and `unknown` deliveries not
   * updated since `now - unknownAfterMs` (reconciliation has not settled them).
   */
  listReview(tenantId: string, opts: { now: number; unknownAfterMs: number }, cursor: string | null, limit: number): Promise<Page<ReviewItem>>;
  /**
   * An operator's replay: the guarded transition (as in applyTransitions, outbox event
   * included) and its `replays` audit row in one transaction. False when the guard refused
   * (the delivery changed since it was read); then nothing is written.
   */
  replayDelivery(r: { write: TransitionWrite; audit: ReplayAudit }): Promise<boolean>;
  /** The replays of one of the tenant's deliveries, oldest first. */
  listReplays(tenantId: string, deliveryId: string): Promise<ReplayRecord[]>;
  /**
   * Deliveries a bulk replay considers: the tenant's deliveries matching the filter in a state
   * a replay can start from (`unknown`, `retryable`, `terminal`), oldest first by id, after `afterId`.
   */
  listReplayCandidates(tenantId: string, filter: ReplayFilter, afterId: string | null, limit: number): Promise<DeliveryView[]>;
  /** The stored request of a notification (for a resend), or null (unknown id or another tenant's). */
  getNotificationSource(tenantId: string, id: string): Promise<NotificationSource | null>;
  /** The highest generation of a challenge group of the tenant, or null when the group has none. */
  latestGeneration(tenantId: string, groupKey: string): Promise<number | null>;
  /** Adds a batch's call counts to the account's health bucket (shared by every worker). */
  recordProviderCalls(r: { providerAccount: string; bucketStart: number; calls: number; failures: number }): Promise<void>;
  /** Calls and retryable/throttled failures of an account since `since` (bucket starts at or after it). */
  providerHealth(providerAccount: string, since: number): Promise<{ calls: number; failures: number }>;
  /** Drops health buckets that started before `before`. */
  pruneProviderHealth(before: number): Promise<number>;
  /** Pending fallbacks past their deadline, or whose previous channel already ended. */
  listDueFallbacks(now: number, limit: number): Promise<DueFallback[]>;
  /**
   * Acts on one pending fallback in one transaction: `create` turns it into a ready delivery
   * and starts the next channel's deadline (`nextDueAt`); `drop` deletes it and every later channel of the
   * notification. False when another sweeper already took it.
   */
  resolveFallback(r: { notificationId: string; position: number; action: 'create' | 'drop'; now: number; nextDueAt: number }): Promise<boolean>;
  /** Counts of deliveries per state, for health and tests. */
  countByState(): Promise<Record<DeliveryState, number>>;
  /**
   * Calls `onReady(providerAccount)` when another process commits new ready work, where the
   * driver can tell (Postgres LISTEN/NOTIFY). Resolves with an unsubscribe function; drivers
   * without cross-process signals resolve with a no-op and workers rely on polling.
   */
  listenForReady(onReady: (providerAccount: string) => void): Promise<() => Promise<void>>;
}

/** A write that would break a uniqueness rule Herald relies on (e.g. one delivery per identity). */
export class StoreConflictError extends Error {
  readonly code = 'store_conflict';
  constructor(
    message: string,
    readonly detail: { constraint: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreConflictError';
  }
}
