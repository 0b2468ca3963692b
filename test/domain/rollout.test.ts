/**
 * The staged rollout's rules (src/domain/rollout.ts), exhaustively: every outcome class × every
 * stage × every way `full` can end it (ladder, cap, expiry) × every way an `unknown` is settled.
 */
import { describe, expect, it } from 'vitest';
import {
  AMBIGUITY_POLICIES,
  decide,
  decideAtStage,
  isAllowedTransition,
  nextRolloutStage,
  ROLLOUT_DECISIONS,
  ROLLOUT_STAGES,
  type DeliverySnapshot,
  type RetryPolicy,
  type RolloutContext,
  type RolloutStage,
  type SubmitOutcome,
  type UnknownSettlement,
} from '../../src/domain/index.js';

const POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000, jitter: 'none' };
const NOW = 1_000_000;
const EXPIRES = NOW + 600_000;

const OUTCOMES: Record<SubmitOutcome['kind'], SubmitOutcome> = {
  accepted: { kind: 'accepted', providerMessageId: 'pm_1' },
  retryable: { kind: 'retryable', code: 'http_503', message: 'unavailable', retryAfterMs: null },
  throttled: { kind: 'throttled', code: 'http_429', message: 'slow down', retryAfterMs: 5_000 },
  permanent: { kind: 'permanent', reason: 'invalid_destination', code: '21211', message: 'invalid number' },
  unknown: { kind: 'unknown', code: 'timeout', message: 'read timed out' },
};
const KINDS = Object.keys(OUTCOMES) as SubmitOutcome['kind'][];
const SETTLEMENTS: UnknownSettlement[] = ['reconcile_lookup', ...AMBIGUITY_POLICIES];

/** The delivery in flight: its attempt `attemptCount`, expiring at `expiresAt`. */
const submitting = (over: Partial<DeliverySnapshot> = {}): DeliverySnapshot => ({
  state: 'submitting',
  attemptCount: 1,
  expiresAt: EXPIRES,
  nextAttemptAt: null,
  ...over,
});
const ctx = (stage: RolloutStage, over: Partial<RolloutContext> = {}): RolloutContext => ({
  now: NOW,
  policy: POLICY,
  random: () => 0.5,
  stage,
  unknownSettlement: 'reconcile_lookup',
  ...over,
});

/** The snapshots on which `full` ends a definite retryable answer each way: on the ladder, at the cap, past expiry. */
const LADDER_CASES = {
  on_ladder: submitting(),
  at_cap: submitting({ attemptCount: 3 }),
  past_expiry: submitting({ expiresAt: NOW + 500 }),
};

