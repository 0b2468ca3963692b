/**
 * Property tests for `decide`: random event sequences applied to one delivery, with a clock
 * that only moves forward, random retry policies (exponential or scheduled, every jitter
 * mode) and a seeded random. A run starts from a fresh `ready` delivery or, sometimes, from a
 * `terminal` one with any reason (suppressed, unsubscribed, superseded, ...), so replay is
 * exercised against every reason. Each property also counts the cases it actually
 * exercised and asserts those counts are non-zero, so a generator change cannot turn a
 * property into one that holds vacuously.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  REPLAYABLE_REASONS,
  TERMINAL_REASONS,
  TRANSITION_TABLE,
  decide,
  type Decision,
  type DeliveryEvent,
  type DeliverySnapshot,
  type PermanentReason,
  type RetryPolicy,
  type SubmitOutcome,
  type TerminalReason,
} from '../../src/domain/index.js';

// 2000 runs of up to 40 events each: ~2 s for the file, and every table row is hit many times.
const NUM_RUNS = 2000;

/** mulberry32: a small seeded generator returning numbers in [0, 1). */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How far the clock moves before an event. Targets are resolved against the live snapshot. */
type Step = { kind: 'delta'; ms: number } | { kind: 'to_next_attempt' } | { kind: 'to_expiry' } | { kind: 'just_before_expiry' };

interface Scenario {
  start: number;
  /** expires_at relative to start (0 means already expired at creation). */
  ttlMs: number;
  /** null: a fresh `ready` delivery; otherwise a `terminal` one with this reason and attempt count. */
  initial: { reason: TerminalReason; attemptCount: number } | null;
  policy: RetryPolicy;
  seed: number;
  steps: Array<{ step: Step; event: DeliveryEvent }>;
}

const retryAfterArb: fc.Arbitrary<number | null | undefined> = fc.oneof(
  { arbitrary: fc.constantFrom(undefined, null), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 600_000 }), weight: 4 },
  { arbitrary: fc.integer({ min: -1_000, max: 0 }), weight: 1 },
  { arbitrary: fc.double({ min: 0.001, max: 100_000, noNaN: true }), weight: 1 },
  // An adapter that fails to parse a Retry-After header may hand over NaN; "never" is Infinity.
  { arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY), weight: 1 },
);

// Retryable and throttled weigh double: the retryable state has the most edges to exercise.
const outcomeArb: fc.Arbitrary<SubmitOutcome> = fc.oneof(
  fc.record({
    kind: fc.constant('accepted' as const),
    providerMessageId: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: null }),
  }),
  {
    arbitrary: fc.record({
      kind: fc.constant('retryable' as const),
      code: fc.constant('http_503'),
      message: fc.constant('unavailable'),
      retryAfterMs: retryAfterArb,
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('throttled' as const),
      code: fc.constant('http_429'),
      message: fc.constant('slow down'),
      retryAfterMs: retryAfterArb,
    }),
    weight: 2,
  },
  fc.record({
    kind: fc.constant('permanent' as const),
    reason: fc.constantFrom<PermanentReason>('invalid_destination', 'unsubscribed_at_provider', 'content_rejected', 'unauthorized', 'other'),
    code: fc.constant('http_400'),
    message: fc.constant('bad number'),
  }),
  fc.record({ kind: fc.constant('unknown' as const), code: fc.constant('timeout'), message: fc.constant('read timed out') }),
);

