/**
 * What a provider adapter reports about one submission. A closed union: an adapter never
 * throws to signal failure, and "any exception means failed" is not a possible answer.
 * Modelled on Oban's perform/1 results and Temporal's nonRetryable/nextRetryDelay.
 */

export type PermanentReason = 'invalid_destination' | 'unsubscribed_at_provider' | 'content_rejected' | 'unauthorized' | 'other';

export type SubmitOutcome =
  /** The provider acknowledged the submission. Not delivery: evidence comes later. */
  | { kind: 'accepted'; providerMessageId: string | null }
  /** A definite response that permits another call (e.g. 5xx that the provider documents as not processed). */
  | { kind: 'retryable'; code: string; message: string; retryAfterMs?: number | null }
  /**
   * The provider refused for rate reasons; nothing was processed. `scope` says whose rate:
   * the whole account's (the default: every worker of the account pauses), or only this
   * destination's (e.g. FCM's per-device limit: only this delivery waits, on its ladder).
   */
  | { kind: 'throttled'; code: string; message: string; retryAfterMs?: number | null; scope?: 'account' | 'destination' }
  /** A definite permanent refusal: retrying the same data cannot succeed. */
  | { kind: 'permanent'; reason: PermanentReason; code: string; message: string }
  /** The request may have crossed the boundary (timeout, reset after write, crash): never resend blindly. */
  | { kind: 'unknown'; code: string; message: string };

export type OutcomeKind = SubmitOutcome['kind'];

export const OUTCOME_KINDS: readonly OutcomeKind[] = ['accepted', 'retryable', 'throttled', 'permanent', 'unknown'];
