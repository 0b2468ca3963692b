/**
 * `decide` is the one place where a delivery's next state is computed. Workers, the lease
 * rescuer and the expiry sweep all ask it, then write its answer with a guarded update.
 * Pure: time and randomness come in as arguments.
 */
import type { SubmitOutcome } from './outcome.js';
import type { Random, RetryPolicy } from './retry-policy.js';
import { nextDelayMs } from './retry-policy.js';
import { budgetSpreadMs, type BudgetState } from './retry-budget.js';
import { REPLAYABLE_REASONS, type TransitionEvent } from './transitions.js';
import type { AmbiguityPolicy, DeliveryState, HoldReason, TerminalReason } from './vocabulary.js';

/** The facts about a delivery that decisions depend on. Times are epoch milliseconds. */
export interface DeliverySnapshot {
  state: DeliveryState;
  /** Why a terminal delivery ended; decides whether it may be replayed. */
  terminalReason?: TerminalReason | null;
  /** Attempts started so far, including one in flight. */
  attemptCount: number;
  expiresAt: number;
  nextAttemptAt: number | null;
}

export type DeliveryEvent =
  | { type: 'claim' }
  /**
   * A submission's answer. `hold`: the provider account's rollout stage gives this answer to a
   * person instead of acting on it (src/domain/rollout.ts): an acceptance is still accepted, an
   * `unknown` stays `unknown` (listed in review, not reconciled), a definite answer ends `held`.
   */
  | { type: 'outcome'; outcome: SubmitOutcome; hold?: boolean }
  | { type: 'lease_expired' }
  | { type: 'expire' }
  | { type: 'cancel' }
  | { type: 'supersede' }
  /**
   * The send-time check found the recipient unsubscribed or the address suppressed: nothing
   * may be sent. From `submitting` the claim's attempt row is closed as not sent by the caller.
   */
  | { type: 'suppress'; reason: 'suppressed' | 'unsubscribed'; detail?: HoldReason }
  /**
   * The send-time check found the recipient's quiet hours or frequency cap (docs/scheduling.md):
   * nothing is sent now. Before expiry the delivery is `ready` again, due at `until`, and the
   * claim's attempt is withdrawn by the caller (a deferral is not an attempt); at or after
   * expiry it ends `terminal/expired`. From `submitting` only: the check runs after a claim.
   */
  | { type: 'defer'; until: number; reason: HoldReason }
  /** An operator's replay; from `unknown` only with the duplicate risk accepted explicitly. */
  | { type: 'replay'; acceptDuplicateRisk: boolean }
  | { type: 'evidence'; found: true; providerMessageId: string | null }
  | { type: 'evidence'; found: false; authoritative: boolean; windowClosed: boolean }
  /**
   * The provider reported, after holding the message, that it failed before anything went out
   * (an Android gateway phone's `Failed` with no `Sent`: no service, radio off, TTL expired).
   * A definite answer: `permanent` ends the delivery `rejected`, else it retries on its ladder
   * (a new submission under the same key) before expiry. Applies to `accepted` and `unknown`.
   */
  | { type: 'not_sent'; permanent: boolean; retryAfterMs?: number | null }
  /**
   * The provider account's ambiguity policy, applied to an `unknown` that no look-up can
   * settle. `dedupesByKey` is the adapter's declaration: without it `resend_same_key` is refused.
   */
  | { type: 'ambiguity_policy'; policy: AmbiguityPolicy; dedupesByKey: boolean; windowClosed: boolean };

export interface DecisionContext {
  now: number;
  policy: RetryPolicy;
  random: Random;
  /** The provider account's retry budget: a degraded account spreads its retries wider. */
  budget?: BudgetState;
}

export interface Transition {
  ok: true;
  on: TransitionEvent;
  from: DeliveryState;
  to: DeliveryState;
  terminalReason: TerminalReason | null;
  /** When the next call is allowed; set for `retryable`, a replay's `ready` and a deferral's `ready`, null otherwise. */
  nextAttemptAt: number | null;
  /** Why time-aware sending held or ended it (quiet hours, a frequency cap); null otherwise. */
  detail?: HoldReason | null;
  /** Set when the decision learned the provider's id for the message. */
  providerMessageId?: string | null;
}

export interface NoTransition {
  ok: false;
  /** Why the event does not apply in this state (a stale or out-of-order event). */
  reason: string;
}

export type Decision = Transition | NoTransition;

function move(from: DeliveryState, on: TransitionEvent, to: DeliveryState, extra: Partial<Omit<Transition, 'ok' | 'from' | 'on' | 'to'>> = {}): Transition {
  return { ok: true, on, from, to, terminalReason: null, nextAttemptAt: null, ...extra };
}

function terminal(from: DeliveryState, on: TransitionEvent, reason: TerminalReason): Transition {
  return move(from, on, 'terminal', { terminalReason: reason });
}

