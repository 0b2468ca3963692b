/**
 * Outcomes whose write the fencing token refused: the lease was rescued (to `unknown`) while the
 * call ran. What the provider answered is still evidence: it is kept on the attempt, and an
 * acknowledgment resolves the `unknown` the rescue left behind, if nothing else has touched the
 * delivery since (same fencing token). A late `unknown` is not counted again (the rescuer counted
 * the attempt as ambiguous); a late acceptance is counted once, whether or not it still resolves.
 */
import type { Logger } from 'pino';
import { decide, type Random, type RetryPolicy, type SubmitOutcome } from '../domain/index.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { ClaimedDelivery, Store, TransitionWrite } from '../store/store.js';

export interface LateOutcomesOptions {
  store: Pick<Store, 'recordLateOutcome' | 'applyTransitions'>;
  logger: Logger;
  counters?: DeliveryCounters;
  policyFor: (claim: ClaimedDelivery) => RetryPolicy;
  random: Random;
}

export class LateOutcomes {
  constructor(private readonly opts: LateOutcomesOptions) {}

  /** Keeps each outcome on its attempt and resolves the `unknown` an acceptance answers. */
  async record(late: ReadonlyArray<{ claim: ClaimedDelivery; outcome: SubmitOutcome }>, now: number): Promise<void> {
    const evidence: TransitionWrite[] = [];
    for (const { claim, outcome } of late) {
      await this.opts.store.recordLateOutcome({ deliveryId: claim.deliveryId, attemptNumber: claim.attemptNumber, outcome });
      this.opts.logger.warn(
        { deliveryId: claim.deliveryId, attempt: claim.attemptNumber, outcome: outcome.kind },
        'outcome arrived after the lease was rescued; kept as a late outcome',
      );
      if (outcome.kind !== 'accepted') continue;
      this.opts.counters?.inc('accepted_submissions', claim);
      const d = decide(
        { state: 'unknown', attemptCount: claim.attemptNumber, expiresAt: claim.expiresAt, nextAttemptAt: null },
        { type: 'evidence', found: true, providerMessageId: outcome.providerMessageId },
        { now, policy: this.opts.policyFor(claim), random: this.opts.random },
      );
      if (d.ok) evidence.push({ deliveryId: claim.deliveryId, expect: { state: 'unknown', leaseVersion: claim.leaseVersion }, transition: d, now });
    }
    await this.opts.store.applyTransitions(evidence);
  }
}
