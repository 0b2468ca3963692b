/**
 * `decide` is the one place where a delivery's next state is computed. Workers, the lease
 * rescuer and the expiry sweep all ask it, then write its answer with a guarded update.
 * Pure: time and randomness come in as arguments.
 */
import type { SubmitOutcome } from './outcome.js';
import type { Random, RetryPolicy } from './retry-policy.js';
import { nextDelayMs } from './retry-policy.js';
import type { TransitionEvent } from './transitions.js';
import type { DeliveryState, TerminalReason } from './vocabulary.js';

/** The facts about a delivery that decisions depend on. Times are epoch milliseconds. */
export interface DeliverySnapshot {
  state: DeliveryState;
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
  | { type: 'evidence'; found: true; providerMessageId: string | null }
  | { type: 'evidence'; found: false; authoritative: boolean; windowClosed: boolean };

export interface DecisionContext {
  now: number;
  policy: RetryPolicy;
  random: Random;
}

export interface Transition {
  ok: true;
  on: TransitionEvent;
  from: DeliveryState;
  to: DeliveryState;
  terminalReason: TerminalReason | null;
  /** When the next call is allowed; set only for `retryable`, null otherwise. */
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
  const at = ctx.now + nextDelayMs(ctx.policy, Math.max(1, d.attemptCount), ctx.random, retryAfterMs);
  if (at >= d.expiresAt) return terminal(d.state, on, 'expired');
  return move(d.state, on, 'retryable', { nextAttemptAt: at });
}

/** Maps (delivery, event, now, policy) to the next state, or says why the event does not apply. */
export function decide(d: DeliverySnapshot, event: DeliveryEvent, ctx: DecisionContext): Decision {
  const { state } = d;
  if (state === 'terminal') return { ok: false, reason: 'terminal is final' };
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

function assertNever(x: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(x)}`);
}