describe('decideAtStage', () => {
  it('next stage: shadow → definite_retries → full → full', () => {
    expect(ROLLOUT_STAGES.map(nextRolloutStage)).toEqual(['definite_retries', 'full', 'full']);
  });

  for (const stage of ROLLOUT_STAGES) {
    for (const kind of KINDS) {
      for (const [name, d] of Object.entries(LADDER_CASES)) {
        it(`${stage} × ${kind} (${name}): a table edge, a known decision word, and the right hold`, () => {
          const outcome = OUTCOMES[kind];
          const r = decideAtStage(d, outcome, ctx(stage));
          const full = decide(d, { type: 'outcome', outcome }, ctx(stage));
          if (!full.ok) throw new Error(full.reason);
          expect(isAllowedTransition(r.transition.from, r.transition.to, r.transition.on)).toBe(true);
          expect(ROLLOUT_DECISIONS).toContain(r.decision.kind);
          expect(ROLLOUT_DECISIONS).toContain(r.nextStageDecision.kind);
          const heldHere = kind !== 'accepted' && (stage === 'shadow' || (stage === 'definite_retries' && kind === 'unknown'));
          if (heldHere) {
            expect(r.decision).toEqual({ kind: 'review', retryAt: null });
            // A definite answer ends terminal/held; an unknown stays unknown (the truth).
            expect(r.transition).toMatchObject(
              kind === 'unknown'
                ? { to: 'unknown', terminalReason: null, nextAttemptAt: null }
                : { to: 'terminal', terminalReason: 'held', nextAttemptAt: null },
            );
          } else {
            // Not held: exactly what decide does today.
            expect(r.transition).toEqual(full);
            expect(r.decision.kind).not.toBe('review');
          }
          if (stage === 'full') expect(r.nextStageDecision).toEqual(r.decision);
        });
      }
    }
  }

  it('full: the decision words name what decide did', () => {
    const words = (d: DeliverySnapshot, o: SubmitOutcome) => decideAtStage(d, o, ctx('full')).decision;
    expect(words(submitting(), OUTCOMES.accepted)).toEqual({ kind: 'accept', retryAt: null });
    expect(words(submitting(), OUTCOMES.permanent)).toEqual({ kind: 'reject', retryAt: null });
    // Ladder 1 s after attempt 1, no jitter; the 429's Retry-After of 5 s is a lower bound.
    expect(words(submitting(), OUTCOMES.retryable)).toEqual({ kind: 'retry_at', retryAt: NOW + 1_000 });
    expect(words(submitting(), OUTCOMES.throttled)).toEqual({ kind: 'retry_at', retryAt: NOW + 5_000 });
    expect(words(LADDER_CASES.at_cap, OUTCOMES.retryable)).toEqual({ kind: 'exhaust', retryAt: null });
    expect(words(LADDER_CASES.past_expiry, OUTCOMES.throttled)).toEqual({ kind: 'expire', retryAt: null });
  });

  it('unknown at full is recorded as how the reconciler will settle it, for each settlement', () => {
    for (const unknownSettlement of SETTLEMENTS) {
      const r = decideAtStage(submitting(), OUTCOMES.unknown, ctx('full', { unknownSettlement }));
      expect(r.transition).toMatchObject({ to: 'unknown' });
      expect(r.decision).toEqual({ kind: unknownSettlement, retryAt: null });
      expect(r.nextStageDecision).toEqual(r.decision);
    }
  });

  it('shadow: every answer but an acceptance is held; the next stage (definite_retries) would follow the ladder but hold unknown', () => {
    const s = (o: SubmitOutcome, d = submitting()) => decideAtStage(d, o, ctx('shadow'));
    expect(s(OUTCOMES.accepted)).toMatchObject({ decision: { kind: 'accept' }, nextStageDecision: { kind: 'accept' }, transition: { to: 'accepted' } });
    expect(s(OUTCOMES.retryable)).toMatchObject({ decision: { kind: 'review' }, nextStageDecision: { kind: 'retry_at', retryAt: NOW + 1_000 } });
    expect(s(OUTCOMES.throttled)).toMatchObject({ decision: { kind: 'review' }, nextStageDecision: { kind: 'retry_at', retryAt: NOW + 5_000 } });
    expect(s(OUTCOMES.permanent)).toMatchObject({ decision: { kind: 'review' }, nextStageDecision: { kind: 'reject' } });
    expect(s(OUTCOMES.retryable, LADDER_CASES.at_cap)).toMatchObject({ decision: { kind: 'review' }, nextStageDecision: { kind: 'exhaust' } });
    expect(s(OUTCOMES.retryable, LADDER_CASES.past_expiry)).toMatchObject({ decision: { kind: 'review' }, nextStageDecision: { kind: 'expire' } });
    expect(s(OUTCOMES.unknown)).toMatchObject({ decision: { kind: 'review' }, nextStageDecision: { kind: 'review' }, transition: { to: 'unknown' } });
  });

  it('definite_retries: definite answers as at full; unknown held, and the next stage (full) would reconcile it', () => {
    const s = (o: SubmitOutcome, settlement: UnknownSettlement = 'reconcile_lookup') =>
      decideAtStage(submitting(), o, ctx('definite_retries', { unknownSettlement: settlement }));
    expect(s(OUTCOMES.retryable)).toMatchObject({ decision: { kind: 'retry_at', retryAt: NOW + 1_000 }, transition: { to: 'retryable' } });
    expect(s(OUTCOMES.retryable).nextStageDecision).toEqual(s(OUTCOMES.retryable).decision);
    expect(s(OUTCOMES.permanent)).toMatchObject({
      decision: { kind: 'reject' },
      nextStageDecision: { kind: 'reject' },
      transition: { terminalReason: 'rejected' },
    });
    expect(s(OUTCOMES.unknown)).toMatchObject({ decision: { kind: 'review' }, nextStageDecision: { kind: 'reconcile_lookup' }, transition: { to: 'unknown' } });
    expect(s(OUTCOMES.unknown, 'accept_duplicate').nextStageDecision).toEqual({ kind: 'accept_duplicate', retryAt: null });
  });

  it("an outcome Herald made up without calling (expired_before_send, lease_lapsed_before_send) is no provider's answer: no stage holds it", () => {
    const lapsed: SubmitOutcome = { kind: 'retryable', code: 'lease_lapsed_before_send', message: 'not sent' };
    for (const stage of ROLLOUT_STAGES) {
      const r = decideAtStage(submitting(), lapsed, ctx(stage, { notCalled: true }));
      expect(r.transition).toMatchObject({ to: 'retryable', nextAttemptAt: NOW + 1_000 });
      expect(r.decision).toEqual({ kind: 'retry_at', retryAt: NOW + 1_000 });
      expect(r.nextStageDecision).toEqual(r.decision);
    }
  });

  it('draws randomness exactly as decide does: the next stage gets the retry time full would take', () => {
    const policy: RetryPolicy = { ...POLICY, jitter: 'equal' };
    const draws: number[] = [];
    const random = () => {
      draws.push(0.25);
      return 0.25;
    };
    const shadow = decideAtStage(submitting(), OUTCOMES.retryable, { ...ctx('shadow'), policy, random });
    const shadowDraws = draws.length;
    draws.length = 0;
    const full = decideAtStage(submitting(), OUTCOMES.retryable, { ...ctx('full'), policy, random });
    expect(draws.length).toBe(shadowDraws);
    expect(shadow.nextStageDecision).toEqual(full.decision);
  });
});

describe("decide's hold", () => {
  it('from submitting only; an acceptance is never held', () => {
    expect(decide(submitting(), { type: 'outcome', outcome: OUTCOMES.accepted, hold: true }, ctx('shadow'))).toMatchObject({ ok: true, to: 'accepted' });
    expect(decide(submitting(), { type: 'outcome', outcome: OUTCOMES.permanent, hold: true }, ctx('shadow'))).toMatchObject({
      ok: true,
      to: 'terminal',
      terminalReason: 'held',
    });
    expect(decide({ ...submitting(), state: 'ready' }, { type: 'outcome', outcome: OUTCOMES.retryable, hold: true }, ctx('shadow'))).toMatchObject({
      ok: false,
    });
  });

  it('a held delivery is replayable before expiry, without the duplicate-risk flag (the answer was definite)', () => {
    const held: DeliverySnapshot = { state: 'terminal', terminalReason: 'held', attemptCount: 1, expiresAt: EXPIRES, nextAttemptAt: null };
    expect(decide(held, { type: 'replay', acceptDuplicateRisk: false }, ctx('shadow'))).toMatchObject({ ok: true, to: 'ready', nextAttemptAt: NOW });
    expect(decide(held, { type: 'replay', acceptDuplicateRisk: false }, { ...ctx('shadow'), now: EXPIRES })).toMatchObject({ ok: false });
  });
});
