/**
 * The evidence applier: merges parked provider events into their deliveries. Every event of
 * one delivery is folded at once on the downstream lattice (`mergeDownstream`: order and
 * repeats do not matter), and any event at all is evidence that the provider has the message,
 * so `decide` may settle an `unknown` (→ accepted) or stop a pending resend. Hard bounces and
 * complaints put the address on the tenant's suppression list. Events whose delivery is not
 * known yet, or still in flight, stay parked for a later pass; a guarded write that loses a
 * race leaves them parked too.
 */
import type { Clock } from '../clock.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import { decide, LADDERS, mergeDownstream, type DownstreamStatus } from '../domain/index.js';
import type { EvidenceWrite, PendingEvidence } from '../store/evidence-store.js';
import type { Store } from '../store/store.js';
import { LoopService, type LoopSettings } from '../periodic/loop-service.js';
import { callbackKey, deliveredAccounts, reportsArrival } from './duplicates-across-accounts.js';

export interface EvidenceApplierOptions extends LoopSettings {
  store: Store;
  clock: Clock;
  /** How long an event may stay parked without a delivery before it is given up (orphaned). Default 24 h. */
  parkedRetentionMs?: number;
  /** Settled events are kept this long for deduplication (SendGrid repeats events for over a day). Default 7 days. */
  settledRetentionMs?: number;
  /** Counts each merged event as a downstream signal of its status (herald_downstream_signals_total). */
  counters?: DeliveryCounters;
}

export interface EvidencePass {
  /** Deliveries whose evidence was merged. */
  applied: number;
  /** Events settled (merged, or found to change nothing). */
  events: number;
  /** Deliveries moved by evidence (e.g. unknown → accepted). */
  transitions: number;
  /** Writes a concurrent change refused; their events stay parked. */
  raced: number;
}

const HOUR = 3_600_000;
/** Callbacks read per delivery to find a duplicate: a delivery gets a handful (sent, delivered, read per account). */
const DUPLICATE_READ_LIMIT = 50;

export class EvidenceApplier extends LoopService {
  private lastPrune = -Infinity;

  constructor(private readonly opts: EvidenceApplierOptions) {
    super({ ...opts, what: 'evidence pass', defaultBatchSize: 500 });
  }

  /** Applies every matchable parked event now; resolves with what it did. */
  override async runOnce(): Promise<EvidencePass> {
    const now = this.opts.clock.now();
    const pass: EvidencePass = { applied: 0, events: 0, transitions: 0, raced: 0 };
    for (;;) {
      const pending = await this.opts.store.evidence.listPendingEvidence(this.passBatchSize);
      if (pending.length === 0) break;
      const writes = planWrites(pending, now);
      const results = await this.opts.store.evidence.applyEvidence(writes);
      const byDelivery = new Map<string, PendingEvidence[]>();
      for (const p of pending) byDelivery.set(p.delivery.deliveryId, [...(byDelivery.get(p.delivery.deliveryId) ?? []), p]);
      results.forEach((ok, i) => {
        const w = writes[i]!;
        if (!ok) {
          pass.raced++;
          return;
        }
        pass.applied++;
        pass.events += w.rowIds.length;
        for (const p of byDelivery.get(w.deliveryId) ?? []) this.opts.counters?.series.signal(p.delivery.channel, p.status);
        if (w.transition) pass.transitions++;
      });
      await this.findDuplicates(results.flatMap((ok, i) => (ok ? [byDelivery.get(writes[i]!.deliveryId) ?? []] : [])));

      // A short batch was the last one; a batch that only raced is retried next pass, not now.
      if (pending.length < this.passBatchSize || results.every((ok) => !ok)) break;
    }
    await this.prune(now);
    return pass;
  }

