/**
 * `store.evidence`, written once for both drivers (see ../evidence-store.ts), but for the two
 * batch writes on the evidence path, which are the drivers' own (sqlite/evidence.ts,
 * postgres/evidence.ts). Writes that touch several rows run in one transaction; guarded updates
 * make a concurrent writer a no-op.
 */
import { deliveryKeyOfReference } from '../../domain/index.js';
import { lookupParams, toCallbackEvidence, toLookupEvidence, toPendingEvidence, toUnknownDelivery } from '../evidence-rows.js';
import type {
  DeliveryEvidence,
  EventPruning,
  EvidenceStore,
  EvidenceWrite,
  PendingEvidence,
  PrunedEvents,
  ProviderEventRecord,
  ReconcileDeferral,
  RecordedEvents,
  UnknownDelivery,
  UnknownDueQuery,
  UnknownResolution,
} from '../evidence-store.js';
import { GroupCommit } from '../group-commit.js';
import { type Body, type Executor, allOf, count, list } from '../sql-executor.js';
import type { GuardedTransition } from '../transition-fields.js';

/** Callback events, their application to deliveries, and the reconciler's queue. */
export abstract class EvidencePart implements EvidenceStore {
  constructor(
    protected readonly x: Executor,
    private readonly transition: GuardedTransition,
  ) {}

  /**
   * Callbacks arrive at about twice the send rate, one small request each: those that arrive
   * while one insert is in flight share the next (group-commit.ts), so a burst costs a few
   * statements and commits instead of one each.
   */
  private readonly events = new GroupCommit<ProviderEventRecord, boolean>((batch) => this.insertProviderEvents(batch));

  async recordProviderEvents(events: ProviderEventRecord[]): Promise<RecordedEvents> {
    // A reference is kept as the delivery key it names: on a moved delivery's account the
    // provider echoes that account's own key (domain `accountIdempotencyKey`), and evidence finds
    // the delivery by its delivery key and the account.
    const keyed = events.map((e) => (e.reference === null ? e : { ...e, reference: deliveryKeyOfReference(e.reference, e.providerAccount) }));
    const inserted = (await this.events.run(keyed)).filter(Boolean).length;
    return { inserted, duplicates: events.length - inserted };
  }

  /**
   * Inserts a batch of events in one transaction, skipping any already recorded (same account
   * and event id, including an earlier one of the same batch); per event, whether it was new.
   */
  protected abstract insertProviderEvents(events: ProviderEventRecord[]): Promise<boolean[]>;

  abstract applyEvidence(writes: EvidenceWrite[]): Promise<boolean[]>;

  async listPendingEvidence(limit: number): Promise<PendingEvidence[]> {
    return (await this.x.all('evidence_pending', { limit: Math.max(1, limit) })).map(toPendingEvidence);
  }

  pruneProviderEvents(r: EventPruning): Promise<PrunedEvents> {
    return this.x.transaction(function* () {
      const orphaned = yield* count('provider_events_orphan', { before: r.before, now: r.now });
      const deleted = yield* count('provider_events_delete', { before: r.before });
      return { orphaned, deleted };
    });
  }

  async listUnknownDue(r: UnknownDueQuery): Promise<UnknownDelivery[]> {
    const accounts = r.providerAccounts ? list(r.providerAccounts) : null;
    return (await this.x.all('unknown_due', { now: r.now, limit: Math.max(1, r.limit), accounts })).map(toUnknownDelivery);
  }

  deferReconcile(r: ReconcileDeferral): Promise<boolean> {
    return this.x.transaction(function* () {
      if ((yield* count('reconcile_defer', { id: r.deliveryId, lease_version: r.leaseVersion, at: r.at })) === 0) return false;
      if (r.policy)
        yield* count('attempt_resolve', { delivery_id: r.deliveryId, number: r.attemptNumber, resolution: null, policy: r.policy, failover_reason: null });
      if (r.lookup) yield* count('reconcile_lookup_insert', lookupParams(r.deliveryId, r.attemptNumber, r.lookup));
      return true;
    });
  }

  async resolveUnknown(r: UnknownResolution): Promise<boolean> {
    const account = await this.x.transaction(() => this.resolveBody(r));
    if (account === null) return false;
    // A resend is due now: wake workers in other processes.
    if (r.write.transition.to === 'retryable' || r.write.transition.to === 'ready') this.x.wake([account]);
    return true;
  }

  private *resolveBody(r: UnknownResolution): Body<string | null> {
    const account = yield* this.transition(r.write);
    if (account === null) return null;
    yield* count('attempt_resolve', {
      delivery_id: r.write.deliveryId,
      number: r.attemptNumber,
      resolution: r.resolution,
      policy: r.policy,
      failover_reason: r.write.move?.reason ?? null,
    });
    if (r.lookup) yield* count('reconcile_lookup_insert', lookupParams(r.write.deliveryId, r.attemptNumber, r.lookup));
    return account;
  }

  deliveryEvidence(deliveryId: string, limit: number): Promise<DeliveryEvidence> {
    const params = { delivery_id: deliveryId, limit: Math.max(1, limit) };
    return this.x.reads(function* () {
      // Both read newest first so the limit keeps the latest; shown oldest first.
      const [callbacks, lookups] = yield* allOf([
        ['delivery_callbacks', params],
        ['delivery_lookups', params],
      ]);
      return { callbacks: callbacks!.map(toCallbackEvidence).reverse(), lookups: lookups!.map(toLookupEvidence).reverse() };
    });
  }
}