const eventArb: fc.Arbitrary<DeliveryEvent> = fc.oneof(
  { arbitrary: fc.constant({ type: 'claim' as const }), weight: 5 },
  { arbitrary: outcomeArb.map((outcome) => ({ type: 'outcome' as const, outcome })), weight: 6 },
  // A rollout stage holding the answer for a person (src/domain/rollout.ts).
  { arbitrary: outcomeArb.map((outcome) => ({ type: 'outcome' as const, outcome, hold: true })), weight: 1 },
  { arbitrary: fc.constant({ type: 'lease_expired' as const }), weight: 1 },
  { arbitrary: fc.constant({ type: 'expire' as const }), weight: 2 },
  { arbitrary: fc.constant({ type: 'cancel' as const }), weight: 1 },
  { arbitrary: fc.constant({ type: 'supersede' as const }), weight: 1 },
  { arbitrary: fc.constantFrom('suppressed' as const, 'unsubscribed' as const).map((reason) => ({ type: 'suppress' as const, reason })), weight: 1 },
  { arbitrary: fc.boolean().map((acceptDuplicateRisk) => ({ type: 'replay' as const, acceptDuplicateRisk })), weight: 2 },
  // The send-time quiet-hours or frequency-cap check; `until` is an offset from the step's clock
  // here (run() makes it absolute), up to two days: either side of expiry.
  {
    arbitrary: fc
      .record({ until: fc.integer({ min: 0, max: 2 * 86_400_000 }), reason: fc.constantFrom('quiet_hours' as const, 'frequency_capped' as const) })
      .map((e) => ({ type: 'defer' as const, ...e })),
    weight: 2,
  },
  // A gateway phone's definite "failed before sending" (accepted or unknown → retry or end).
  // Weight 3, mostly retryable: `unknown -> retryable on not_sent` needs an unknown with attempts and time left.
  {
    arbitrary: fc
      .record({ permanent: fc.constantFrom(false, false, false, true), retryAfterMs: retryAfterArb })
      .map((e) => ({ type: 'not_sent' as const, ...e })),
    weight: 3,
  },
  {
    arbitrary: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: null }).map((providerMessageId) => ({
      type: 'evidence' as const,
      found: true as const,
      providerMessageId,
    })),
    weight: 1,
  },
  {
    arbitrary: fc.record({ authoritative: fc.boolean(), windowClosed: fc.boolean() }).map((e) => ({
      type: 'evidence' as const,
      found: false as const,
      ...e,
    })),
    weight: 3,
  },
  {
    arbitrary: fc
      .record({
        policy: fc.constantFrom('wait_for_evidence' as const, 'resend_same_key' as const, 'user_resend' as const, 'accept_duplicate' as const),
        dedupesByKey: fc.boolean(),
        windowClosed: fc.boolean(),
      })
      .map((e) => ({ type: 'ambiguity_policy' as const, ...e })),
    weight: 2,
  },
);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 2_000 }).map((ms) => ({ kind: 'delta' as const, ms })), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 600_000 }).map((ms) => ({ kind: 'delta' as const, ms })), weight: 1 },
  { arbitrary: fc.constant({ kind: 'to_next_attempt' as const }), weight: 4 },
  { arbitrary: fc.constant({ kind: 'to_expiry' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'just_before_expiry' as const }), weight: 1 },
);

const policyArb: fc.Arbitrary<RetryPolicy> = fc
  .record({
    maxAttempts: fc.integer({ min: 1, max: 6 }),
    baseDelayMs: fc.integer({ min: 1, max: 30_000 }),
    maxDelayMs: fc.integer({ min: 1, max: 600_000 }),
    jitter: fc.constantFrom('equal' as const, 'none' as const, 'full' as const, 'up10' as const),
    // An explicit ladder (as in ladders.ts) a third of the time, the doubling backoff otherwise.
    scheduleMs: fc.option(fc.array(fc.integer({ min: 1, max: 120_000 }), { minLength: 1, maxLength: 5 }), { nil: undefined, freq: 2 }),
  })
  .map(({ scheduleMs, ...p }): RetryPolicy => (scheduleMs === undefined ? p : { ...p, scheduleMs }));

// Mostly fresh deliveries; sometimes one that some other part of Herald already ended.
const initialArb: fc.Arbitrary<Scenario['initial']> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 6 },
  { arbitrary: fc.record({ reason: fc.constantFrom(...TERMINAL_REASONS), attemptCount: fc.integer({ min: 0, max: 7 }) }), weight: 1 },
);

const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  start: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
  ttlMs: fc.oneof(
    { arbitrary: fc.constant(0), weight: 1 },
    { arbitrary: fc.integer({ min: 1, max: 60_000 }), weight: 1 },
    { arbitrary: fc.integer({ min: 60_000, max: 86_400_000 }), weight: 6 },
  ),
  initial: initialArb,
  policy: policyArb,
  seed: fc.integer(),
  steps: fc.array(fc.record({ step: stepArb, event: eventArb }), { minLength: 1, maxLength: 40, size: 'max' }),
});

/** One applied event: the snapshot before it, the clock, and the decision. */
interface TraceEntry {
  before: DeliverySnapshot;
  now: number;
  event: DeliveryEvent;
  decision: Decision;
  /** True while an ambiguous submission (unknown outcome, expired lease) is unresolved. */
  ambiguousBefore: boolean;
  /** attemptCount when the last successful replay happened, null before any replay. */
  countAtLastReplay: number | null;
}

interface Run {
  scenario: Scenario;
  expiresAt: number;
  trace: TraceEntry[];
  final: DeliverySnapshot;
}

function advance(now: number, step: Step, d: DeliverySnapshot): number {
  switch (step.kind) {
    case 'delta':
      return now + step.ms;
    case 'to_next_attempt':
      return d.nextAttemptAt === null ? now : Math.max(now, d.nextAttemptAt);
    case 'to_expiry':
      return Math.max(now, d.expiresAt);
    case 'just_before_expiry':
      return Math.max(now, d.expiresAt - 1);
  }
}

