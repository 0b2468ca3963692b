/** How a transition and its attempt outcome are spelled in rows and events, shared by every driver. */
import type { AttemptClose, TransitionWrite } from './core-store.js';
import type { Body } from './sql-executor.js';

/**
 * A driver's guarded transition as a body step (sqlite/transitions.ts, postgres/transitions.ts),
 * for the shared parts' transactions: the delivery's provider account when its guard held (the
 * expected state and fencing token), null when it did not.
 */
export type GuardedTransition = (w: TransitionWrite) => Body<string | null>;

export interface AttemptFields {
  outcome: string;
  provider_message_id: string | null;
  error_code: string | null;
  error_message: string | null;
  retry_after_ms: number | null;
}

/** Flattens an outcome (or a lease expiry) into the attempts columns. */
export function attemptFields(outcome: AttemptClose['outcome']): AttemptFields {
  switch (outcome.kind) {
    case 'accepted':
      return { outcome: 'accepted', provider_message_id: outcome.providerMessageId, error_code: null, error_message: null, retry_after_ms: null };
    case 'lease_expired':
      return {
        outcome: 'lease_expired',
        provider_message_id: null,
        error_code: 'lease_expired',
        error_message: 'the worker did not report before its lease ended; the call may have happened',
        retry_after_ms: null,
      };
    case 'retryable':
    case 'throttled':
      return {
        outcome: outcome.kind,
        provider_message_id: null,
        error_code: outcome.code,
        error_message: outcome.message,
        retry_after_ms: outcome.retryAfterMs ?? null,
      };
    case 'permanent':
      return { outcome: 'permanent', provider_message_id: null, error_code: outcome.code, error_message: outcome.message, retry_after_ms: null };
    case 'unknown':
      return { outcome: 'unknown', provider_message_id: null, error_code: outcome.code, error_message: outcome.message, retry_after_ms: null };
  }
}

/** The attempts' rollout columns of a write: its decisions, or NULLs when it carries none. */
export interface DecisionFields {
  decision: string | null;
  decision_retry_at: number | null;
  next_stage_decision: string | null;
  next_stage_retry_at: number | null;
}

/** Flattens an attempt close's rollout decisions into the attempts columns. */
export function decisionFields(close: AttemptClose | undefined): DecisionFields {
  const d = close?.decisions;
  return {
    decision: d?.decision.kind ?? null,
    decision_retry_at: d?.decision.retryAt ?? null,
    next_stage_decision: d?.nextStageDecision.kind ?? null,
    next_stage_retry_at: d?.nextStageDecision.retryAt ?? null,
  };
}

/** The outbox event payload written with an applied transition (same in every driver). */
export function transitionPayload(w: TransitionWrite): string {
  const t = w.transition;
  return JSON.stringify({
    delivery_id: w.deliveryId,
    from: t.from,
    state: t.to,
    terminal_reason: t.terminalReason,
    next_attempt_at: t.nextAttemptAt,
    provider_message_id: t.providerMessageId ?? null,
    // Only when time-aware sending held or ended it: every other event's payload is unchanged.
    ...(t.detail ? { hold_reason: t.detail } : {}),
  });
}
