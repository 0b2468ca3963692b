/**
 * The staged rollout of a provider account (seed 000: "shadow-classify errors first, then enable
 * definite rate-limit retries, and finally add reconciliation"). A stage changes what Herald does
 * with a provider's answer, never how the answer is classified or recorded:
 *
 * - `shadow`: an acceptance is accepted; anything else goes to a person. A definite answer
 *   (retryable, throttled, permanent) ends `terminal/held` (replayable from the review queue);
 *   an `unknown` stays `unknown` (the truth), is listed in review at once and is not reconciled.
 * - `definite_retries`: definite answers follow their ladders as in `full`; an `unknown` is held
 *   as in `shadow` (no look-up, no ambiguity policy).
 * - `full`: today's rules (`decide`), reconciliation and ambiguity policies included.
 *
 * For every answer both decisions are computed: the one taken at the account's stage and the one
 * the next stage would take, so an operator sees what promoting the account would change.
 * Pure: time and randomness come in through `decide`'s context.
 */
import { decide, type Decision, type DecisionContext, type DeliverySnapshot, type Transition } from './decide.js';
import type { SubmitOutcome } from './outcome.js';
import type { AmbiguityPolicy } from './vocabulary.js';

export const ROLLOUT_STAGES = ['shadow', 'definite_retries', 'full'] as const;
export type RolloutStage = (typeof ROLLOUT_STAGES)[number];

/** A provider account's stage when its configuration names none. */
export const DEFAULT_ROLLOUT_STAGE: RolloutStage = 'full';

/**
 * What Herald does (or would do) with one answer, as a short stable word stored on the attempt:
 * `accept`; `retry_at` (on the ladder, with a time); `reject`, `exhaust`, `expire` (ends with that
 * reason); `review` (held for a person); for an `unknown`, how it is settled: `reconcile_lookup`
 * (the provider is looked up by key) or the account's ambiguity policy for the purpose.
 */
export const ROLLOUT_DECISIONS = [
  'accept',
  'retry_at',
  'reject',
  'exhaust',
  'expire',
  'review',
  'reconcile_lookup',
  'wait_for_evidence',
  'resend_same_key',
  'user_resend',
  'accept_duplicate',
] as const satisfies readonly string[];
export type RolloutDecisionKind = (typeof ROLLOUT_DECISIONS)[number];

export interface RolloutDecision {
  kind: RolloutDecisionKind;
  /** When the next call would be allowed (`retry_at` only), epoch ms; null otherwise. */
  retryAt: number | null;
}

/** How an `unknown` is settled at `full`: a look-up by key where the provider has one, else the account's ambiguity policy. */
export type UnknownSettlement = 'reconcile_lookup' | AmbiguityPolicy;

export interface RolloutContext extends DecisionContext {
  stage: RolloutStage;
  unknownSettlement: UnknownSettlement;
  /**
   * True for an outcome Herald made up without calling the provider (`expired_before_send`,
   * `lease_lapsed_before_send`): not a provider's answer, so no stage holds it; it follows `full`.
   */
  notCalled?: boolean;
}

export interface RolloutResult {
  /** The transition to write: `decide`'s at `full`, or the stage's hold. */
  transition: Transition;
  /** The decision taken at the account's stage. */
  decision: RolloutDecision;
  /** The decision the next stage would take (for `full`: the same). */
  nextStageDecision: RolloutDecision;
}

/** The stage after `stage` (`full` is the last: its next is itself). */
export function nextRolloutStage(stage: RolloutStage): RolloutStage {
  return stage === 'shadow' ? 'definite_retries' : 'full';
}

/** True when a stage holds this answer for review instead of acting on it. */
function holds(stage: RolloutStage, outcome: SubmitOutcome): boolean {
  if (outcome.kind === 'accepted') return false;
  if (stage === 'shadow') return true;
  if (stage === 'definite_retries') return outcome.kind === 'unknown';
  return false;
}

/** The word for what `full` does with an answer, given `decide`'s transition. */
function fullDecision(t: Transition, settlement: UnknownSettlement): RolloutDecision {
  switch (t.to) {
    case 'accepted':
      return { kind: 'accept', retryAt: null };
    case 'unknown':
      return { kind: settlement, retryAt: null };
    case 'retryable':
      return { kind: 'retry_at', retryAt: t.nextAttemptAt };
    case 'terminal':
      if (t.terminalReason === 'rejected') return { kind: 'reject', retryAt: null };
      if (t.terminalReason === 'exhausted') return { kind: 'exhaust', retryAt: null };
      if (t.terminalReason === 'expired') return { kind: 'expire', retryAt: null };
      break;
    default:
      break;
  }
  throw new Error(`an outcome cannot lead to ${t.to}/${t.terminalReason ?? '-'}`);
}

const REVIEW: RolloutDecision = { kind: 'review', retryAt: null };

/**
 * Decides a submission's outcome at the account's rollout stage (`d` is the `submitting`
 * delivery), and what the next stage would decide. The hold itself is `decide`'s (its outcome
 * event's `hold`), which draws no randomness; `full`'s decision is drawn once, so the next
 * stage's retry time is the one `full` would take, and at `full` both decisions are the same.
 */
export function decideAtStage(d: DeliverySnapshot, outcome: SubmitOutcome, ctx: RolloutContext): RolloutResult {
  const stage = ctx.notCalled ? 'full' : ctx.stage;
  const next = nextRolloutStage(stage);
  const full = ok(decide(d, { type: 'outcome', outcome }, ctx));
  const atFull = fullDecision(full, ctx.unknownSettlement);
  const nextStageDecision = holds(next, outcome) ? REVIEW : atFull;
  if (!holds(stage, outcome)) return { transition: full, decision: atFull, nextStageDecision };
  return { transition: ok(decide(d, { type: 'outcome', outcome, hold: true }, ctx)), decision: REVIEW, nextStageDecision };
}

function ok(decision: Decision): Transition {
  if (!decision.ok) throw new Error(`decide refused an outcome: ${decision.reason}`);
  return decision;
}
