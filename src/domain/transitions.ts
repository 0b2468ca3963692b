/**
 * The delivery state machine as data. `docs/state-machine.md` renders the same rows and a
 * test compares the two; the schema's CHECK constraints name the same states.
 */
import type { DeliveryState } from './vocabulary.js';

export type TransitionEvent =
  'claim' | 'outcome' | 'lease_expired' | 'expire' | 'cancel' | 'evidence' | 'supersede' | 'suppress' | 'replay' | 'ambiguity_policy' | 'not_sent' | 'defer';

export interface TransitionRow {
  from: DeliveryState;
  to: DeliveryState;
  on: TransitionEvent;
  /** Why this edge exists, in the words the docs table uses. */
  when: string;
}

export const TRANSITION_TABLE: readonly TransitionRow[] = [
  { from: 'ready', to: 'submitting', on: 'claim', when: 'a worker claims it before expiry: attempt row and lease committed' },
  { from: 'ready', to: 'terminal', on: 'claim', when: 'claimed at or after expires_at: expired, no call' },
  { from: 'ready', to: 'terminal', on: 'expire', when: 'expires_at passed while waiting' },
  { from: 'ready', to: 'terminal', on: 'cancel', when: 'cancelled before any attempt' },
  { from: 'ready', to: 'terminal', on: 'supersede', when: 'a newer generation of the same challenge was accepted: superseded' },
  {
    from: 'ready',
    to: 'terminal',
    on: 'suppress',
    when: 'the recipient opted out (unsubscribed) or the address is on the suppression list (suppressed): not sent',
  },
  { from: 'submitting', to: 'accepted', on: 'outcome', when: 'the provider acknowledged the submission' },
  { from: 'submitting', to: 'unknown', on: 'outcome', when: 'timeout, reset after write, or any ambiguous answer' },
  { from: 'submitting', to: 'unknown', on: 'lease_expired', when: 'the lease ran out: the call may have happened' },
  { from: 'submitting', to: 'retryable', on: 'outcome', when: 'a definite retryable or throttled answer, next attempt before expiry' },
  {
    from: 'submitting',
    to: 'terminal',
    on: 'outcome',
    when: 'permanent refusal (rejected), attempts used up (exhausted), next attempt at or after expiry (expired), or a definite answer a rollout stage holds for review (held)',
  },
  {
    from: 'submitting',
    to: 'terminal',
    on: 'suppress',
    when: 'the check after the claim, before the call, found the recipient unsubscribed or the address suppressed: the attempt closes as not sent',
  },
  {
    from: 'submitting',
    to: 'ready',
    on: 'defer',
    when: "the check after the claim, before the call, found the recipient's quiet hours or frequency cap: due again when it allows, before expiry; the claim's attempt is withdrawn",
  },
  {
    from: 'submitting',
    to: 'terminal',
    on: 'defer',
    when: "the recipient's quiet hours or frequency cap would hold it until expires_at or later: expired, no call",
  },
  { from: 'retryable', to: 'submitting', on: 'claim', when: 'next_attempt_at reached, before expiry' },
  { from: 'retryable', to: 'terminal', on: 'claim', when: 'claimed at or after expires_at: expired, no call' },
  { from: 'retryable', to: 'terminal', on: 'expire', when: 'expires_at passed while waiting' },
  { from: 'retryable', to: 'terminal', on: 'cancel', when: 'cancelled between attempts' },
  { from: 'retryable', to: 'terminal', on: 'supersede', when: 'a newer generation of the same challenge was accepted: superseded' },
  {
    from: 'retryable',
    to: 'terminal',
    on: 'suppress',
    when: 'the recipient opted out (unsubscribed) or the address was suppressed between attempts: not sent again',
  },
  { from: 'retryable', to: 'ready', on: 'replay', when: "an operator (or the phone gateway's heartbeat sweep) asked to retry now, before expiry" },
  { from: 'retryable', to: 'accepted', on: 'evidence', when: 'evidence shows an earlier submission arrived: the resend is not needed' },
  { from: 'ready', to: 'accepted', on: 'evidence', when: 'evidence shows an earlier submission arrived (a replayed delivery): the resend is not needed' },
  { from: 'unknown', to: 'accepted', on: 'evidence', when: 'evidence shows the provider has the message' },
  { from: 'unknown', to: 'retryable', on: 'evidence', when: 'the provider authoritatively has no such message; same key, before expiry' },
  {
    from: 'unknown',
    to: 'retryable',
    on: 'ambiguity_policy',
    when: 'resend_same_key (the provider dedupes by key) or accept_duplicate: due now, same key, before expiry',
  },
  {
    from: 'unknown',
    to: 'terminal',
    on: 'ambiguity_policy',
    when: 'user_resend (unresolved, resend offered), wait_for_evidence whose window closed (unresolved), or a resend with no attempt (exhausted) or time (expired) left',
  },
  { from: 'unknown', to: 'ready', on: 'replay', when: 'an operator accepted the duplicate risk explicitly, before expiry' },
  {
    from: 'unknown',
    to: 'terminal',
    on: 'evidence',
    when: 'authoritatively not found but attempts used up (exhausted) or next attempt at or after expiry (expired), or the ambiguity window closed (unresolved)',
  },
  { from: 'terminal', to: 'accepted', on: 'evidence', when: 'an unresolved delivery: evidence shows the provider has the message after all' },
  {
    from: 'terminal',
    to: 'ready',
    on: 'replay',
    when: 'an operator replayed an exhausted, rejected, cancelled, held or (with the duplicate risk accepted) unresolved delivery, before expiry',
  },
  {
    from: 'accepted',
    to: 'retryable',
    on: 'not_sent',
    when: 'the gateway phone that held the message reported it failed before anything was sent: a new submission, same key, before expiry',
  },
  {
    from: 'accepted',
    to: 'terminal',
    on: 'not_sent',
    when: 'the phone reported a permanent failure before sending (rejected), or no attempt (exhausted) or time (expired) is left for a retry',
  },
  {
    from: 'unknown',
    to: 'retryable',
    on: 'not_sent',
    when: 'the gateway phone reported the message failed before anything was sent: a new submission, same key, before expiry',
  },
  {
    from: 'unknown',
    to: 'terminal',
    on: 'not_sent',
    when: 'the phone reported a permanent failure before sending (rejected), or no attempt (exhausted) or time (expired) is left for a retry',
  },
];

/** Terminal reasons an operator may replay (`held`: a rollout stage gave the answer to a person); the others mean "do not send this" (expired, superseded, suppressed, unsubscribed). */
export const REPLAYABLE_REASONS = ['exhausted', 'rejected', 'unresolved', 'cancelled', 'held'] as const;

/** True when the table has an edge from `from` to `to` (staying put is never an edge). */
export function isAllowedTransition(from: DeliveryState, to: DeliveryState, on?: TransitionEvent): boolean {
  return TRANSITION_TABLE.some((r) => r.from === from && r.to === to && (on === undefined || r.on === on));
}