/** The provider authoritatively has no such message: lifts ambiguity. */
function isAuthoritativeNotFound(e: DeliveryEvent): boolean {
  return e.type === 'evidence' && !e.found && e.authoritative;
}

/**
 * The account's explicit choice to resend an `unknown`: with the same key where the provider
 * dedupes by it, or accepting a duplicate. Written on the account, shown in the API.
 */
function isPolicyResend(e: DeliveryEvent): boolean {
  return e.type === 'ambiguity_policy' && (e.policy === 'accept_duplicate' || (e.policy === 'resend_same_key' && e.dedupesByKey));
}

/** An operator replay that explicitly accepted the risk of a duplicate: the only other way out of ambiguity. */
function isRiskAcceptingReplay(e: DeliveryEvent): boolean {
  return e.type === 'replay' && e.acceptDuplicateRisk;
}

const isReplayable = (reason: TerminalReason | null | undefined): boolean => reason != null && (REPLAYABLE_REASONS as readonly string[]).includes(reason);

/**
 * Applies the scenario's events to its initial delivery, updating the snapshot on every ok
 * decision the way the store does: state, terminal reason and next_attempt_at from the
 * decision, attempt_count + 1 on every claim that starts a submission.
 */
function run(s: Scenario): Run {
  const expiresAt = s.start + s.ttlMs;
  const random = seededRandom(s.seed);
  let d: DeliverySnapshot = s.initial
    ? { state: 'terminal', terminalReason: s.initial.reason, attemptCount: s.initial.attemptCount, expiresAt, nextAttemptAt: null }
    : { state: 'ready', terminalReason: null, attemptCount: 0, expiresAt, nextAttemptAt: null };
  let now = s.start;
  // A delivery that ended `unresolved` carries an ambiguous submission with it.
  let ambiguous = s.initial?.reason === 'unresolved';
  let countAtLastReplay: number | null = null;
  const trace: TraceEntry[] = [];
  for (const { step, event: generated } of s.steps) {
    now = advance(now, step, d);
    const event: DeliveryEvent = generated.type === 'defer' ? { ...generated, until: now + generated.until } : generated;
    const decision = decide(d, event, { now, policy: s.policy, random });
    trace.push({ before: d, now, event, decision, ambiguousBefore: ambiguous, countAtLastReplay });
    if (!decision.ok) continue;
    d = {
      state: decision.to,
      terminalReason: decision.terminalReason,
      // A deferral withdraws the claim's attempt (the store deletes its row): it was never a try.
      attemptCount:
        d.attemptCount + (decision.on === 'claim' && decision.to === 'submitting' ? 1 : 0) - (decision.on === 'defer' && decision.to === 'ready' ? 1 : 0),
      expiresAt,
      nextAttemptAt: decision.nextAttemptAt,
    };
    if (decision.on === 'replay') countAtLastReplay = d.attemptCount;
    // Ambiguity starts with an unknown outcome or an expired lease, and ends only with an
    // authoritative "no such message" or a replay whose operator accepted the duplicate risk
    // (after either, a new attempt may legitimately fail retryably).
    if ((event.type === 'outcome' && event.outcome.kind === 'unknown') || event.type === 'lease_expired') {
      ambiguous = true;
    } else if (isAuthoritativeNotFound(event) || isRiskAcceptingReplay(event) || isPolicyResend(event) || event.type === 'not_sent') {
      // (A phone's not_sent report is as definite as "no such message": nothing went out.)
      ambiguous = false;
    }
  }
  return { scenario: s, expiresAt, trace, final: d };
}

const EXAMPLE_POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000, jitter: 'equal' };
const throttled = (retryAfterMs: number | null): DeliveryEvent => ({
  type: 'outcome',
  outcome: { kind: 'throttled', code: 'http_429', message: 'slow down', retryAfterMs },
});
const at = (event: DeliveryEvent, step: Step = { kind: 'delta', ms: 0 }): Scenario['steps'][number] => ({ step, event });

const RETRYABLE: DeliveryEvent = { type: 'outcome', outcome: { kind: 'retryable', code: 'http_503', message: 'unavailable' } };
const UNKNOWN: DeliveryEvent = { type: 'outcome', outcome: { kind: 'unknown', code: 'timeout', message: 'read timed out' } };
const replay = (acceptDuplicateRisk: boolean): DeliveryEvent => ({ type: 'replay', acceptDuplicateRisk });
const T = 1_700_000_000_000;

/**
 * Fixed scenarios run before the random ones. The rarest edges (out of `retryable`, out of
 * `unknown` by evidence or replay, replays past the attempt cap) are hit only a few times in
 * 2000 random runs; these examples make every coverage assertion below deterministic (each is
 * satisfied by at least one of them), and pin the exact-boundary cases random clocks rarely hit.
 */
