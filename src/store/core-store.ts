/**
 * The core of the Store contract: tenants and API keys, intake's writes (idempotency keys,
 * notifications with their deliveries), and the delivery state machine's table as workers and
 * sweepers use it (claims, leases, guarded transitions). The other parts (store.ts) build on the
 * records named here, so this file imports nothing from the store: it is the contract's leaf.
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
  FailoverReason,
  HoldReason,
  FallbackEvidence,
  LadderName,
  MessageContent,
  Purpose,
  RolloutDecision,
  SubmitOutcome,
  TerminalReason,
  Transition,
} from '../domain/index.js';

export interface RecipientInput {
  id: string;
  email?: string | null;
  phone?: string | null;
  push_token?: string | null;
  locale?: string | null;
  /** IANA time zone for quiet hours; on a notification it wins over the stored profile's. */
  time_zone?: string | null;
}

export interface NewTenant {
  id: string;
  name: string;
}

/**
 * What an API key may do (docs/tenants.md): `send` notifications, `read` what was sent, `operate`
 * (retry, replay, resend, cancel), `admin` the tenant (keys, webhooks, templates, suppressions),
 * sign in to the `dashboard`, and `tenants`, the operator's: create tenants and assign provider
 * accounts. src/http/route-scopes.ts maps every route to one.
 */
export const API_KEY_SCOPES = ['send', 'read', 'operate', 'admin', 'dashboard', 'tenants'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export interface NewApiKey {
  id: string;
  tenantId: string;
  keyHash: string;
  label: string;
  now: number;
  /** Default: every scope (the bootstrap key and `herald keys create` without --scope are the operator's). */
  scopes?: readonly ApiKeyScope[];
  /** Refused from this time on (epoch ms); default never. */
  expiresAt?: number | null;
}

/** The unrevoked key a request's hash found. */
export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  scopes: ApiKeyScope[];
  /** Null: never expires. The caller compares it with its clock. */
  expiresAt: number | null;
  /** When a request last used it (written at most once a minute), null if never. */
  lastUsedAt: number | null;
}

export interface NewDelivery {
  id: string;
  channel: Channel;
  providerAccount: string;
  destination: string;
  idempotencyKey: string;
}

/** A notification's fallback plan: the next channel is tried when the previous one has not shown `evidence` within `afterMs`. */
export interface FallbackPlan {
  afterMs: number;
  evidence: FallbackEvidence;
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
   * When its deliveries become due (`send_at`, docs/scheduling.md): their `next_attempt_at`.
   * Absent: at once (`createdAt`).
   */
  dueAt?: number;
  /**
   * With fallback, only deliveries[0] is created now; each later one waits as a pending
   * fallback until the previous channel misses its deadline (afterMs) or ends.
   */
  fallback?: FallbackPlan | null;
  /** The producer's retry ladder for every delivery of this notification (overrides account and purpose). */
  retryLadder?: LadderName | null;
  /** The channels whose account the producer named (`provider_accounts`): their deliveries never fail over. */
  pinnedChannels?: Channel[] | null;
  deliveries: NewDelivery[];
}

/** An older generation's pending delivery that a new notification superseded. */
export interface SupersededDelivery {
  deliveryId: string;
  channel: Channel;
  purpose: Purpose;
}

/** What accepting a notification changed besides itself. */
export interface CreatedNotification {
  superseded: SupersededDelivery[];
}

/** One notification of a batch, with the completion of its own idempotency key when the item had one. */
export interface BatchNotification {
  notification: NewNotification;
  idempotency?: TenantIdempotencyCompletion;
}

/**
 * What became of one item of `createNotifications`: written (with what it superseded), or
 * refused by a uniqueness rule, exactly as `createNotification` would have thrown it alone
 * (its `detail.constraint` says which); nothing of a refused item is written.
 */
export type BatchItemOutcome = { ok: true; superseded: SupersededDelivery[] } | { ok: false; conflict: StoreConflictError } | { ok: false; key: KeyRefusal };

/**
 * Why `createNotifications` with `BatchKeyTerms` did not take an item's key: what
 * `reserveIdempotencyKey` would have answered instead of `reserved`. Nothing of the item was written.
 */
export type KeyRefusal = Exclude<Reservation, { kind: 'reserved' }>;

