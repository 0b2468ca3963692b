/**
 * The PostgreSQL driver's evidence tables (see src/store/evidence-store.ts). Writes that touch
 * several rows run in one transaction; guarded updates make a concurrent writer a no-op.
 */
import type { AmbiguityPolicy, Channel } from '../../domain/index.js';
import { changesDelivery, downstreamEvent, toPendingEvidence, toSuppression, toUnknownDelivery } from '../evidence-rows.js';
import type { AttemptResolution, EvidenceWrite, PendingEvidence, ProviderEventRecord, Suppression, UnknownDelivery } from '../evidence-store.js';
import type { TransitionWrite } from '../store.js';
import { transitionPayload } from '../transition-fields.js';
import type { Client, PostgresStore } from './postgres-store.js';

/** Evidence methods of the PostgreSQL store, over its pool and named statements. */
export class PostgresEvidence {
  constructor(private readonly s: PostgresStore) {}

  async recordProviderEvents(events: ProviderEventRecord[]): Promise<{ inserted: number; duplicates: number }> {
    if (events.length === 0) return { inserted: 0, duplicates: 0 };
    const rows = await this.s.q('provider_events_insert', [
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
    return (await this.s.q('evidence_pending', [Math.max(1, limit)])).map(toPendingEvidence);
  }

  async applyEvidence(writes: EvidenceWrite[]): Promise<boolean[]> {
    if (writes.length === 0) return [];
    return this.s.tx(async (c) => {
      const out: boolean[] = [];
      for (const w of writes) out.push(await this.applyOne(w, c));
      return out;
    });
  }

  private async applyOne(w: EvidenceWrite, c: Client): Promise<boolean> {
    const changes = changesDelivery(w);
    if (changes) {
      const t = w.transition;
      const [row] = await this.s.q(
        'delivery_evidence_apply',
        [
          w.deliveryId,
          w.expect.state,
          w.expect.leaseVersion,
          w.expect.downstreamStatus,
          t?.to ?? null,
          t?.terminalReason ?? null,
          t?.nextAttemptAt ?? null,
          w.downstreamStatus,
          w.providerMessageId,
          w.now,
        ],
        c,
      );
      if (!row) return false;
      const outbox = (eventType: string, payload: string) =>
        this.s.q('outbox_insert', [row.tenant_id, row.notification_id, w.deliveryId, eventType, payload, w.now], c);
      if (t) await outbox(`delivery.${t.to}`, transitionPayload({ deliveryId: w.deliveryId, expect: w.expect, transition: t, now: w.now }));
      const ds = downstreamEvent(w);
      if (ds) await outbox(ds.eventType, ds.payload);
      if (w.resolvesAttempt !== null) await this.s.q('attempt_resolve', [w.deliveryId, w.resolvesAttempt, 'callback', null], c);
    }
    if (w.suppress) {
      const x = w.suppress;
      await this.s.q('suppression_insert', [x.tenantId, x.channel, x.destination, x.reason, x.sourceDeliveryId, w.now], c);
    }
    await this.s.q('provider_events_settle', [w.rowIds, w.deliveryId, changes ? 'applied' : 'no_change', w.now], c);
    return true;
  }

  async pruneProviderEvents(r: { before: number; now: number }): Promise<{ orphaned: number; deleted: number }> {
    return this.s.tx(async (c) => ({
      orphaned: (await this.s.q('provider_events_orphan', [r.before, r.now], c)).length,
      deleted: (await this.s.q('provider_events_delete', [r.before], c)).length,
    }));
  }

  async listUnknownDue(r: { now: number; limit: number; providerAccounts?: readonly string[] }): Promise<UnknownDelivery[]> {
    const rows = await this.s.q('unknown_due', [r.now, Math.max(1, r.limit), r.providerAccounts ? [...r.providerAccounts] : null]);
    return rows.map(toUnknownDelivery);
  }

  async deferReconcile(r: { deliveryId: string; leaseVersion: number; at: number; attemptNumber: number; policy: AmbiguityPolicy | null }): Promise<boolean> {
    return this.s.tx(async (c) => {
      const rows = await this.s.q('reconcile_defer', [r.deliveryId, r.leaseVersion, r.at], c);
      if (rows.length === 0) return false;
      if (r.policy) await this.s.q('attempt_resolve', [r.deliveryId, r.attemptNumber, null, r.policy], c);
      return true;
    });
  }

  async resolveUnknown(r: { write: TransitionWrite; attemptNumber: number; policy: AmbiguityPolicy | null; resolution: AttemptResolution }): Promise<boolean> {
    const applied = await this.s.tx(async (c) => {
      if (!(await this.s.applyRun([r.write], c)).has(r.write.deliveryId)) return null;
      const [row] = await this.s.q('attempt_resolve_returning', [r.write.deliveryId, r.attemptNumber, r.resolution, r.policy], c);
      return row ? String(row.provider_account) : '';
    });
    if (applied === null) return false;
    // A resend is due now: wake workers in other processes.
    if (applied !== '' && (r.write.transition.to === 'retryable' || r.write.transition.to === 'ready')) this.s.wakeListeners([applied]);
    return true;
  }

  async getSuppression(tenantId: string, channel: Channel, destination: string): Promise<Suppression | null> {
    const [row] = await this.s.q('suppression_get', [tenantId, channel, destination]);
    return row ? toSuppression(row) : null;
  }

  async listSuppressions(tenantId: string, limit: number): Promise<Suppression[]> {
    return (await this.s.q('suppressions_list', [tenantId, Math.max(1, limit)])).map(toSuppression);
  }
}