  /**
   * Duplicates across accounts (duplicates-across-accounts.ts): for each delivery whose merged
   * events include a delivered or read report and that has moved along its route (one that never
   * moved was attempted on one account only, however often), reads its callbacks; when this
   * pass's reports made it two accounts or more, counts it once and logs it (ids and account names
   * only). One small read per such delivery: moved deliveries are the few.
   */
  private async findDuplicates(merged: ReadonlyArray<readonly PendingEvidence[]>): Promise<void> {
    for (const events of merged) {
      const d = events[0]?.delivery;
      if (!d || !d.moved || !events.some((e) => reportsArrival(e.status))) continue;
      const { callbacks } = await this.opts.store.evidence.deliveryEvidence(d.deliveryId, DUPLICATE_READ_LIMIT);
      const after = deliveredAccounts(callbacks);
      const before = deliveredAccounts(callbacks, new Set(events.map((e) => callbackKey(e.providerAccount, e.eventId))));
      if (after.length < 2 || before.length >= 2) continue;
      this.opts.counters?.series.duplicatesAcrossAccounts.inc({ channel: d.channel, accounts: after.join(',') });
      this.opts.logger.warn(
        { deliveryId: d.deliveryId, providerAccounts: after },
        'delivery reported delivered by more than one provider account: a duplicate across accounts',
      );
    }
  }

  /** Once an hour: orphan events parked past retention, forget settled ones past theirs. */
  private async prune(now: number): Promise<void> {
    if (now - this.lastPrune < HOUR) return;
    this.lastPrune = now;
    const parked = this.opts.parkedRetentionMs ?? 24 * HOUR;
    const settled = this.opts.settledRetentionMs ?? 7 * 24 * HOUR;
    const r = await this.opts.store.evidence.pruneProviderEvents({ before: now - Math.max(parked, 0), now });
    await this.opts.store.evidence.pruneProviderEvents({ before: now - settled, now });
    if (r.orphaned > 0) this.opts.logger.warn({ orphaned: r.orphaned }, 'provider events never matched a delivery; given up');
  }
}

/**
 * One write per delivery: the fold of its events on the lattice, the state change `decide`
 * allows for "the provider has it", and the first suppression any event asks for.
 */
export function planWrites(pending: PendingEvidence[], now: number): EvidenceWrite[] {
  const byDelivery = new Map<string, PendingEvidence[]>();
  for (const p of pending) {
    const list = byDelivery.get(p.delivery.deliveryId);
    if (list) list.push(p);
    else byDelivery.set(p.delivery.deliveryId, [p]);
  }
  const writes: EvidenceWrite[] = [];
  for (const events of byDelivery.values()) {
    const d = events[0]!.delivery;
    let downstream: DownstreamStatus | null = d.downstreamStatus;
    for (const e of events) downstream = mergeDownstream(downstream, e.status);
    const providerMessageId = events.find((e) => e.providerMessageId !== null)?.providerMessageId ?? null;
    // Every callback event means the provider has the message. The policy only matters for
    // scheduling a retry, which evidence of arrival never does.
    const decision = decide(
      { state: d.state, terminalReason: d.terminalReason, attemptCount: d.attemptCount, expiresAt: d.expiresAt, nextAttemptAt: d.nextAttemptAt },
      { type: 'evidence', found: true, providerMessageId: providerMessageId ?? d.providerMessageId },
      { now, policy: LADDERS.transactional, random: () => 0.5 },
    );
    // Every event's status is at least `accepted`, so the merged status already is too.
    const transition = decision.ok ? decision : null;
    const suppressing = events.find((e) => e.suppress !== null);
    writes.push({
      rowIds: events.map((e) => e.rowId),
      deliveryId: d.deliveryId,
      expect: { state: d.state, leaseVersion: d.leaseVersion, downstreamStatus: d.downstreamStatus },
      downstreamStatus: downstream,
      transition,
      providerMessageId,
      resolvesAttempt: transition && (d.state === 'unknown' || d.state === 'terminal') ? d.attemptCount : null,
      suppress: suppressing
        ? {
            tenantId: d.tenantId,
            channel: d.channel,
            destination: d.destination,
            reason: suppressing.suppress!,
            sourceDeliveryId: d.deliveryId,
          }
        : null,
      now,
    });
  }
  return writes;
}