/**
 * The terms on which `createNotifications` takes the items' keys itself, in the batch's own
 * transaction, instead of reservations made beforehand: reserveIdempotencyKey's `now`, `lockMs`
 * and `retentionMs` (the request's fingerprint is the completion's).
 */
export interface BatchKeyTerms {
  now: number;
  lockMs: number;
  retentionMs: number;
}

/** One (tenant, idempotency key) pair: what a release names. */
export interface IdempotencyKeyRef {
  tenantId: string;
  key: string;
}

/** A request's claim on an idempotency key, with how long its lock and its stored response last. */
export interface IdempotencyRequest extends IdempotencyKeyRef {
  fingerprint: string;
  now: number;
  lockMs: number;
  retentionMs: number;
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

/** An IdempotencyCompletion for one tenant's key: what createNotification and completeIdempotencyKey store. */
export interface TenantIdempotencyCompletion extends IdempotencyCompletion {
  tenantId: string;
}

/** `mismatch` carries the key's stored fingerprint, so intake can tell a `send_at_conflict` (see intake/fingerprint.ts). */
export type Reservation =
  { kind: 'reserved' } | { kind: 'replay'; statusCode: number; body: unknown } | { kind: 'mismatch'; fingerprint: string } | { kind: 'in_progress' };

/** How an attempt's ambiguity ended, recorded on the attempt; the schema's CHECK repeats the list. */
export const ATTEMPT_RESOLUTIONS = ['found_by_lookup', 'not_found_by_lookup', 'callback', 'window_closed', 'policy_resend', 'policy_user_resend'] as const;
export type AttemptResolution = (typeof ATTEMPT_RESOLUTIONS)[number];

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
  /** The decision taken on the outcome at the account's rollout stage; null for an attempt a worker did not decide (open, rescued, not sent). */
  decision: RolloutDecision | null;
  /** The decision the account's next rollout stage would have taken (at `full`: the same); null with `decision`. */
  nextStageDecision: RolloutDecision | null;
  /** The provider account the attempt used (null on attempts made before migration 0031). */
  providerAccount: string | null;
  /** Why the delivery moved to another account of its route after this attempt's answer; null when it stayed. */
  failoverReason: FailoverReason | null;
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
  /** Why the send-time check last held or ended it instead of calling (quiet hours, a frequency cap); null when it never did. */
  holdReason: HoldReason | null;
  createdAt: number;
  updatedAt: number;
}

/** A delivery with its attempts, oldest first, as a notification shows it. */
export type DeliveryWithAttempts = DeliveryView & { attempts: AttemptView[] };

export interface NotificationView {
  id: string;
  tenantId: string;
  recipientId: string;
  purpose: Purpose;
  channels: Channel[];
  groupKey: string;
  generation: number;
  metadata: Record<string, unknown> | null;
  /** What the notification says, as stored (the API shows what is derived from it, e.g. SMS segments, never the text). */
  content: MessageContent;
  expiresAt: number;
  createdAt: number;
  deliveries: DeliveryWithAttempts[];
}

/** The delivery list's filters (GET /v1/deliveries); every one given must hold. */
export interface DeliveryFilter {
  state?: DeliveryState;
  channel?: Channel;
  purpose?: Purpose;
  terminalReason?: TerminalReason;
  downstreamStatus?: DownstreamStatus;
  providerAccount?: string;
  campaignId?: string;
  /** An android_gateway phone: deliveries it was offered. */
  deviceId?: string;
  /** Created at or after (epoch ms). */
  since?: number;
  /** Created before (epoch ms). */
  until?: number;
  /** Exactly a delivery id, a notification id, a recipient id or an operation id (the notification's group key). */
  q?: string;
  /** Only failed messages, by the one definition (src/domain/failed-message.ts, the failed_messages view); false or absent: no such filter. */
  failed?: boolean;
}

/** A row of the delivery list: the delivery and what the dashboard shows beside it. */
export interface DeliveryListItem extends DeliveryView {
  destination: string;
  recipientId: string;
  /** The notification's group key: the producer's operation (a sign-in challenge, an order). */
  operationId: string;
  campaignId: string | null;
  /** The phone of the delivery's latest offer (android_gateway accounts), else null. */
  deviceId: string | null;
}

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to get the next page. Null when this is the last page. */
  nextCursor: string | null;
}

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
  /** The key this attempt is sent under: the delivery key, or after a move to another account that account's own (domain `accountIdempotencyKey`). */
  idempotencyKey: string;
  expiresAt: number;
  attemptNumber: number;
  leaseVersion: number;
  leaseUntil: number;
  /** The notification's own ladder choice, if the producer made one. */
  retryLadder: LadderName | null;
  /** When intake created the notification (herald_intake_to_acceptance_seconds starts here). */
  notificationCreatedAt: number;
  /** The producer named this delivery's account (`provider_accounts`): it never fails over. */
  accountPinned: boolean;
}