/**
 * Schedules another attempt or ends the delivery: two clocks meet here. The attempt clock
 * (backoff, Retry-After) proposes a time; the challenge clock (expires_at) vetoes any time
 * at or after expiry.
 */
function scheduleRetry(d: DeliverySnapshot, on: TransitionEvent, ctx: DecisionContext, retryAfterMs: number | null | undefined): Transition {
  if (d.attemptCount >= ctx.policy.maxAttempts) return terminal(d.state, on, 'exhausted');
  const delay = nextDelayMs(ctx.policy, Math.max(1, d.attemptCount), ctx.random, retryAfterMs);
  const at = ctx.now + delay + budgetSpreadMs(ctx.budget ?? 'healthy', delay, ctx.random);
  if (at >= d.expiresAt) return terminal(d.state, on, 'expired');
  return move(d.state, on, 'retryable', { nextAttemptAt: at });
}

/** Maps (delivery, event, now, policy) to the next state, or says why the event does not apply. */
export function decide(d: DeliverySnapshot, event: DeliveryEvent, ctx: DecisionContext): Decision {
  const { state } = d;
  if (event.type === 'replay') return replay(d, event.acceptDuplicateRisk, ctx.now);
  // Evidence may settle a delivery Herald gave up on (`unresolved`): the provider has it after all.
  if (event.type === 'evidence' && event.found && state === 'terminal' && d.terminalReason === 'unresolved') {
    return move(state, 'evidence', 'accepted', { providerMessageId: event.providerMessageId });
  }
  if (state === 'terminal') return { ok: false, reason: 'terminal is final except by an operator replay or evidence for an unresolved one' };
  switch (event.type) {
    case 'claim': {
      if (state !== 'ready' && state !== 'retryable') return { ok: false, reason: `cannot claim from ${state}` };
      if (ctx.now >= d.expiresAt) return terminal(state, 'claim', 'expired');
      if (d.nextAttemptAt !== null && d.nextAttemptAt > ctx.now) return { ok: false, reason: 'not due yet' };
      return move(state, 'claim', 'submitting');
    }
    case 'outcome': {
      if (state !== 'submitting') return { ok: false, reason: `no submission in flight (${state})` };
      const o = event.outcome;
      if (event.hold && o.kind !== 'accepted') return o.kind === 'unknown' ? move(state, 'outcome', 'unknown') : terminal(state, 'outcome', 'held');
      switch (o.kind) {
        case 'accepted':
          return move(state, 'outcome', 'accepted', { providerMessageId: o.providerMessageId });
        case 'unknown':
          return move(state, 'outcome', 'unknown');
        case 'permanent':
          return terminal(state, 'outcome', 'rejected');
        case 'retryable':
        case 'throttled':
          return scheduleRetry(d, 'outcome', ctx, o.retryAfterMs);
      }
      // Exhaustiveness: a new outcome kind must be handled above.
      return assertNever(o);
    }
    case 'lease_expired':
      if (state !== 'submitting') return { ok: false, reason: `no lease to expire (${state})` };
      return move(state, 'lease_expired', 'unknown');
    case 'expire':
      if (state !== 'ready' && state !== 'retryable') return { ok: false, reason: `nothing pending in ${state}` };
      if (ctx.now < d.expiresAt) return { ok: false, reason: 'not expired yet' };
      return terminal(state, 'expire', 'expired');
    case 'cancel':
      if (state !== 'ready' && state !== 'retryable') return { ok: false, reason: `cannot cancel from ${state}` };
      return terminal(state, 'cancel', 'cancelled');
    case 'supersede':
      // Only what has not been handed over: a submission in flight or unknown may already be out.
      if (state !== 'ready' && state !== 'retryable') return { ok: false, reason: `nothing pending to supersede in ${state}` };
      return terminal(state, 'supersede', 'superseded');
    case 'suppress':
      // Not from `unknown` or `accepted`: a submission that may be out cannot be taken back,
      // and recording it as not sent would be a lie. The claim's own check runs before the call.
      if (state !== 'ready' && state !== 'retryable' && state !== 'submitting') return { ok: false, reason: `nothing unsent to stop in ${state}` };
      return move(state, 'suppress', 'terminal', { terminalReason: event.reason, ...(event.detail ? { detail: event.detail } : {}) });
    case 'defer':
      if (state !== 'submitting') return { ok: false, reason: `a deferral follows a claim, not ${state}` };
      if (event.until >= d.expiresAt) return move(state, 'defer', 'terminal', { terminalReason: 'expired', detail: event.reason });
      return move(state, 'defer', 'ready', { nextAttemptAt: Math.max(ctx.now, event.until), detail: event.reason });
    case 'evidence':
      return evidence(d, event, ctx);
    case 'ambiguity_policy':
      return ambiguityPolicy(d, event, ctx);
    case 'not_sent':
      // Only a submission that is out (accepted, or possibly out: unknown) can be reported as not
      // sent; anywhere else the report is stale (a newer submission is under way or done).
      if (state !== 'accepted' && state !== 'unknown') return { ok: false, reason: `a report that nothing was sent changes nothing in ${state}` };
      if (event.permanent) return terminal(state, 'not_sent', 'rejected');
      return scheduleRetry(d, 'not_sent', ctx, event.retryAfterMs);
  }
  return assertNever(event);
}