const EXAMPLES: Scenario[] = [
  // ready -> submitting -> retryable, an early claim refused, then terminal(expired) by the sweep.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 1,
    steps: [at({ type: 'claim' }), at(throttled(5_000)), at({ type: 'claim' }, { kind: 'delta', ms: 4_999 }), at({ type: 'expire' }, { kind: 'to_expiry' })],
  },
  // ... -> retryable -> cancelled.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 2,
    steps: [at({ type: 'claim' }), at(throttled(null)), at({ type: 'cancel' })],
  },
  // ... -> unknown -> retryable (authoritative not-found) -> submitting -> accepted.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 3,
    steps: [
      at({ type: 'claim' }),
      at({ type: 'lease_expired' }),
      at({ type: 'evidence', found: false, authoritative: true, windowClosed: false }),
      at({ type: 'claim' }, { kind: 'to_next_attempt' }),
      at({ type: 'outcome', outcome: { kind: 'accepted', providerMessageId: 'pm_1' } }),
    ],
  },
  // ... -> unknown -> retryable: a phone's definite "failed before sending" for an ambiguous offer.
  // Written out because the random mix reaches this row only now and then (CI missed it once).
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 5,
    steps: [at({ type: 'claim' }), at({ type: 'lease_expired' }), at({ type: 'not_sent', permanent: false, retryAfterMs: null })],
  },
  // Two attempts of two: retryable, then exhausted; a claim on the terminal delivery is refused.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: { ...EXAMPLE_POLICY, maxAttempts: 2 },
    seed: 4,
    steps: [
      at({ type: 'claim' }),
      at(throttled(null)),
      at({ type: 'claim' }, { kind: 'to_next_attempt' }),
      at({ type: 'outcome', outcome: { kind: 'retryable', code: 'http_503', message: 'unavailable' } }),
      at({ type: 'claim' }, { kind: 'delta', ms: 60_000 }),
    ],
  },
  // unknown whose ambiguity window closes: unresolved.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 5,
    steps: [
      at({ type: 'claim' }),
      at({ type: 'outcome', outcome: { kind: 'unknown', code: 'timeout', message: 'read timed out' } }),
      at({ type: 'evidence', found: false, authoritative: false, windowClosed: true }, { kind: 'delta', ms: 600_000 }),
    ],
  },
  // A permanent refusal: rejected.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 6,
    steps: [
      at({ type: 'claim' }),
      at({ type: 'outcome', outcome: { kind: 'permanent', reason: 'invalid_destination', code: '21211', message: 'invalid number' } }),
    ],
  },
  // Backoff without jitter lands exactly on expires_at: must end expired, not be scheduled.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 1_000,
    policy: { ...EXAMPLE_POLICY, jitter: 'none' },
    seed: 12,
    steps: [at({ type: 'claim' }), at({ type: 'outcome', outcome: { kind: 'retryable', code: 'http_503', message: 'unavailable' } })],
  },
  // Created already expired: the first claim ends it without a call.
  { start: 1_700_000_000_000, initial: null, ttlMs: 0, policy: EXAMPLE_POLICY, seed: 7, steps: [at({ type: 'claim' })] },
  // Never claimed: the sweep expires it; another is cancelled.
  { start: 1_700_000_000_000, initial: null, ttlMs: 1_000, policy: EXAMPLE_POLICY, seed: 8, steps: [at({ type: 'expire' }, { kind: 'to_expiry' })] },
  { start: 1_700_000_000_000, initial: null, ttlMs: 1_000, policy: EXAMPLE_POLICY, seed: 9, steps: [at({ type: 'cancel' })] },
  // retryable, then claimed only after expiry.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 10,
    steps: [at({ type: 'claim' }), at(throttled(null)), at({ type: 'claim' }, { kind: 'to_expiry' })],
  },
  // unknown, then evidence that the provider has it.
  {
    start: 1_700_000_000_000,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 11,
    steps: [
      at({ type: 'claim' }),
      at({ type: 'outcome', outcome: { kind: 'unknown', code: 'reset', message: 'connection reset after write' } }),
      at({ type: 'evidence', found: true, providerMessageId: 'pm_2' }, { kind: 'delta', ms: 30_000 }),
    ],
  },
  // Supersession: of a fresh delivery, and of one waiting between attempts.
  { start: T, initial: null, ttlMs: 3_600_000, policy: EXAMPLE_POLICY, seed: 13, steps: [at({ type: 'supersede' }), at(replay(true))] },
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 14,
    steps: [at({ type: 'claim' }), at(throttled(null)), at({ type: 'supersede' })],
  },
  // retryable -> ready by an operator ("retry now"), claimed at once, accepted.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 15,
    steps: [
      at({ type: 'claim' }),
      at(throttled(60_000)),
      at(replay(false)),
      at({ type: 'claim' }),
      at({ type: 'outcome', outcome: { kind: 'accepted', providerMessageId: 'pm_3' } }),
    ],
  },
  // unknown: a replay without the flag is refused; with it, ready and a new submission.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 16,
    steps: [at({ type: 'claim' }), at(UNKNOWN), at(replay(false)), at(replay(true)), at({ type: 'claim' }), at(RETRYABLE)],
  },
  // Exhausted (2 of 2), replayed: exactly one more attempt, whose failure ends it exhausted again;
  // a second replay grants one more again.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: { ...EXAMPLE_POLICY, maxAttempts: 2 },
    seed: 17,
    steps: [
      at({ type: 'claim' }),
      at(RETRYABLE),
      at({ type: 'claim' }, { kind: 'to_next_attempt' }),
      at(RETRYABLE),
      at(replay(false)),
      at({ type: 'claim' }),
      at(throttled(null)),
      at({ type: 'claim' }, { kind: 'delta', ms: 60_000 }),
      at(replay(false)),
      at({ type: 'claim' }),
      at({ type: 'lease_expired' }),
      at({ type: 'evidence', found: false, authoritative: true, windowClosed: false }),
    ],
  },
  // unresolved: refused without the flag, replayed with it.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 18,
    steps: [
      at({ type: 'claim' }),
      at(UNKNOWN),
      at({ type: 'evidence', found: false, authoritative: false, windowClosed: true }),
      at(replay(false)),
      at(replay(true)),
      at({ type: 'claim' }),
    ],
  },
  // rejected and cancelled are replayable; a replay at or after expiry is refused even with the flag.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 19,
    steps: [
      at({ type: 'claim' }),
      at({ type: 'outcome', outcome: { kind: 'permanent', reason: 'invalid_destination', code: '21211', message: 'invalid number' } }),
      at(replay(false)),
      at({ type: 'cancel' }),
      at(replay(false)),
      at({ type: 'cancel' }),
      at(replay(true), { kind: 'to_expiry' }),
    ],
  },
  // retryable at expiry: the replay is refused, the sweep expires it.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 20,
    steps: [at({ type: 'claim' }), at(throttled(null)), at(replay(true), { kind: 'to_expiry' }), at({ type: 'expire' })],
  },
  // Evidence of arrival: stops a pending resend (retryable), a replayed unknown (ready), and
  // settles an unresolved delivery.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 30,
    steps: [
      at({ type: 'claim' }),
      at(UNKNOWN),
      at({ type: 'ambiguity_policy', policy: 'accept_duplicate', dedupesByKey: false, windowClosed: false }),
      at({ type: 'evidence', found: true, providerMessageId: 'pm_4' }),
    ],
  },
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 31,
    steps: [at({ type: 'claim' }), at(UNKNOWN), at(replay(true)), at({ type: 'evidence', found: true, providerMessageId: 'pm_5' })],
  },
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 32,
    steps: [
      at({ type: 'claim' }),
      at(UNKNOWN),
      at({ type: 'ambiguity_policy', policy: 'wait_for_evidence', dedupesByKey: false, windowClosed: false }),
      at({ type: 'ambiguity_policy', policy: 'wait_for_evidence', dedupesByKey: false, windowClosed: true }),
      at({ type: 'evidence', found: true, providerMessageId: 'pm_6' }, { kind: 'delta', ms: 600_000 }),
    ],
  },
  // resend_same_key: refused without a deduplicating provider, due at once with one; then user_resend.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 33,
    steps: [
      at({ type: 'claim' }),
      at(UNKNOWN),
      at({ type: 'ambiguity_policy', policy: 'resend_same_key', dedupesByKey: false, windowClosed: false }),
      at({ type: 'ambiguity_policy', policy: 'resend_same_key', dedupesByKey: true, windowClosed: false }),
      at({ type: 'claim' }),
      at(UNKNOWN),
      at({ type: 'ambiguity_policy', policy: 'user_resend', dedupesByKey: false, windowClosed: false }),
    ],
  },
  // Sent by nobody, whatever comes next: the send-time check stops a claimed delivery, then a
  // queued one; neither is replayable.
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 34,
    steps: [at({ type: 'claim' }), at({ type: 'suppress', reason: 'unsubscribed' }), at(replay(true)), at({ type: 'claim' })],
  },
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 35,
    steps: [at({ type: 'suppress', reason: 'suppressed' }), at(replay(false))],
  },
  {
    start: T,
    initial: null,
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 36,
    steps: [at({ type: 'claim' }), at(throttled(null)), at({ type: 'suppress', reason: 'unsubscribed' })],
  },
  // "Do not send" reasons: never replayable; nor is expired.
  ...(['suppressed', 'unsubscribed', 'superseded', 'expired'] as const).map((reason, i): Scenario => ({
    start: T,
    initial: { reason, attemptCount: 1 },
    ttlMs: 3_600_000,
    policy: EXAMPLE_POLICY,
    seed: 21 + i,
    steps: [at(replay(false)), at(replay(true)), at({ type: 'claim' })],
  })),
];

