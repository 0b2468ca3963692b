/**
 * The PostgreSQL driver's evidence part (see src/store/evidence-store.ts). Writes that touch
 * several rows run in one transaction; guarded updates make a concurrent writer a no-op.
 */
import { changesDelivery, downstreamEvent, toCallbackEvidence, toLookupEvidence, toPendingEvidence, toUnknownDelivery } from '../evidence-rows.js';
import type {
  DeliveryEvidence,
  EventPruning,
  LookupRecord,
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
import { transitionPayload } from '../transition-fields.js';
import type { PostgresContext } from './sql-context.js';
import { applyRun } from './transitions.js';

/** `store.evidence` of the PostgreSQL store, over its pool and named statements. */
export class PostgresEvidence implements EvidenceStore {
  constructor(private readonly sql: PostgresContext) {}

  async recordProviderEvents(events: ProviderEventRecord[]): Promise<RecordedEvents> {
    if (events.length === 0) return { inserted: 0, duplicates: 0 };
    const rows = await this.sql.q('provider_events_insert', [
      events.map((e) => e.providerAccount),
      events.map((e) => e.eventId),
      events.map((e) => e.status),
      events.map((e) => e.providerMessageId),
      events.map((e) => e.reference),
      events.map((e) => e.suppress),
      events.map((e) => e.occurredAt),
      events.map((e) => e.receivedAt),
    ]);
    return { inserted: rows.length, duplicates: events.length - rows.length };
  }

  async listPendingEvidence(limit: number): Promise<PendingEvidence[]> {
    return (await this.sql.q('evidence_pending', [Math.max(1, limit)])).map(toPendingEvidence);
  }

  /**
   * The whole batch in five statements in one transaction, not five per delivery: evidence
   * arrives at about twice the send rate (sent, then delivered), so this is a hot path.
   */
  async applyEvidence(writes: EvidenceWrite[]): Promise<boolean[]> {
    if (writes.length === 0) return [];
    const now = writes[0]!.now;
    return this.sql.tx(async (c) => {
      const changing = writes.filter(changesDelivery);
      const applied = new Map<string, { tenantId: string; notificationId: string }>();
      if (changing.length > 0) {
        const rows = await this.sql.q(
          'deliveries_evidence_apply',
          [
            changing.map((w) => w.deliveryId),
            changing.map((w) => w.expect.state),
            changing.map((w) => w.expect.leaseVersion),
            changing.map((w) => w.expect.downstreamStatus),
            changing.map((w) => w.transition?.to ?? null),
            changing.map((w) => w.transition?.terminalReason ?? null),
            changing.map((w) => w.transition?.nextAttemptAt ?? null),
            changing.map((w) => w.downstreamStatus),
            changing.map((w) => w.providerMessageId),
            now,
          ],
          c,
        );
        for (const r of rows) applied.set(String(r.id), { tenantId: String(r.tenant_id), notificationId: String(r.notification_id) });
      }
      // A write that changes nothing on the delivery only settles its events.
      const ok = writes.map((w) => !changesDelivery(w) || applied.has(w.deliveryId));
      const done = writes.filter((_, i) => ok[i]);

      const events: Array<{ tenantId: string; notificationId: string; deliveryId: string; type: string; payload: string }> = [];
      for (const w of done) {
        const where = applied.get(w.deliveryId);
        if (!where) continue;
        const t = w.transition;
        if (t)
          events.push({
            ...where,
            deliveryId: w.deliveryId,
            type: `delivery.${t.to}`,
            payload: transitionPayload({ deliveryId: w.deliveryId, expect: w.expect, transition: t, now }),
          });
        const ds = downstreamEvent(w);
        if (ds) events.push({ ...where, deliveryId: w.deliveryId, type: ds.eventType, payload: ds.payload });
      }
      if (events.length > 0) {
        await this.sql.q(
          'outbox_insert_many',
          [
            events.map((e) => e.tenantId),
            events.map((e) => e.notificationId),
            events.map((e) => e.deliveryId),
            events.map((e) => e.type),
            events.map((e) => e.payload),
            now,
          ],
          c,
        );
      }

      const resolved = done.filter((w) => applied.has(w.deliveryId) && w.resolvesAttempt !== null);
      if (resolved.length > 0)
        await this.sql.q('attempts_resolve_many', [resolved.map((w) => w.deliveryId), resolved.map((w) => w.resolvesAttempt), 'callback'], c);

      const suppress = done.flatMap((w) => (w.suppress ? [w.suppress] : []));
      if (suppress.length > 0) {
        await this.sql.q(
          'suppressions_insert',
          [
            suppress.map((x) => x.tenantId),
            suppress.map((x) => x.channel),
            suppress.map((x) => x.destination),
            suppress.map((x) => x.reason),
            suppress.map((x) => x.sourceDeliveryId),
            now,
          ],
          c,
        );
      }

      const settled = done.flatMap((w) => w.rowIds.map((id) => ({ id, deliveryId: w.deliveryId, outcome: changesDelivery(w) ? 'applied' : 'no_change' })));
      await this.sql.q('provider_events_settle', [settled.map((e) => e.id), settled.map((e) => e.deliveryId), settled.map((e) => e.outcome), now], c);
      return ok;
    });
  }

  async pruneProviderEvents(r: EventPruning): Promise<PrunedEvents> {
    return this.sql.tx(async (c) => ({
      orphaned: (await this.sql.q('provider_events_orphan', [r.before, r.now], c)).length,
      deleted: (await this.sql.q('provider_events_delete', [r.before], c)).length,
    }));
  }

  async listUnknownDue(r: UnknownDueQuery): Promise<UnknownDelivery[]> {
    const rows = await this.sql.q('unknown_due', [r.now, Math.max(1, r.limit), r.providerAccounts ? [...r.providerAccounts] : null]);
    return rows.map(toUnknownDelivery);
  }

  async deferReconcile(r: ReconcileDeferral): Promise<boolean> {
    return this.sql.tx(async (c) => {
      const rows = await this.sql.q('reconcile_defer', [r.deliveryId, r.leaseVersion, r.at], c);
      if (rows.length === 0) return false;
      if (r.policy) await this.sql.q('attempt_resolve', [r.deliveryId, r.attemptNumber, null, r.policy], c);
      if (r.lookup) await this.sql.q('reconcile_lookup_insert', lookupRow(r.deliveryId, r.attemptNumber, r.lookup), c);
      return true;
    });
  }

  async resolveUnknown(r: UnknownResolution): Promise<boolean> {
    const applied = await this.sql.tx(async (c) => {
      if (!(await applyRun(this.sql, [r.write], c)).has(r.write.deliveryId)) return null;
      const [row] = await this.sql.q('attempt_resolve', [r.write.deliveryId, r.attemptNumber, r.resolution, r.policy], c);
      if (r.lookup) await this.sql.q('reconcile_lookup_insert', lookupRow(r.write.deliveryId, r.attemptNumber, r.lookup), c);
      return row ? String(row.provider_account) : '';
    });
    if (applied === null) return false;
    // A resend is due now: wake workers in other processes.
    if (applied !== '' && (r.write.transition.to === 'retryable' || r.write.transition.to === 'ready')) this.sql.wakeListeners([applied]);
    return true;
  }

  async deliveryEvidence(deliveryId: string, limit: number): Promise<DeliveryEvidence> {
    const params = [deliveryId, Math.max(1, limit)];
    // Both read newest first so the limit keeps the latest; shown oldest first.
    const [callbacks, lookups] = await Promise.all([this.sql.q('delivery_callbacks', params), this.sql.q('delivery_lookups', params)]);
    return { callbacks: callbacks.map(toCallbackEvidence).reverse(), lookups: lookups.map(toLookupEvidence).reverse() };
  }
}

/** The positional parameters of `reconcile_lookup_insert`. */
function lookupRow(deliveryId: string, attemptNumber: number, l: LookupRecord): unknown[] {
  return [deliveryId, attemptNumber, l.at, l.result, l.ledTo, l.providerMessageId, l.errorCode];
}
