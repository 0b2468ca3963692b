/**
 * The SQLite driver's evidence part (see src/store/evidence-store.ts). Each method runs one
 * synchronous transaction, like the rest of the driver.
 */
import {
  changesDelivery,
  downstreamEvent,
  lookupParams,
  toCallbackEvidence,
  toLookupEvidence,
  toPendingEvidence,
  toUnknownDelivery,
} from '../evidence-rows.js';
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
import type { Row } from '../rows.js';
import { transitionPayload } from '../transition-fields.js';
import type { SqliteContext } from './sql-context.js';
import { applyTransition } from './transitions.js';

/** `store.evidence` of the SQLite store, over its connection and named statements. */
export class SqliteEvidence implements EvidenceStore {
  constructor(private readonly sql: SqliteContext) {}

  async recordProviderEvents(events: ProviderEventRecord[]): Promise<RecordedEvents> {
    return this.sql.write(() => {
      let inserted = 0;
      for (const e of events) {
        inserted += this.sql.stmt('provider_events_insert').run({
          provider_account: e.providerAccount,
          event_id: e.eventId,
          status: e.status,
          provider_message_id: e.providerMessageId,
          reference: e.reference,
          suppress: e.suppress,
          occurred_at: e.occurredAt,
          received_at: e.receivedAt,
        }).changes;
      }
      return { inserted, duplicates: events.length - inserted };
    });
  }

  async listPendingEvidence(limit: number): Promise<PendingEvidence[]> {
    return (this.sql.stmt('evidence_pending').all({ limit: Math.max(1, limit) }) as Row[]).map(toPendingEvidence);
  }

  async applyEvidence(writes: EvidenceWrite[]): Promise<boolean[]> {
    if (writes.length === 0) return [];
    return this.sql.write(() => writes.map((w) => this.applyOne(w)));
  }

  private applyOne(w: EvidenceWrite): boolean {
    if (changesDelivery(w)) {
      const t = w.transition;
      const row = this.sql.stmt('deliveries_evidence_apply').get({
        id: w.deliveryId,
        expect_state: w.expect.state,
        expect_lease_version: w.expect.leaseVersion,
        expect_downstream: w.expect.downstreamStatus,
        to_state: t?.to ?? null,
        terminal_reason: t?.terminalReason ?? null,
        next_attempt_at: t?.nextAttemptAt ?? null,
        downstream_status: w.downstreamStatus,
        provider_message_id: w.providerMessageId,
        now: w.now,
      }) as Row | undefined;
      if (!row) return false;
      const outbox = (eventType: string, payload: string) =>
        this.sql.stmt('outbox_insert').run({
          tenant_id: row.tenant_id,
          notification_id: row.notification_id,
          delivery_id: w.deliveryId,
          event_type: eventType,
          payload_json: payload,
          now: w.now,
        });
      if (t) outbox(`delivery.${t.to}`, transitionPayload({ deliveryId: w.deliveryId, expect: w.expect, transition: t, now: w.now }));
      const ds = downstreamEvent(w);
      if (ds) outbox(ds.eventType, ds.payload);
      if (w.resolvesAttempt !== null) {
        this.sql.stmt('attempt_resolve').run({ delivery_id: w.deliveryId, number: w.resolvesAttempt, resolution: 'callback', policy: null });
      }
    }
    if (w.suppress) {
      this.sql.stmt('suppressions_insert').run({
        tenant_id: w.suppress.tenantId,
        channel: w.suppress.channel,
        destination: w.suppress.destination,
        reason: w.suppress.reason,
        source_delivery_id: w.suppress.sourceDeliveryId,
        now: w.now,
      });
    }
    this.sql.stmt('provider_events_settle').run({
      ids: JSON.stringify(w.rowIds),
      delivery_id: w.deliveryId,
      outcome: changesDelivery(w) ? 'applied' : 'no_change',
      now: w.now,
    });
    return true;
  }

  async pruneProviderEvents(r: EventPruning): Promise<PrunedEvents> {
    return this.sql.write(() => ({
      orphaned: this.sql.stmt('provider_events_orphan').run({ before: r.before, now: r.now }).changes,
      deleted: this.sql.stmt('provider_events_delete').run({ before: r.before }).changes,
    }));
  }

  async listUnknownDue(r: UnknownDueQuery): Promise<UnknownDelivery[]> {
    const accounts = r.providerAccounts ? JSON.stringify(r.providerAccounts) : null;
    return (this.sql.stmt('unknown_due').all({ now: r.now, limit: Math.max(1, r.limit), accounts }) as Row[]).map(toUnknownDelivery);
  }

  async deferReconcile(r: ReconcileDeferral): Promise<boolean> {
    return this.sql.write(() => {
      const changed = this.sql.stmt('reconcile_defer').run({ id: r.deliveryId, lease_version: r.leaseVersion, at: r.at }).changes;
      if (changed === 0) return false;
      if (r.policy) this.sql.stmt('attempt_resolve').run({ delivery_id: r.deliveryId, number: r.attemptNumber, resolution: null, policy: r.policy });
      if (r.lookup) this.sql.stmt('reconcile_lookup_insert').run(lookupParams(r.deliveryId, r.attemptNumber, r.lookup));
      return true;
    });
  }

  async resolveUnknown(r: UnknownResolution): Promise<boolean> {
    return this.sql.write(() => {
      if (!applyTransition(this.sql, r.write)) return false;
      this.sql.stmt('attempt_resolve').run({ delivery_id: r.write.deliveryId, number: r.attemptNumber, resolution: r.resolution, policy: r.policy });
      if (r.lookup) this.sql.stmt('reconcile_lookup_insert').run(lookupParams(r.write.deliveryId, r.attemptNumber, r.lookup));
      return true;
    });
  }

  async deliveryEvidence(deliveryId: string, limit: number): Promise<DeliveryEvidence> {
    const params = { delivery_id: deliveryId, limit: Math.max(1, limit) };
    // Both read newest first so the limit keeps the latest; shown oldest first.
    const callbacks = (this.sql.stmt('delivery_callbacks').all(params) as Row[]).map(toCallbackEvidence).reverse();
    const lookups = (this.sql.stmt('delivery_lookups').all(params) as Row[]).map(toLookupEvidence).reverse();
    return { callbacks, lookups };
  }
}