function property(check: (r: Run) => void): void {
  fc.assert(
    fc.property(scenarioArb, (s) => {
      check(run(s));
    }),
    { numRuns: NUM_RUNS, examples: EXAMPLES.map((e): [Scenario] => [e]) },
  );
}

const rowKey = (from: string, to: string, on: string): string => `${from} -> ${to} on ${on}`;
/** A failure that permits another attempt, in a state where it applies: a retryable or throttled outcome of a submission, or authoritative not-found for an unknown one. */
const isRetryFailure = (state: DeliverySnapshot['state'], e: DeliveryEvent): boolean =>
  // A held answer is not retried at all (it ends `held`), so it is no retry failure.
  (state === 'submitting' && e.type === 'outcome' && !e.hold && (e.outcome.kind === 'retryable' || e.outcome.kind === 'throttled')) ||
  (state === 'unknown' && (isAuthoritativeNotFound(e) || isPolicyResend(e))) ||
  ((state === 'unknown' || state === 'accepted') && e.type === 'not_sent' && !e.permanent);

describe('decide over random event sequences', () => {
  it('makes no transition outside TRANSITION_TABLE, and every row is reachable', () => {
    const rows = new Set(TRANSITION_TABLE.map((r) => rowKey(r.from, r.to, r.on)));
    const hit = new Set<string>();
    property(({ trace }) => {
      for (const t of trace) {
        if (!t.decision.ok) continue;
        const { from, to, on } = t.decision;
        expect(from).toBe(t.before.state);
        expect(on).toBe(t.event.type);
        expect(rows.has(rowKey(from, to, on)), rowKey(from, to, on)).toBe(true);
        hit.add(rowKey(from, to, on));
      }
    });
    // Non-vacuity: the generator drives the machine through every edge of the table.
    expect([...hit].sort()).toEqual([...rows].sort());
  });

  it('never yields retryable or ready after an ambiguous outcome, except on authoritative not-found evidence, a replay that accepted the duplicate risk, or an account policy that resends', () => {
    let ambiguousDecisions = 0;
    let liftedByEvidence = 0;
    let liftedByReplay = 0;
    let liftedByPolicy = 0;
    let refusedBlindReplays = 0;
    property(({ trace }) => {
      for (const t of trace) {
        if (!t.ambiguousBefore) continue;
        if (t.event.type === 'replay' && !t.event.acceptDuplicateRisk && t.before.state !== 'accepted') {
          // unknown, or terminal/unresolved: the operator has not accepted the risk.
          refusedBlindReplays++;
          expect(t.decision.ok).toBe(false);
        }
        if (!t.decision.ok) continue;
        ambiguousDecisions++;
        const to = t.decision.to;
        if (to === 'retryable' || to === 'ready') {
          // The two exceptions, stated explicitly: the provider says, authoritatively, it never
          // got it; or a person accepted that it may arrive twice.
          const byEvidence = isAuthoritativeNotFound(t.event);
          const byReplay = isRiskAcceptingReplay(t.event);
          const byPolicy = isPolicyResend(t.event);
          // A third: the phone that may have sent it says, definitely, it did not.
          const byReport = t.event.type === 'not_sent';
          expect(byEvidence || byReplay || byPolicy || byReport, `${t.event.type} -> ${to} while ambiguous`).toBe(true);
          if (byEvidence) liftedByEvidence++;
          if (byReplay) liftedByReplay++;
          if (byPolicy) liftedByPolicy++;
        }
        // Never resend blindly: no claim starts a new submission while the last one is unresolved.
        expect(t.event.type).not.toBe('claim');
        expect(to).not.toBe('submitting');
      }
    });
    expect(ambiguousDecisions).toBeGreaterThan(0);
    expect(liftedByEvidence).toBeGreaterThan(0);
    expect(liftedByReplay).toBeGreaterThan(0);
    expect(liftedByPolicy).toBeGreaterThan(0);
    expect(refusedBlindReplays).toBeGreaterThan(0);
  });

  it('schedules nothing at or after expires_at (replays included); no claim submits at or after expiry, or before next_attempt_at', () => {
    let scheduled = 0;
    let replays = 0;
    let lateReplays = 0;
    let lateClaims = 0;
    let earlyClaims = 0;
    let deferred = 0;
    property(({ trace, expiresAt }) => {
      for (const t of trace) {
        if (t.decision.ok) {
          const { to, on, nextAttemptAt } = t.decision;
          // next_attempt_at belongs to retryable (strictly inside (now, expires_at)) and to a
          // replay's ready (exactly now, before expires_at); every other decision clears it.
          // A deferral's ready is due when the window ends or the cap allows (at or after now).
          expect(nextAttemptAt !== null).toBe(to === 'retryable' || on === 'replay' || (on === 'defer' && to === 'ready'));
          if (on === 'defer' && to === 'ready') {
            deferred++;
            expect(nextAttemptAt as number).toBeGreaterThanOrEqual(t.now);
          }
          if (nextAttemptAt !== null) {
            expect(Number.isFinite(nextAttemptAt), `nextAttemptAt=${nextAttemptAt}`).toBe(true);
            expect(nextAttemptAt).toBeLessThan(expiresAt);
          }
          if (to === 'retryable' && on === 'ambiguity_policy') {
            // A policy resend is due at once (the same key, or a duplicate the account accepts).
            expect(nextAttemptAt).toBe(t.now);
          } else if (to === 'retryable') {
            scheduled++;
            expect(nextAttemptAt as number).toBeGreaterThan(t.now);
          }
          if (on === 'replay') {
            replays++;
            expect(to).toBe('ready');
            expect(nextAttemptAt).toBe(t.now);
          }
        }
        if (t.event.type === 'replay' && t.now >= expiresAt) {
          lateReplays++;
          expect(t.decision.ok).toBe(false);
        }
        if (t.event.type === 'claim' && t.now >= expiresAt && (t.before.state === 'ready' || t.before.state === 'retryable')) {
          lateClaims++;
          expect(t.decision).toMatchObject({ ok: true, to: 'terminal', terminalReason: 'expired' });
        }
        if (t.event.type === 'claim' && t.now >= expiresAt && t.decision.ok) {
          expect(t.decision.to).not.toBe('submitting');
        }
        // The attempt clock: no submission starts before next_attempt_at.
        if (t.decision.ok && t.decision.to === 'submitting' && t.before.nextAttemptAt !== null) {
          expect(t.now).toBeGreaterThanOrEqual(t.before.nextAttemptAt);
        }
        if (t.event.type === 'claim' && t.before.nextAttemptAt !== null && t.now < t.before.nextAttemptAt) {
          earlyClaims++;
          expect(t.decision.ok && t.decision.to === 'submitting').toBe(false);
        }
      }
    });
    expect(scheduled).toBeGreaterThan(0);
    expect(replays).toBeGreaterThan(0);
    expect(lateReplays).toBeGreaterThan(0);
    expect(lateClaims).toBeGreaterThan(0);
    expect(earlyClaims).toBeGreaterThan(0);
    expect(deferred).toBeGreaterThan(0);
  });

  it('treats terminal as final except by a replay of a replayable reason before expiry, and sets a terminal reason exactly on terminal decisions', () => {
    let eventsOnTerminal = 0;
    const replayedReasons = new Set<string>();
    const refusedReasons = new Set<string>();
    const reasons = new Set<string>();
    property(({ trace, expiresAt }) => {
      for (const t of trace) {
        if (t.before.state === 'terminal') {
          eventsOnTerminal++;
          if (t.event.type === 'evidence' && t.event.found && t.before.terminalReason === 'unresolved') {
            // Evidence that the provider had it after all settles an unresolved delivery.
            expect(t.decision).toMatchObject({ ok: true, to: 'accepted' });
          } else if (t.event.type !== 'replay') {
            expect(t.decision.ok, `${t.event.type} on terminal`).toBe(false);
          } else {
            const reason = t.before.terminalReason;
            // Both directions: a replay leaves terminal exactly when the reason is replayable,
            // the clock is before expiry, and (for unresolved) the duplicate risk is accepted.
            const allowed = isReplayable(reason) && t.now < expiresAt && (reason !== 'unresolved' || t.event.acceptDuplicateRisk);
            expect(t.decision.ok, `replay of terminal/${reason} at expiry${t.now - expiresAt}`).toBe(allowed);
            (t.decision.ok ? replayedReasons : refusedReasons).add(String(reason));
          }
        }
        if (!t.decision.ok) continue;
        if (t.decision.to === 'terminal') {
          expect(t.decision.terminalReason).not.toBeNull();
          expect(TERMINAL_REASONS).toContain(t.decision.terminalReason);
          reasons.add(t.decision.terminalReason as string);
        } else {
          expect(t.decision.terminalReason).toBeNull();
        }
      }
    });
    expect(eventsOnTerminal).toBeGreaterThan(0);
    expect([...replayedReasons].sort()).toEqual([...REPLAYABLE_REASONS].sort());
    // Every reason is refused sometimes: the non-replayable ones always, the others after expiry.
    expect([...refusedReasons].sort()).toEqual([...TERMINAL_REASONS].sort());
    // Every terminal reason is one decide() produces, and each shows up.
    expect([...reasons].sort()).toEqual([...TERMINAL_REASONS].sort());
  });

  /**
   * The attempt cap with replays, stated precisely: attemptCount keeps counting across
   * replays (it is never reset), and decide() ends a retryable failure `exhausted` whenever
   * attemptCount >= maxAttempts. So a submission's number n never exceeds
   * max(maxAttempts, c + 1), where c is attemptCount at the last replay: a replay of a
   * delivery at or past its cap grants exactly one more attempt, whose retryable failure ends
   * it `exhausted` again; a replay below the cap (rejected, cancelled, retryable, unknown)
   * grants what was left of it. Without any replay, no more than maxAttempts ever start.
   */
  it('starts at most maxAttempts submissions, plus exactly one per replay past the cap', () => {
    let reachedMax = 0;
    let pastCap = 0;
    let exhaustedAgain = 0;
    property(({ trace, final, scenario }) => {
      const max = scenario.policy.maxAttempts;
      let submissions = 0;
      let sinceReplay = 0;
      for (const t of trace) {
        if (t.decision.ok && t.decision.on === 'replay') sinceReplay = 0;
        // A deferral withdraws the submission its claim started: nothing was sent.
        if (t.decision.ok && t.decision.on === 'defer' && t.decision.to === 'ready') {
          submissions--;
          sinceReplay--;
        }
        if (t.decision.ok && t.decision.on === 'claim' && t.decision.to === 'submitting') {
          submissions++;
          sinceReplay++;
          const n = t.before.attemptCount + 1;
          const bound = t.countAtLastReplay === null ? max : Math.max(max, t.countAtLastReplay + 1);
          expect(n, `attempt ${n} with maxAttempts ${max}, last replay at ${t.countAtLastReplay}`).toBeLessThanOrEqual(bound);
          expect(sinceReplay).toBeLessThanOrEqual(max);
          if (t.countAtLastReplay !== null && t.countAtLastReplay >= max) {
            pastCap++;
            expect(sinceReplay).toBe(1);
          }
        }
        // The one extra attempt: its retryable failure (or authoritative not-found) ends it exhausted.
        if (t.before.attemptCount >= max && isRetryFailure(t.before.state, t.event)) {
          expect(t.decision).toMatchObject({ ok: true, to: 'terminal', terminalReason: 'exhausted' });
          if (t.countAtLastReplay !== null && t.countAtLastReplay >= max) exhaustedAgain++;
        }
      }
      expect(final.attemptCount).toBe((scenario.initial?.attemptCount ?? 0) + submissions);
      if (scenario.initial === null && max >= 2 && submissions === max) reachedMax++;
    });
    expect(reachedMax).toBeGreaterThan(0);
    expect(pastCap).toBeGreaterThan(0);
    expect(exhaustedAgain).toBeGreaterThan(0);
  });

  it('suppress ends exactly the unsent deliveries (ready, retryable, submitting) with its own reason, and nothing else', () => {
    const stoppedFrom = new Map<string, number>();
    let refused = 0;
    property(({ trace }) => {
      for (const t of trace) {
        if (t.event.type !== 'suppress') continue;
        const unsent = t.before.state === 'ready' || t.before.state === 'retryable' || t.before.state === 'submitting';
        if (!unsent) {
          // unknown and accepted may already be out; terminal is final.
          expect(t.decision.ok).toBe(false);
          refused++;
          continue;
        }
        expect(t.decision).toMatchObject({ ok: true, to: 'terminal', terminalReason: t.event.reason, nextAttemptAt: null });
        stoppedFrom.set(t.before.state, (stoppedFrom.get(t.before.state) ?? 0) + 1);
      }
    });
    expect([...stoppedFrom.keys()].sort()).toEqual(['ready', 'retryable', 'submitting']);
    expect(refused).toBeGreaterThan(0);
  });

  it('honours a definite Retry-After as a lower bound', () => {
    let bounded = 0;
    property(({ trace }) => {
      for (const t of trace) {
        if (t.event.type !== 'outcome' || !t.decision.ok || t.decision.to !== 'retryable') continue;
        const o = t.event.outcome;
        if (o.kind !== 'retryable' && o.kind !== 'throttled') continue;
        const r = o.retryAfterMs;
        if (r == null || !(r > 0)) continue;
        // An infinite Retry-After can never be honoured before expiry: it must not be scheduled.
        expect(Number.isFinite(r)).toBe(true);
        expect(t.decision.nextAttemptAt).not.toBeNull();
        expect(t.decision.nextAttemptAt as number).toBeGreaterThanOrEqual(t.now + r);
        bounded++;
      }
    });
    expect(bounded).toBeGreaterThan(0);
  });
});
