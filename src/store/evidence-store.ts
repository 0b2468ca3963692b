/**
 * The evidence part of the Store contract (`store.evidence`): provider callback events
 * (deduplicated by the provider's event id, parked until their delivery is known), merging them
 * into their deliveries (which may suppress an address: the suppression list itself is the
 * preferences part's), the reconciler's queue of `unknown` deliveries and the record of its
 * look-ups, and one delivery's evidence as the API shows it. Both drivers implement it and pass
 * test/store/evidence-conformance.ts and test/store/dashboard-reads-conformance.ts.
 */
import type { AmbiguityPolicy, Channel, DeliveryState, DownstreamStatus, LadderName, Purpose, TerminalReason } from '../domain/index.js';
import type { CallbackEvent } from '../domain/index.js';
import type { AttemptResolution, TransitionWrite } from './core-store.js';
import type { NewSuppression } from './preference-store.js';

/** A verified callback event as received for one provider account. */
export interface ProviderEventRecord extends CallbackEvent {
  providerAccount: string;
  receivedAt: number;
}

/** The delivery an event was matched to, with what merging evidence into it needs. */
export interface EvidenceTarget {
  deliveryId: string;
  tenantId: string;
  notificationId: string;
  channel: Channel;
  destination: string;
  state: DeliveryState;
  terminalReason: TerminalReason | null;
  downstreamStatus: DownstreamStatus | null;
  providerMessageId: string | null;
  attemptCount: number;
  leaseVersion: number;
  expiresAt: number;
  nextAttemptAt: number | null;
  /** True once the delivery has moved along its route (`origin_account` set): only then can two accounts report it. */
  moved: boolean;
}

/** A parked event whose delivery is now known and not in flight. */
export interface PendingEvidence {
  rowId: number;
  providerAccount: string;
  eventId: string;
  status: DownstreamStatus;
  providerMessageId: string | null;
  reference: string | null;
  suppress: 'bounced' | 'complained' | null;
  receivedAt: number;
  delivery: EvidenceTarget;
}

/** What an evidence write expects the delivery to still be: state, fencing token and downstream status. */
export interface EvidenceGuard {
  state: DeliveryState;
  leaseVersion: number;
  downstreamStatus: DownstreamStatus | null;
}

/**
 * Every parked event of one delivery merged at once, applied only if the delivery is still as
 * read (state, fencing token and downstream status): a concurrent writer makes it a no-op,
 * and the events stay parked for the next pass.
 */
export interface EvidenceWrite {
  rowIds: number[];
  deliveryId: string;
  expect: EvidenceGuard;
  /** The merged downstream status (may equal the current one: then only the events are marked). */
  downstreamStatus: DownstreamStatus | null;
  /** A state change the evidence causes (e.g. unknown → accepted), decided by `decide`. */
  transition: TransitionWrite['transition'] | null;
  /** The provider's id for the message, learned from the event. */
  providerMessageId: string | null;
  /** The attempt whose ambiguity a callback settled: its resolution becomes `callback`. */
  resolvesAttempt: number | null;
  /** A hard bounce or complaint: the address goes on the tenant's suppression list, in the same transaction. */
  suppress: NewSuppression | null;
  now: number;
}

/** An `unknown` delivery the reconciler should look at now. */
export interface UnknownDelivery {
  deliveryId: string;
  tenantId: string;
  providerAccount: string;
  channel: Channel;
  purpose: Purpose;
  /** The key the unknown attempt was sent under on `providerAccount` (the delivery key, or after a move that account's own). */
  idempotencyKey: string;
  attemptCount: number;
  leaseVersion: number;
  expiresAt: number;
  /** When it became unknown (the row's last state change). */
  unknownSince: number;
  retryLadder: LadderName | null;
  /** The producer named the account (`provider_accounts`): it never fails over. */
  accountPinned: boolean;
}

/** What recording a batch of events did: how many were new, how many were already recorded. */
export interface RecordedEvents {
  inserted: number;
  duplicates: number;
}

/** Parked events past retention: unmatched ones received before `before` are orphaned, settled ones older than it deleted. */
export interface EventPruning {
  before: number;
  now: number;
}

export interface PrunedEvents {
  orphaned: number;
  deleted: number;
}

/** Which `unknown` deliveries the reconciler asks for: due at `now`, of these accounts when given. */
export interface UnknownDueQuery {
  now: number;
  limit: number;
  providerAccounts?: readonly string[];
}

/** What a reconciliation look-up found; the schema's CHECK repeats the list. */
export const LOOKUP_RESULTS = ['found', 'not_found', 'no_answer'] as const;
export type LookupResultKind = (typeof LOOKUP_RESULTS)[number];

