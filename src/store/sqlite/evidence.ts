/**
 * The SQLite driver's evidence tables (see src/store/evidence-store.ts). Each method runs one
 * synchronous transaction, like the rest of the driver.
 */
import type { AmbiguityPolicy, Channel } from '../../domain/index.js';
import { changesDelivery, downstreamEvent, toPendingEvidence, toSuppression, toUnknownDelivery } from '../evidence-rows.js';
import type { AttemptResolution, EvidenceWrite, PendingEvidence, ProviderEventRecord, Suppression, UnknownDelivery } from '../evidence-store.js';
import type { Row } from '../rows.js';
import type { TransitionWrite } from '../store.js';
import { transitionPayload } from '../transition-fields.js';
import type { SqliteStore } from './sqlite-store.js';

/** Evidence methods of the SQLite store, over its connection and named statements. */
export class SqliteEvidence {
  constructor(private readonly s: SqliteStore) {}

  recordProviderEvents(events: ProviderEventRecord[]): { inserted: number; duplicates: number } {
    const tx = this.s.db.transaction(() => {
      let inserted = 0;
      for (const e of events) {
        inserted += this.s.stmt('provider_event_insert').run({
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
    return tx.immediate();
  }

  listPendingEvidence(limit: number): PendingEvidence[] {
    return (this.s.stmt('evidence_pending').all({ limit: Math.max(1, limit) }) as Row[]).map(toPendingEvidence);
  }

  applyEvidence(writes: EvidenceWrite[]): boolean[] {
    if (writes.length === 0) return [];
    const tx = this.s.db.transaction(() => writes.map((w) => this.applyOne(w)));
    return tx.immediate();
  }

  private applyOne(w: EvidenceWrite): boolean {
    if (changesDelivery(w)) {
      const t = w.transition;
      const row = this.s.stmt('delivery_evidence_apply').get({
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
        this.s.stmt('outbox_insert').run({
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
        this.s.stmt('attempt_resolve').run({ delivery_id: w.deliveryId, number: w.resolvesAttempt, resolution: 'callback', policy: null });
      }
    }
    if (w.suppress) {
      this.s.stmt('suppression_insert').run({
        tenant_id: w.suppress.tenantId,
        channel: w.suppress.channel,
        destination: w.suppress.destination,
        reason: w.suppress.reason,
        source_delivery_id: w.suppress.sourceDeliveryId,
        now: w.now,
      });
    }
    this.s.stmt('provider_events_settle').run({
      ids: JSON.stringify(w.rowIds),
      delivery_id: w.deliveryId,
      outcome: changesDelivery(w) ? 'applied' : 'no_change',
      now: w.now,
    });
    return true;
  }

  pruneProviderEvents(before: number, now: number): { orphaned: number; deleted: number } {
    const tx = this.s.db.transaction(() => ({
      orphaned: this.s.stmt('provider_events_orphan').run({ before, now }).changes,
      deleted: this.s.stmt('provider_events_delete').run({ before }).changes,
    }));
    return tx.immediate();
  }

  listUnknownDue(r: { now: number; limit: number; providerAccounts?: readonly string[] }): UnknownDelivery[] {
    const accounts = r.providerAccounts ? JSON.stringify(r.providerAccounts) : null;
    return (this.s.stmt('unknown_due').all({ now: r.now, limit: Math.max(1, r.limit), accounts }) as Row[]).map(toUnknownDelivery);
  }

  deferReconcile(r: { deliveryId: string; leaseVersion: number; at: number; attemptNumber: number; policy: AmbiguityPolicy | null }): boolean {
    const tx = this.s.db.transaction(() => {
      const changed = this.s.stmt('reconcile_defer').run({ id: r.deliveryId, lease_version: r.leaseVersion, at: r.at }).changes;
      if (changed === 0) return false;
      if (r.policy) this.s.stmt('attempt_resolve').run({ delivery_id: r.deliveryId, number: r.attemptNumber, resolution: null, policy: r.policy });
      return true;
    });
    return tx.immediate();
  }

  resolveUnknown(r: { write: TransitionWrite; attemptNumber: number; policy: AmbiguityPolicy | null; resolution: AttemptResolution }): boolean {
    const tx = this.s.db.transaction(() => {
      if (!this.s.applyOne(r.write)) return false;
      this.s.stmt('attempt_resolve').run({ delivery_id: r.write.deliveryId, number: r.attemptNumber, resolution: r.resolution, policy: r.policy });
      return true;
    });
    return tx.immediate();
  }

  getSuppression(tenantId: string, channel: Channel, destination: string): Suppression | null {
    const row = this.s.stmt('suppression_get').get({ tenant_id: tenantId, channel, destination }) as Row | undefined;
    return row ? toSuppression(row) : null;
  }

  listSuppressions(tenantId: string, limit: number): Suppression[] {
    return (this.s.stmt('suppressions_list').all({ tenant_id: tenantId, limit: Math.max(1, limit) }) as Row[]).map(toSuppression);
  }
}
