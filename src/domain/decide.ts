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
import type { DeliveryState, TerminalReason } from './vocabulary.js';

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
  | { type: 'outcome'; outcome: SubmitOutcome }
  | { type: 'lease_expired' }
  | { type: 'expire' }
  | { type: 'cancel' }
  | { type: 'supersede' }
  /** An operator's replay; from `unknown` only with the duplicate risk accepted explicitly. */
  | { type: 'replay'; acceptDuplicateRisk: boolean }
  | { type: 'evidence'; found: true; providerMessageId: string | null }
  | { type: 'evidence'; found: false; authoritative: boolean; windowClosed: boolean };

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
  /** When the next call is allowed; set for `retryable` and for a replay's `ready`, null otherwise. */
  nextAttemptAt: number | null;
  /** Set when the decision learned the provider's id for the message. */
  providerMessageId?: string | null;
}

export interface NoTransition {
  ok: false;
  /** Why the event does not apply in this state (a stale or out-of-order event). */
  reason: string;
}

export type Decision = Transition | NoTransition;

function move(
  from: DeliveryState,
  on: TransitionEvent,
  to: DeliveryState,
  extra: Partial<Omit<Transition, 'ok' | 'from' | 'on' | 'to'>> = {},
): Transition {
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
function scheduleRetry(
  d: DeliverySnapshot,
  on: TransitionEvent,
  ctx: DecisionContext,
  retryAfterMs: number | null | undefined,
): Transition {
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
  if (state === 'terminal') return { ok: false, reason: 'terminal is final except by an operator replay' };
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
    case 'evidence': {
      if (state !== 'unknown') return { ok: false, reason: `evidence applies to unknown, not ${state}` };
      if (event.found) return move(state, 'evidence', 'accepted', { providerMessageId: event.providerMessageId });
      if (event.authoritative) return scheduleRetry(d, 'evidence', ctx, null);
      if (event.windowClosed) return terminal(state, 'evidence', 'unresolved');
      return { ok: false, reason: 'no authoritative answer yet' };
    }
  }
  return assertNever(event);
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
