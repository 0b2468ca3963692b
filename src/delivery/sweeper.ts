/**
 * The sweeper: a small maintenance service (River's JobRescuer shape) with start/stop and a
 * runOnce() tests call. Each pass moves expired leases to `unknown` (the call may have
 * happened: never back to `ready`), ends pending deliveries whose challenge clock ran out,
 * and prunes idempotency keys past retention. Every change goes through `decide`.
 */
import type { Clock } from '../clock.js';
import { LoopService, type LoopSettings } from '../periodic/loop-service.js';
import { decide, DEFAULT_RETRY_POLICY, type DeliveryEvent } from '../domain/index.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { DeliveryFacts, Store, TransitionResult, TransitionWrite } from '../store/store.js';

export interface SweeperOptions extends LoopSettings {
  store: Store;
  clock: Clock;
  /** The process's delivery counters (ambiguous submissions, expired challenges). Default: none kept. */
  counters?: DeliveryCounters;
}

export interface SweepResult {
  leasesRescued: number;
  expired: number;
  idempotencyKeysPruned: number;
}

export class Sweeper extends LoopService {
  constructor(private readonly opts: SweeperOptions) {
    super({ ...opts, what: 'sweep', defaultBatchSize: 500 });
  }

  /** One full pass; loops over batches until nothing is left to sweep at this instant. */
  override async runOnce(): Promise<SweepResult> {
    const now = this.opts.clock.now();
    const leasesRescued = await this.sweep(() => this.opts.store.listExpiredLeases(now, this.passBatchSize), { type: 'lease_expired' }, now, true);
    const expired = await this.sweep(() => this.opts.store.listExpiredPending(now, this.passBatchSize), { type: 'expire' }, now, false);
    const idempotencyKeysPruned = await this.opts.store.pruneIdempotencyKeys(now);
    // The retry budget reads one minute of health buckets; an hour is kept for operators.
    await this.opts.store.health.pruneProviderHealth(now - 3_600_000);
    if (leasesRescued > 0) this.opts.logger.warn({ leasesRescued }, 'expired leases moved to unknown');
    return { leasesRescued, expired, idempotencyKeysPruned };
  }

  private async sweep(list: () => Promise<DeliveryFacts[]>, event: DeliveryEvent, now: number, closesAttempt: boolean): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await list();
      if (rows.length === 0) return total;
      const writes: TransitionWrite[] = [];
      for (const f of rows) {
        const d = decide(f, event, { now, policy: DEFAULT_RETRY_POLICY, random: Math.random });
        if (!d.ok) continue;
        writes.push({
          deliveryId: f.deliveryId,
          expect: { state: f.state, leaseVersion: f.leaseVersion },
          transition: d,
          now,
          ...(closesAttempt ? { attempt: { number: f.attemptCount, outcome: { kind: 'lease_expired' as const } } } : {}),
        });
      }
      const results = await this.opts.store.applyTransitions(writes);
      await this.count(writes, results);
      const applied = results.filter((r) => r.applied).length;
      total += applied;
      // Nothing changed (every row raced with another writer): stop rather than spin on the same rows.
      if (applied === 0 || rows.length < this.passBatchSize) return total;
    }
  }

  /**
   * Counts applied rescues (lease_expired → unknown: ambiguous submissions) and expiries
   * (terminal/expired: expired challenges). DeliveryFacts carries no channel or purpose, so each
   * applied row is read back once, and only when counters are kept; a failed read skips the count.
   */
  private async count(writes: TransitionWrite[], results: TransitionResult[]): Promise<void> {
    const counters = this.opts.counters;
    if (!counters) return;
    // One read at a time: these events are rare, and a pass must not take the pool from the workers.
    for (const [i, r] of results.entries()) {
      const t = writes[i]!.transition;
      const name = t.to === 'unknown' ? 'ambiguous_submissions' : t.to === 'terminal' && t.terminalReason === 'expired' ? 'expired_challenges' : null;
      if (!r.applied || name === null) continue;
      const d = await this.opts.store.getDelivery(r.deliveryId).catch((err: unknown) => {
        this.opts.logger.warn({ err, deliveryId: r.deliveryId }, 'cannot read a swept delivery; not counted');
        return null;
      });
      if (d) counters.inc(name, d);
    }
  }
}