export interface ClaimRequest {
  providerAccount: string;
  /** Only deliveries of these purposes (one lane's); every purpose when absent. */
  purposes?: readonly Purpose[];
  /** Only these deliveries, when due (the API process's fast path for a code it has just committed); any due one when absent. */
  deliveryIds?: readonly string[];
  /** Only this tenant's deliveries (a tenant with a rate share claims with its own limiter row); any tenant's when absent. */
  tenantId?: string;
  /** None of these tenants' deliveries (the claim of everybody without a share); no tenant left out when absent. */
  exceptTenants?: readonly string[];
  workerId: string;
  now: number;
  leaseMs: number;
  limit: number;
}

/** A lease a worker holds: the delivery and the fencing token its claim got. */
export interface HeldLease {
  deliveryId: string;
  leaseVersion: number;
}

export interface LeaseRenewal {
  leases: HeldLease[];
  workerId: string;
  leaseUntil: number;
  now: number;
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

/** The state and fencing token a guarded write expects the delivery to still have. */
export interface TransitionGuard {
  state: DeliveryState;
  leaseVersion: number;
}

/** What closes the open attempt: the call's outcome, or the lease rescuer's `lease_expired`. */
export interface AttemptClose {
  number: number;
  outcome: SubmitOutcome | { kind: 'lease_expired' };
  /** The worker's rollout decisions on the call's outcome (src/domain/rollout.ts), stored on the attempt. */
  decisions?: AttemptDecisions;
}

/** What Herald decided on an attempt's outcome at the account's rollout stage, and what the next stage would decide. */
export interface AttemptDecisions {
  decision: RolloutDecision;
  nextStageDecision: RolloutDecision;
}

/** One guarded transition. Applied only if the row is still in `expect`. */
export interface TransitionWrite {
  deliveryId: string;
  expect: TransitionGuard;
  transition: Transition;
  now: number;
  /** Closes the open attempt with what the call (or the lease rescuer) learned. */
  attempt?: AttemptClose;
  /**
   * Failover (docs/routing.md): the account of its route the delivery moves to, in this same
   * write, and why; the reason is kept on the attempt whose answer moved it.
   */
  move?: FailoverMove;
}

/** A delivery's move to another account of its route, and the reason kept on the attempt. */
export interface FailoverMove {
  to: string;
  reason: FailoverReason;
}

export interface TransitionResult {
  deliveryId: string;
  applied: boolean;
}

/** What a worker learned after its lease was gone, for the attempt row. */
export interface LateOutcome {
  deliveryId: string;
  attemptNumber: number;
  outcome: SubmitOutcome;
}

/** Deliveries per state (every state present, zero when none). */
export type DeliveryStateCounts = Record<DeliveryState, number>;

/** Told the provider account whose ready work another process committed. */
export type ReadyListener = (providerAccount: string) => void;
/** Stops a listener; resolves once it is stopped. */
export type Unsubscribe = () => Promise<void>;

/** The core methods, implemented by sqlite/sqlite-store.ts and postgres/postgres-store.ts themselves; `Store` (store.ts) adds migrations, close and the named parts. */
export interface CoreStore {
  /** Creates the tenant unless it exists (then it is left as it was). */
  ensureTenant(tenant: NewTenant, now: number): Promise<void>;
  /** Stores a new API key (its hash, never the key). */
  createApiKey(key: NewApiKey): Promise<void>;
  /** The unrevoked API key with this hash, or null. */
  findApiKey(keyHash: string): Promise<ApiKeyRecord | null>;
  /** True when at least one unrevoked API key exists (first-start bootstrap checks this). */
  hasApiKeys(): Promise<boolean>;