/** What a look-up's answer led to; the schema's CHECK repeats the list. */
export const LOOKUP_LED_TO = ['accepted', 'retryable', 'unresolved', 'asked_later'] as const;
export type LookupLedTo = (typeof LOOKUP_LED_TO)[number];

/** One look-up the reconciler made, recorded with the write it led to (reconcile_lookups). */
export interface LookupRecord {
  at: number;
  result: LookupResultKind;
  ledTo: LookupLedTo;
  providerMessageId: string | null;
  /** The adapter's error code for `no_answer` (a code, never the provider's text). */
  errorCode: string | null;
}

/** Puts off reconciling an `unknown` delivery until `at`, recording the ambiguity policy in force on its attempt. */
export interface ReconcileDeferral {
  deliveryId: string;
  leaseVersion: number;
  at: number;
  attemptNumber: number;
  policy: AmbiguityPolicy | null;
  /** The look-up that found no answer yet, recorded in the same transaction. */
  lookup?: LookupRecord | null;
}

/** The guarded transition that ends an attempt's ambiguity, with the policy and resolution for the attempt. */
export interface UnknownResolution {
  write: TransitionWrite;
  attemptNumber: number;
  policy: AmbiguityPolicy | null;
  resolution: AttemptResolution;
  /** The look-up whose answer ended it, recorded in the same transaction. */
  lookup?: LookupRecord | null;
}

/**
 * How a callback event fared: `applied` moved the delivery (state or downstream status),
 * `no_change` was merged but moved nothing (a late or repeated status: the lattice never goes
 * back), `pending` is parked (the delivery is in flight or the applier has not run yet).
 */
export type CallbackFate = 'applied' | 'no_change' | 'pending';

/** One provider callback event of a delivery, as its evidence shows it. */
export interface CallbackEvidence {
  providerAccount: string;
  eventId: string;
  status: DownstreamStatus;
  providerMessageId: string | null;
  occurredAt: number | null;
  receivedAt: number;
  appliedAt: number | null;
  fate: CallbackFate;
}

/** One reconciliation look-up of a delivery, as its evidence shows it. */
export interface LookupEvidence {
  attemptNumber: number;
  lookedAt: number;
  result: LookupResultKind;
  ledTo: LookupLedTo;
  providerMessageId: string | null;
  errorCode: string | null;
}

/** What happened downstream of one delivery: its callbacks and look-ups, each oldest first. */
export interface DeliveryEvidence {
  callbacks: CallbackEvidence[];
  lookups: LookupEvidence[];
}

/** `store.evidence`; implemented by sqlite/evidence.ts and postgres/evidence.ts. */
export interface EvidenceStore {
  /**
   * Records verified events in one transaction, ignoring ones already recorded (same account
   * and event id). Throws on a database fault, so the caller can answer 5xx and the provider retries.
   */
  recordProviderEvents(events: ProviderEventRecord[]): Promise<RecordedEvents>;
  /** Parked events, oldest first, whose delivery is known (by provider message id, else by reference) and not `submitting`. */
  listPendingEvidence(limit: number): Promise<PendingEvidence[]>;
  /** Applies each write in one transaction (outbox events and suppressions included); each result says whether it applied. */
  applyEvidence(writes: EvidenceWrite[]): Promise<boolean[]>;
  /** Marks parked events received before `before` that never matched a delivery as orphaned; deletes settled events older than `before`. */
  pruneProviderEvents(r: EventPruning): Promise<PrunedEvents>;

  /** `unknown` deliveries whose next reconciliation time has come (NULL: at once), oldest first. */
  listUnknownDue(r: UnknownDueQuery): Promise<UnknownDelivery[]>;
  /**
   * Sets when the reconciler looks at an `unknown` delivery again and records the ambiguity
   * policy in force on its attempt; false when the delivery moved on (state or fencing token).
   */
  deferReconcile(r: ReconcileDeferral): Promise<boolean>;
  /** The guarded transition that ends an attempt's ambiguity, with the policy and resolution recorded on the attempt, in one transaction. */
  resolveUnknown(r: UnknownResolution): Promise<boolean>;

  /**
   * A delivery's evidence, each list oldest first and at most `limit` long (the oldest kept):
   * callbacks merged into it, callbacks parked that name it (by provider message id or its
   * idempotency key), and the reconciler's look-ups.
   */
  deliveryEvidence(deliveryId: string, limit: number): Promise<DeliveryEvidence>;
}
