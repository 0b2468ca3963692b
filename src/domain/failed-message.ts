/**
 * The one definition of a failed message, which every count of failures uses: the overview
 * banner, GET /v1/stats, the /metrics gauges, the shipped alert rules and the operator alerter
 * all read it through the store's `observability_failed_messages` statement (both dialects'
 * observability.sql), which writes the same predicate as `isFailedMessage` in SQL; a store
 * conformance test holds the two together (docs/operations.md, "What counts as a failed message").
 *
 * A message (one delivery) failed when it ended `terminal` for a failure reason, or is waiting to
 * retry after a definite refusal. An offer to a phone (an attempt `unknown`, code `offered`), an
 * `unknown` later settled by evidence, and a superseded, cancelled, suppressed or held message are
 * not failures: they say nothing went wrong, or a person or a rule stopped the message on purpose.
 */
import type { DownstreamStatus } from './downstream.js';
import type { DeliveryState, TerminalReason } from './vocabulary.js';

/** Terminal reasons that are failures whatever the delivery's history. */
export const FAILURE_TERMINAL_REASONS = ['rejected', 'exhausted', 'unresolved'] as const satisfies readonly TerminalReason[];

/** Attempt outcomes that are a definite refusal (a provider's, or no phone to take it): a `retryable` delivery after one of these failed. */
export const REFUSAL_OUTCOMES = ['retryable', 'throttled', 'permanent'] as const;

/** What decides whether a delivery is a failed message now. */
export interface FailedMessageFacts {
  state: DeliveryState;
  terminalReason: TerminalReason | null;
  downstreamStatus: DownstreamStatus | null;
  /** Some attempt of the delivery was accepted at the call. */
  everAccepted: boolean;
  /** The outcome of the attempt that led to the current state (number = attempt_count), null before any. */
  lastAttemptOutcome: string | null;
  /** The phone reported the current offer failed before anything was sent (`Failed` or `Cancelled`, never `Sent`). */
  phoneNotSent: boolean;
}

/**
 * True when the delivery is a failed message: terminal `rejected`, `exhausted` or `unresolved`;
 * terminal `expired` without ever being accepted (a deadline miss); or `retryable` after a
 * definite refusal (the last attempt's outcome is a refusal, or the phone failed the current
 * offer before sending). A `retryable` delivery waiting on its ambiguity policy's resend is not.
 */
export function isFailedMessage(f: FailedMessageFacts): boolean {
  if (f.state === 'terminal') {
    if ((FAILURE_TERMINAL_REASONS as readonly string[]).includes(f.terminalReason ?? '')) return true;
    return f.terminalReason === 'expired' && f.downstreamStatus === null && !f.everAccepted;
  }
  if (f.state === 'retryable') return (REFUSAL_OUTCOMES as readonly string[]).includes(f.lastAttemptOutcome ?? '') || f.phoneNotSent;
  return false;
}