  /**
   * Takes the (tenant, key) pair for one request, or says why not: a completed request with
   * the same fingerprint is replayed, a different fingerprint is a mismatch, and a live lock
   * held by another request is in progress. A lock older than `lockMs` is taken over (its
   * holder crashed before committing).
   */
  reserveIdempotencyKey(r: IdempotencyRequest): Promise<Reservation>;
  /** Drops an uncompleted reservation, so a request that failed before committing may be retried. */
  releaseIdempotencyKey(r: IdempotencyKeyRef): Promise<void>;
  /** Stores a response for a reserved key outside intake (e.g. an error that must replay). */
  completeIdempotencyKey(r: TenantIdempotencyCompletion): Promise<void>;
  /** Deletes keys past retention: completed ones, and reservations whose lock also ran out (their holder died). */
  pruneIdempotencyKeys(now: number): Promise<number>;

  /**
   * Writes the notification, its `ready` deliveries, a `notification.created` outbox event
   * and (when given) the completed idempotency record in one transaction. Throws
   * `StoreConflictError` when a delivery key already exists (the same challenge generation).
   */
  createNotification(n: NewNotification, idempotency?: TenantIdempotencyCompletion): Promise<CreatedNotification>;
  /**
   * Writes many notifications in one transaction (POST /v1/notifications/batch): each item
   * exactly as `createNotification` writes it (deliveries, outbox event, idempotency
   * completion, supersede of older generations, items of one group in the order given), with
   * multi-row statements where the driver can. An item a uniqueness rule refuses is rolled
   * back alone and answered `{ok: false}`; the others commit together, so after a crash
   * either every written item of the call is stored or none is. Any other failure rejects
   * and nothing is written. Workers are woken once for the call, after its commit.
   *
   * Without `keys`, each item's key must be reserved beforehand (reserveIdempotencyKey) and is
   * completed here. With `keys`, no reservation is made: each key is taken in this call's
   * transaction as reserveIdempotencyKey would decide it (a new or expired key, a lapsed lock)
   * and stored completed with the item, one write and no commit of its own; an item whose key
   * is not taken is answered `{ok: false, key}` and nothing of it is written. An item refused by
   * a uniqueness rule then leaves its key as it found it.
   */
  createNotifications(items: BatchNotification[], keys?: BatchKeyTerms): Promise<BatchItemOutcome[]>;
  /** The tenant's notification with its deliveries and their attempts, read from one snapshot, or null. */
  getNotification(tenantId: string, id: string): Promise<NotificationView | null>;
  /**
   * Lists a tenant's deliveries newest first. Delivery ids are ULIDs (time-ordered), so the
   * order is by id descending and the cursor is the last id returned.
   */
  listDeliveries(tenantId: string, filter: DeliveryFilter, cursor: string | null, limit: number): Promise<Page<DeliveryListItem>>;
  /** One delivery of any tenant, or null. */
  getDelivery(id: string): Promise<DeliveryView | null>;
  /** The highest generation of a challenge group of the tenant, or null when the group has none. */
  latestGeneration(tenantId: string, groupKey: string): Promise<number | null>;

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
  renewLeases(r: LeaseRenewal): Promise<string[]>;
  /** Applies guarded transitions in one transaction; each result says whether it applied. */
  applyTransitions(writes: TransitionWrite[]): Promise<TransitionResult[]>;
  /** Records what a worker learned after its lease was gone, on the attempt row; changes no state. */
  recordLateOutcome(r: LateOutcome): Promise<void>;
  /** `submitting` deliveries whose lease ended at or before `now`. */
  listExpiredLeases(now: number, limit: number): Promise<DeliveryFacts[]>;
  /** `ready`/`retryable` deliveries whose `expires_at` is at or before `now`. */
  listExpiredPending(now: number, limit: number): Promise<DeliveryFacts[]>;
  /** Earliest `next_attempt_at` among an account's ready/retryable deliveries (of these purposes, when given) not yet expired at `now`, or null. */
  nextDueAt(providerAccount: string, now: number, purposes?: readonly Purpose[]): Promise<number | null>;
  /** Counts of deliveries per state, for health and tests. */
  countByState(): Promise<DeliveryStateCounts>;
  /**
   * Calls `onReady(providerAccount)` when another process commits new ready work, where the
   * driver can tell (Postgres LISTEN/NOTIFY). Resolves with an unsubscribe function; drivers
   * without cross-process signals resolve with a no-op and workers rely on polling.
   */
  listenForReady(onReady: ReadyListener): Promise<Unsubscribe>;
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
