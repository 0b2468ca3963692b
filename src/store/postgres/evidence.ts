/**
 * The PostgreSQL driver's own part of `store.evidence` (the rest: parts/evidence.ts): the two
 * batch writes, each in a few statements over arrays. Dialect-specific: SQLite writes one row per
 * statement inside one synchronous transaction.
 */
import { changesDelivery, downstreamEvent } from '../evidence-rows.js';
import type { EvidenceWrite, ProviderEventRecord } from '../evidence-store.js';
import { EvidencePart } from '../parts/evidence.js';
import { transitionPayload } from '../transition-fields.js';
import type { PostgresContext } from './sql-context.js';
import { guardedTransition } from './transitions.js';

/** `store.evidence` of the PostgreSQL store. */
export class PostgresEvidence extends EvidencePart {
  constructor(private readonly sql: PostgresContext) {
    super(sql, guardedTransition);
  }

  protected async insertProviderEvents(events: ProviderEventRecord[]): Promise<boolean[]> {
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
    // One statement inserts a key at most once (ON CONFLICT skips a repeat within the batch too):
    // the first event of each returned key is the new one, any other is a duplicate.
    const fresh = new Set(rows.map((r) => `${String(r.provider_account)}\n${String(r.event_id)}`));
    return events.map((e) => fresh.delete(`${e.providerAccount}\n${e.eventId}`));
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
}
