/**
 * The SQLite driver's own part of `store.evidence` (the rest: parts/evidence.ts): the two batch
 * writes, one row per statement inside one synchronous transaction. Dialect-specific: PostgreSQL
 * writes each batch in a few statements over arrays.
 */
import { changesDelivery, downstreamEvent } from '../evidence-rows.js';
import type { EvidenceWrite, ProviderEventRecord } from '../evidence-store.js';
import { EvidencePart } from '../parts/evidence.js';
import type { Row } from '../rows.js';
import { transitionPayload } from '../transition-fields.js';
import type { SqliteContext } from './sql-context.js';
import { guardedTransition } from './transitions.js';

/** `store.evidence` of the SQLite store. */
export class SqliteEvidence extends EvidencePart {
  constructor(private readonly sql: SqliteContext) {
    super(sql, guardedTransition);
  }

  protected async insertProviderEvents(events: ProviderEventRecord[]): Promise<boolean[]> {
    return this.sql.write(() =>
      events.map(
        (e) =>
          this.sql.stmt('provider_events_insert').run({
            provider_account: e.providerAccount,
            event_id: e.eventId,
            status: e.status,
            provider_message_id: e.providerMessageId,
            reference: e.reference,
            suppress: e.suppress,
            occurred_at: e.occurredAt,
            received_at: e.receivedAt,
          }).changes > 0,
      ),
    );
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
        this.sql
          .stmt('attempt_resolve')
          .run({ delivery_id: w.deliveryId, number: w.resolvesAttempt, resolution: 'callback', policy: null, failover_reason: null });
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
}
