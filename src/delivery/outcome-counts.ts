/**
 * The process's counters for one applied outcome of a call: accepted (and its time since
 * intake), ambiguous (unknown), a definite refusal by class (a 429 also as a throttle of its
 * scope), a decision that ended the delivery terminal/expired (the expired-before-send
 * short-circuit included), and a move to another account of the route (`countFailover`). A
 * short-circuit that made no call is no refusal (domain/not-called.ts).
 */
import { madeNoCall, type Channel, type SubmitOutcome } from '../domain/index.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { ClaimedDelivery, FailoverMove, TransitionWrite } from '../store/store.js';

/** Counts one outcome whose write was applied (a fenced-off one is counted by late-outcomes.ts, or not at all). */
export function countApplied(
  counters: DeliveryCounters,
  c: ClaimedDelivery,
  outcome: SubmitOutcome,
  write: Pick<TransitionWrite, 'now' | 'transition' | 'move'>,
): void {
  if (outcome.kind === 'accepted') {
    counters.inc('accepted_submissions', c);
    counters.series.intakeToAcceptance.observe({ channel: c.channel, purpose: c.purpose }, Math.max(0, write.now - c.notificationCreatedAt) / 1000);
  } else if (outcome.kind === 'unknown') counters.inc('ambiguous_submissions', c);
  else if (!madeNoCall(outcome)) {
    counters.series.refused(c, outcome.kind);
    if (outcome.kind === 'throttled')
      counters.series.throttles.inc({ provider_account: c.providerAccount, scope: outcome.scope === 'destination' ? 'destination' : 'account' });
  }
  if (write.transition.to === 'terminal' && write.transition.terminalReason === 'expired') counters.inc('expired_challenges', c);
  if (write.move) countFailover(counters, c, write.move);
}

/** Counts one applied move of a delivery from its account (`from.providerAccount`) to another of its route. */
export function countFailover(counters: DeliveryCounters, from: { channel: Channel; providerAccount: string }, move: FailoverMove): void {
  counters.series.failovers.inc({ channel: from.channel, from_account: from.providerAccount, to_account: move.to, reason: move.reason });
}