/**
 * What evidence does. "The provider has it" settles an `unknown`, and also stops a pending
 * resend (`retryable`, or `ready` after a replay) because the message it would duplicate is
 * already there. "It does not" (authoritatively) lets an `unknown` retry with the same key.
 * While a submission is in flight (`submitting`) evidence waits: the call's answer comes first.
 */
function evidence(d: DeliverySnapshot, event: Extract<DeliveryEvent, { type: 'evidence' }>, ctx: DecisionContext): Decision {
  const { state } = d;
  if (event.found) {
    if (state === 'unknown' || state === 'retryable' || state === 'ready') {
      return move(state, 'evidence', 'accepted', { providerMessageId: event.providerMessageId });
    }
    return { ok: false, reason: `evidence that the provider has the message changes nothing in ${state}` };
  }
  if (state !== 'unknown') return { ok: false, reason: `evidence of absence applies to unknown, not ${state}` };
  if (event.authoritative) return scheduleRetry(d, 'evidence', ctx, null);
  if (event.windowClosed) return terminal(state, 'evidence', 'unresolved');
  return { ok: false, reason: 'no authoritative answer yet' };
}

/**
 * An account's ambiguity policy for an `unknown` with no authoritative look-up:
 * `wait_for_evidence` ends `unresolved` when its window closes; `user_resend` ends
 * `unresolved` at once (a person decides, with the resend action); `resend_same_key` (only
 * where the provider dedupes by key) and `accept_duplicate` resend now with the same key,
 * within the attempt cap and before expiry.
 */
function ambiguityPolicy(d: DeliverySnapshot, event: Extract<DeliveryEvent, { type: 'ambiguity_policy' }>, ctx: DecisionContext): Decision {
  const { state } = d;
  if (state !== 'unknown') return { ok: false, reason: `an ambiguity policy applies to unknown, not ${state}` };
  switch (event.policy) {
    case 'wait_for_evidence':
      return event.windowClosed ? terminal(state, 'ambiguity_policy', 'unresolved') : { ok: false, reason: 'waiting for evidence' };
    case 'user_resend':
      return terminal(state, 'ambiguity_policy', 'unresolved');
    case 'resend_same_key':
      if (!event.dedupesByKey) return { ok: false, reason: 'resend_same_key needs a provider that deduplicates by key' };
      return resendNow(d, ctx);
    case 'accept_duplicate':
      return resendNow(d, ctx);
  }
  return assertNever(event.policy);
}

function resendNow(d: DeliverySnapshot, ctx: DecisionContext): Transition {
  if (d.attemptCount >= ctx.policy.maxAttempts) return terminal(d.state, 'ambiguity_policy', 'exhausted');
  if (ctx.now >= d.expiresAt) return terminal(d.state, 'ambiguity_policy', 'expired');
  return move(d.state, 'ambiguity_policy', 'retryable', { nextAttemptAt: ctx.now });
}

/**
 * An operator's replay: the same logical delivery (same idempotency key) becomes `ready` for
 * one more attempt. Never after expiry (a new generation is the way to send again), never
 * for deliveries that must not be sent (superseded, suppressed, unsubscribed), and from
 * `unknown` (or terminal `unresolved`) only when the operator accepted the risk of a duplicate.
 */
function replay(d: DeliverySnapshot, acceptDuplicateRisk: boolean, now: number): Decision {
  if (now >= d.expiresAt) return { ok: false, reason: 'expired: issue a new generation to send again' };
  switch (d.state) {
    case 'terminal':
      if (!d.terminalReason || !(REPLAYABLE_REASONS as readonly string[]).includes(d.terminalReason)) {
        return { ok: false, reason: `a ${d.terminalReason ?? 'terminal'} delivery is not replayable` };
      }
      // `unresolved` is an `unknown` that was never resolved: the first submission may have
      // arrived, so replaying it is the same duplicate risk as replaying from `unknown`.
      if (d.terminalReason === 'unresolved' && !acceptDuplicateRisk) {
        return { ok: false, reason: 'unresolved: the first submission may have arrived; accept the duplicate risk to replay' };
      }
      return move('terminal', 'replay', 'ready', { nextAttemptAt: now });
    case 'unknown':
      if (!acceptDuplicateRisk) return { ok: false, reason: 'unknown: the first submission may have arrived; accept the duplicate risk to replay' };
      return move('unknown', 'replay', 'ready', { nextAttemptAt: now });
    case 'retryable':
      return move('retryable', 'replay', 'ready', { nextAttemptAt: now });
    default:
      return { ok: false, reason: `nothing to replay in ${d.state}` };
  }
}

function assertNever(x: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(x)}`);
}
