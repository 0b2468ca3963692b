/**
 * Example-based tests for `decide`: one or more worked examples per row of TRANSITION_TABLE,
 * then the edges of the two clocks and the events that must be refused.
 */
import { describe, expect, it } from 'vitest';
import {
  REPLAYABLE_REASONS,
  TERMINAL_REASONS,
  TRANSITION_TABLE,
  decide,
  type DecisionContext,
  type DeliveryEvent,
  type DeliverySnapshot,
  type RetryPolicy,
  type SubmitOutcome,
} from '../../src/domain/index.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
// jitter 'none' makes every delay exact: 1 s, 2 s, 4 s, ... capped at 60 s.
const POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000, jitter: 'none' };

const ctx = (now: number, policy: RetryPolicy = POLICY): DecisionContext => ({ now, policy, random: () => 0.5 });

function snap(state: DeliverySnapshot['state'], extra: Partial<DeliverySnapshot> = {}): DeliverySnapshot {
  return { state, attemptCount: 0, expiresAt: T0 + HOUR, nextAttemptAt: null, ...extra };
}

const outcome = (o: SubmitOutcome): DeliveryEvent => ({ type: 'outcome', outcome: o });
const ACCEPTED = outcome({ kind: 'accepted', providerMessageId: 'SM123' });
const UNKNOWN = outcome({ kind: 'unknown', code: 'timeout', message: 'read timed out after 10 s' });
const RETRYABLE = outcome({ kind: 'retryable', code: 'http_503', message: 'service unavailable' });
const THROTTLED = (retryAfterMs?: number | null): DeliveryEvent => outcome({ kind: 'throttled', code: 'http_429', message: 'too many requests', retryAfterMs });
const PERMANENT = outcome({ kind: 'permanent', reason: 'invalid_destination', code: '21211', message: 'invalid To number' });
const FOUND: DeliveryEvent = { type: 'evidence', found: true, providerMessageId: 'SM456' };
const NOT_FOUND: DeliveryEvent = { type: 'evidence', found: false, authoritative: true, windowClosed: false };
const WINDOW_CLOSED: DeliveryEvent = { type: 'evidence', found: false, authoritative: false, windowClosed: true };
const NO_ANSWER_YET: DeliveryEvent = { type: 'evidence', found: false, authoritative: false, windowClosed: false };
const SUPERSEDE: DeliveryEvent = { type: 'supersede' };
const UNSUBSCRIBED: DeliveryEvent = { type: 'suppress', reason: 'unsubscribed' };
const SUPPRESSED: DeliveryEvent = { type: 'suppress', reason: 'suppressed' };
const POLICY_EVENT = (
  policy: 'wait_for_evidence' | 'resend_same_key' | 'user_resend' | 'accept_duplicate',
  over: { dedupesByKey?: boolean; windowClosed?: boolean } = {},
): DeliveryEvent => ({ type: 'ambiguity_policy', policy, dedupesByKey: over.dedupesByKey ?? false, windowClosed: over.windowClosed ?? false });
const REPLAY: DeliveryEvent = { type: 'replay', acceptDuplicateRisk: false };
const NOT_SENT: DeliveryEvent = { type: 'not_sent', permanent: false };
const NOT_SENT_PERMANENT: DeliveryEvent = { type: 'not_sent', permanent: true };
const REPLAY_ACCEPTING_RISK: DeliveryEvent = { type: 'replay', acceptDuplicateRisk: true };

interface RowExample {
  name: string;
  d: DeliverySnapshot;
  event: DeliveryEvent;
  now: number;
  policy?: RetryPolicy;
  expected: Record<string, unknown>;
}

/** Worked examples keyed by table row `from -> to on event`. */
const ROW_EXAMPLES: Record<string, RowExample[]> = {
  'ready -> submitting on claim': [
    { name: 'a fresh delivery is claimed', d: snap('ready'), event: { type: 'claim' }, now: T0, expected: { terminalReason: null, nextAttemptAt: null } },
  ],
  'ready -> terminal on claim': [
    { name: 'claimed exactly at expires_at', d: snap('ready'), event: { type: 'claim' }, now: T0 + HOUR, expected: { terminalReason: 'expired' } },
    { name: 'claimed after expires_at', d: snap('ready'), event: { type: 'claim' }, now: T0 + 2 * HOUR, expected: { terminalReason: 'expired' } },
  ],
  'ready -> terminal on expire': [
    { name: 'the sweep at expires_at', d: snap('ready'), event: { type: 'expire' }, now: T0 + HOUR, expected: { terminalReason: 'expired' } },
  ],
  'ready -> terminal on cancel': [
    { name: 'cancelled before any attempt', d: snap('ready'), event: { type: 'cancel' }, now: T0, expected: { terminalReason: 'cancelled' } },
  ],
  'ready -> terminal on supersede': [
    { name: 'a newer generation was accepted', d: snap('ready'), event: SUPERSEDE, now: T0, expected: { terminalReason: 'superseded', nextAttemptAt: null } },
    { name: 'superseded even after expires_at', d: snap('ready'), event: SUPERSEDE, now: T0 + 2 * HOUR, expected: { terminalReason: 'superseded' } },
  ],
  'ready -> terminal on suppress': [
    {
      name: 'the recipient unsubscribed before the first claim',
      d: snap('ready'),
      event: UNSUBSCRIBED,
      now: T0,
      expected: { terminalReason: 'unsubscribed', nextAttemptAt: null },
    },
  ],
  'submitting -> terminal on suppress': [
    {
      name: 'the check after the claim finds the address suppressed',
      d: snap('submitting', { attemptCount: 1 }),
      event: SUPPRESSED,
      now: T0,
      expected: { terminalReason: 'suppressed', nextAttemptAt: null },
    },
    {
      name: 'the check after the claim finds the recipient unsubscribed',
      d: snap('submitting', { attemptCount: 2 }),
      event: UNSUBSCRIBED,
      now: T0,
      expected: { terminalReason: 'unsubscribed' },
    },
    {
      name: "the purpose's frequency cap is reached and its action is suppress",
      d: snap('submitting', { attemptCount: 1 }),
      event: { type: 'suppress', reason: 'suppressed', detail: 'frequency_capped' },
      now: T0,
      expected: { terminalReason: 'suppressed', detail: 'frequency_capped' },
    },
  ],
  'submitting -> ready on defer': [
    {
      name: "the recipient's quiet hours end before expiry: due then, the reason kept",
      d: snap('submitting', { attemptCount: 1 }),
      event: { type: 'defer', until: T0 + HOUR / 2, reason: 'quiet_hours' },
      now: T0,
      expected: { terminalReason: null, nextAttemptAt: T0 + HOUR / 2, detail: 'quiet_hours' },
    },
    {
      name: 'the frequency cap allows it one ms before expiry',
      d: snap('submitting', { attemptCount: 2 }),
      event: { type: 'defer', until: T0 + HOUR - 1, reason: 'frequency_capped' },
      now: T0,
      expected: { nextAttemptAt: T0 + HOUR - 1, detail: 'frequency_capped' },
    },
  ],
  'submitting -> terminal on defer': [
    {
      name: 'the window ends exactly at expiry: expired, reason quiet_hours',
      d: snap('submitting', { attemptCount: 1 }),
      event: { type: 'defer', until: T0 + HOUR, reason: 'quiet_hours' },
      now: T0,
      expected: { terminalReason: 'expired', nextAttemptAt: null, detail: 'quiet_hours' },
    },
    {
      name: 'the cap allows it only after expiry',
      d: snap('submitting', { attemptCount: 1 }),
      event: { type: 'defer', until: T0 + 2 * HOUR, reason: 'frequency_capped' },
      now: T0,
      expected: { terminalReason: 'expired', detail: 'frequency_capped' },
    },
  ],
  'retryable -> terminal on suppress': [
    {
      name: 'unsubscribed between attempts',
      d: snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 1_000 }),
      event: UNSUBSCRIBED,
      now: T0,
      expected: { terminalReason: 'unsubscribed', nextAttemptAt: null },
    },
  ],
  'submitting -> accepted on outcome': [
    {
      name: 'the provider acknowledged, with its id',
      d: snap('submitting', { attemptCount: 1 }),
      event: ACCEPTED,
      now: T0,
      expected: { terminalReason: null, nextAttemptAt: null, providerMessageId: 'SM123' },
    },
  ],
  'submitting -> unknown on outcome': [
    { name: 'a timeout', d: snap('submitting', { attemptCount: 1 }), event: UNKNOWN, now: T0, expected: { terminalReason: null, nextAttemptAt: null } },
  ],
  'submitting -> unknown on lease_expired': [
    {
      name: 'the lease ran out',
      d: snap('submitting', { attemptCount: 1 }),
      event: { type: 'lease_expired' },
      now: T0 + 60_000,
      expected: { terminalReason: null },
    },
  ],
  'submitting -> retryable on outcome': [
    { name: 'first failure: base delay', d: snap('submitting', { attemptCount: 1 }), event: RETRYABLE, now: T0, expected: { nextAttemptAt: T0 + 1_000 } },
    { name: 'second failure: doubled', d: snap('submitting', { attemptCount: 2 }), event: RETRYABLE, now: T0, expected: { nextAttemptAt: T0 + 2_000 } },
    {
      name: 'throttled with Retry-After above the backoff',
      d: snap('submitting', { attemptCount: 1 }),
      event: THROTTLED(30_000),
      now: T0,
      expected: { nextAttemptAt: T0 + 30_000 },
    },
    {
      name: 'throttled with Retry-After below the backoff',
      d: snap('submitting', { attemptCount: 2 }),
      event: THROTTLED(500),
      now: T0,
      expected: { nextAttemptAt: T0 + 2_000 },
    },
    {
      name: 'last ms before expiry is still allowed',
      d: snap('submitting', { attemptCount: 1, expiresAt: T0 + 1_001 }),
      event: RETRYABLE,
      now: T0,
      expected: { nextAttemptAt: T0 + 1_000 },
    },
  ],
  'submitting -> terminal on outcome': [
    {
      name: 'permanent refusal is rejected',
      d: snap('submitting', { attemptCount: 1 }),
      event: PERMANENT,
      now: T0,
      expected: { terminalReason: 'rejected', nextAttemptAt: null },
    },
    {
      name: 'last allowed attempt failed: exhausted',
      d: snap('submitting', { attemptCount: 3 }),
      event: RETRYABLE,
      now: T0,
      expected: { terminalReason: 'exhausted' },
    },
    {
      name: 'retry would land exactly at expires_at: expired',
      d: snap('submitting', { attemptCount: 1, expiresAt: T0 + 1_000 }),
      event: RETRYABLE,
      now: T0,
      expected: { terminalReason: 'expired', nextAttemptAt: null },
    },
    {
      name: 'Retry-After reaches past expiry: expired',
      d: snap('submitting', { attemptCount: 1 }),
      event: THROTTLED(HOUR),
      now: T0,
      expected: { terminalReason: 'expired' },
    },
  ],
  'retryable -> submitting on claim': [
    {
      name: 'claimed exactly at next_attempt_at',
      d: snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 1_000 }),
      event: { type: 'claim' },
      now: T0 + 1_000,
      expected: { terminalReason: null },
    },
  ],
  'retryable -> terminal on claim': [
    {
      name: 'due, but claimed at expires_at',
      d: snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 1_000 }),
      event: { type: 'claim' },
      now: T0 + HOUR,
      expected: { terminalReason: 'expired' },
    },
  ],
  'retryable -> terminal on expire': [
    {
      name: 'the sweep after expiry',
      d: snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 1_000 }),
      event: { type: 'expire' },
      now: T0 + HOUR + 1,
      expected: { terminalReason: 'expired' },
    },
  ],
  'retryable -> terminal on cancel': [
    {
      name: 'cancelled between attempts',
      d: snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 1_000 }),
      event: { type: 'cancel' },
      now: T0,
      expected: { terminalReason: 'cancelled' },
    },
  ],
  'retryable -> terminal on supersede': [
    {
      name: 'a newer generation was accepted between attempts',
      d: snap('retryable', { attemptCount: 2, nextAttemptAt: T0 + 2_000 }),
      event: SUPERSEDE,
      now: T0,
      expected: { terminalReason: 'superseded', nextAttemptAt: null },
    },
  ],
  'retryable -> ready on replay': [
    {
      name: 'retry now: next_attempt_at becomes now',
      d: snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 30_000 }),
      event: REPLAY,
      now: T0 + 5,
      expected: { terminalReason: null, nextAttemptAt: T0 + 5 },
    },
    {
      name: 'one ms before expires_at',
      d: snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 30_000 }),
      event: REPLAY_ACCEPTING_RISK,
      now: T0 + HOUR - 1,
      expected: { nextAttemptAt: T0 + HOUR - 1 },
    },
  ],
  'unknown -> accepted on evidence': [
    {
      name: 'the provider has it',
      d: snap('unknown', { attemptCount: 1 }),
      event: FOUND,
      now: T0,
      expected: { providerMessageId: 'SM456', terminalReason: null },
    },
  ],
  'retryable -> accepted on evidence': [
    {
      name: 'an earlier submission arrived after all',
      d: snap('retryable', { attemptCount: 2, nextAttemptAt: T0 + 5_000 }),
      event: FOUND,
      now: T0,
      expected: { providerMessageId: 'SM456', nextAttemptAt: null },
    },
  ],
  'ready -> accepted on evidence': [
    {
      name: 'a replayed unknown: the first submission arrived',
      d: snap('ready', { attemptCount: 1, nextAttemptAt: T0 }),
      event: FOUND,
      now: T0,
      expected: { providerMessageId: 'SM456' },
    },
  ],
  'terminal -> accepted on evidence': [
    {
      name: 'an unresolved delivery the provider had after all',
      d: snap('terminal', { terminalReason: 'unresolved', attemptCount: 1 }),
      event: FOUND,
      now: T0 + 2 * HOUR,
      expected: { terminalReason: null, providerMessageId: 'SM456' },
    },
  ],
  'unknown -> retryable on ambiguity_policy': [
    {
      name: 'resend_same_key where the provider dedupes by key: due now',
      d: snap('unknown', { attemptCount: 1 }),
      event: POLICY_EVENT('resend_same_key', { dedupesByKey: true }),
      now: T0 + 7,
      expected: { nextAttemptAt: T0 + 7 },
    },
    {
      name: 'accept_duplicate: due now',
      d: snap('unknown', { attemptCount: 2 }),
      event: POLICY_EVENT('accept_duplicate'),
      now: T0,
      expected: { nextAttemptAt: T0 },
    },
  ],
  'unknown -> terminal on ambiguity_policy': [
    {
      name: 'user_resend: unresolved at once',
      d: snap('unknown', { attemptCount: 1 }),
      event: POLICY_EVENT('user_resend'),
      now: T0,
      expected: { terminalReason: 'unresolved' },
    },
    {
      name: 'wait_for_evidence whose window closed',
      d: snap('unknown', { attemptCount: 1 }),
      event: POLICY_EVENT('wait_for_evidence', { windowClosed: true }),
      now: T0,
      expected: { terminalReason: 'unresolved' },
    },
    {
      name: 'accept_duplicate with no attempt left',
      d: snap('unknown', { attemptCount: 3 }),
      event: POLICY_EVENT('accept_duplicate'),
      now: T0,
      expected: { terminalReason: 'exhausted' },
    },
    {
      name: 'resend_same_key after expiry',
      d: snap('unknown', { attemptCount: 1 }),
      event: POLICY_EVENT('resend_same_key', { dedupesByKey: true }),
      now: T0 + HOUR,
      expected: { terminalReason: 'expired' },
    },
  ],
  'unknown -> ready on replay': [
    {
      name: 'the operator accepted the duplicate risk',
      d: snap('unknown', { attemptCount: 1 }),
      event: REPLAY_ACCEPTING_RISK,
      now: T0 + 60_000,
      expected: { terminalReason: null, nextAttemptAt: T0 + 60_000 },
    },
  ],
  'terminal -> ready on replay': [
    ...(['exhausted', 'rejected', 'cancelled'] as const).map((reason) => ({
      name: `a ${reason} delivery`,
      d: snap('terminal', { terminalReason: reason, attemptCount: 3 }),
      event: REPLAY,
      now: T0 + 60_000,
      expected: { terminalReason: null, nextAttemptAt: T0 + 60_000 },
    })),
    {
      name: 'an unresolved delivery, with the duplicate risk accepted',
      d: snap('terminal', { terminalReason: 'unresolved', attemptCount: 1 }),
      event: REPLAY_ACCEPTING_RISK,
      now: T0,
      expected: { terminalReason: null, nextAttemptAt: T0 },
    },
  ],
  'unknown -> retryable on evidence': [
    {
      name: 'authoritatively not found, before expiry',
      d: snap('unknown', { attemptCount: 1 }),
      event: NOT_FOUND,
      now: T0,
      expected: { nextAttemptAt: T0 + 1_000 },
    },
  ],
  'unknown -> terminal on evidence': [
    { name: 'not found, but expired', d: snap('unknown', { attemptCount: 1 }), event: NOT_FOUND, now: T0 + HOUR, expected: { terminalReason: 'expired' } },
    { name: 'not found, attempts used up', d: snap('unknown', { attemptCount: 3 }), event: NOT_FOUND, now: T0, expected: { terminalReason: 'exhausted' } },
    { name: 'the ambiguity window closed', d: snap('unknown', { attemptCount: 1 }), event: WINDOW_CLOSED, now: T0, expected: { terminalReason: 'unresolved' } },
  ],
  'accepted -> retryable on not_sent': [
    {
      name: 'the phone held it, then had no service',
      d: snap('accepted', { attemptCount: 1 }),
      event: NOT_SENT,
      now: T0,
      expected: { nextAttemptAt: T0 + 1_000 },
    },
  ],
  'accepted -> terminal on not_sent': [
    {
      name: 'a permanent failure on the phone',
      d: snap('accepted', { attemptCount: 1 }),
      event: NOT_SENT_PERMANENT,
      now: T0,
      expected: { terminalReason: 'rejected' },
    },
    { name: 'no attempt left', d: snap('accepted', { attemptCount: 3 }), event: NOT_SENT, now: T0, expected: { terminalReason: 'exhausted' } },
    { name: 'no time left', d: snap('accepted', { attemptCount: 1 }), event: NOT_SENT, now: T0 + HOUR - 500, expected: { terminalReason: 'expired' } },
  ],
  'unknown -> retryable on not_sent': [
    {
      name: 'a re-offer made the phone report Failed before Sent',
      d: snap('unknown', { attemptCount: 2 }),
      event: NOT_SENT,
      now: T0,
      expected: { nextAttemptAt: T0 + 2_000 },
    },
  ],
  'unknown -> terminal on not_sent': [
    {
      name: 'a permanent failure on the phone',
      d: snap('unknown', { attemptCount: 1 }),
      event: NOT_SENT_PERMANENT,
      now: T0,
      expected: { terminalReason: 'rejected' },
    },
    { name: 'no attempt left', d: snap('unknown', { attemptCount: 3 }), event: NOT_SENT, now: T0, expected: { terminalReason: 'exhausted' } },
  ],
};

describe('decide: one example per TRANSITION_TABLE row', () => {
  it('has examples for exactly the rows of the table', () => {
    expect(Object.keys(ROW_EXAMPLES).sort()).toEqual(TRANSITION_TABLE.map((r) => `${r.from} -> ${r.to} on ${r.on}`).sort());
  });

  for (const row of TRANSITION_TABLE) {
    const key = `${row.from} -> ${row.to} on ${row.on}`;
    for (const ex of ROW_EXAMPLES[key] ?? []) {
      it(`${key}: ${ex.name}`, () => {
        expect(ex.d.state).toBe(row.from);
        const decision = decide(ex.d, ex.event, ctx(ex.now, ex.policy));
        expect(decision).toMatchObject({ ok: true, from: row.from, to: row.to, on: row.on, ...ex.expected });
      });
    }
  }
});

describe('decide: the two clocks', () => {
  it('refuses a claim before next_attempt_at', () => {
    const d = snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 1_000 });
    expect(decide(d, { type: 'claim' }, ctx(T0 + 999))).toEqual({ ok: false, reason: 'not due yet' });
  });

  it('lets a claim one ms before expires_at through', () => {
    expect(decide(snap('ready'), { type: 'claim' }, ctx(T0 + HOUR - 1))).toMatchObject({ ok: true, to: 'submitting' });
  });

  it('prefers expiry over "not due" when both hold', () => {
    const d = snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 2 * HOUR });
    expect(decide(d, { type: 'claim' }, ctx(T0 + HOUR))).toMatchObject({ ok: true, to: 'terminal', terminalReason: 'expired' });
  });

  it('refuses to expire a delivery before expires_at', () => {
    expect(decide(snap('ready'), { type: 'expire' }, ctx(T0 + HOUR - 1))).toMatchObject({ ok: false });
    expect(decide(snap('retryable', { nextAttemptAt: T0 }), { type: 'expire' }, ctx(T0 + HOUR - 1))).toMatchObject({ ok: false });
  });

  it('does not expire an in-flight or unknown submission: the call may have happened', () => {
    for (const state of ['submitting', 'unknown', 'accepted'] as const) {
      expect(decide(snap(state, { attemptCount: 1 }), { type: 'expire' }, ctx(T0 + 2 * HOUR))).toMatchObject({ ok: false });
    }
  });

  it('checks attempts before the clock: exhausted wins over expired', () => {
    const d = snap('submitting', { attemptCount: 3, expiresAt: T0 + 1 });
    expect(decide(d, RETRYABLE, ctx(T0))).toMatchObject({ to: 'terminal', terminalReason: 'exhausted' });
  });

  it('ignores a zero, negative or unparseable Retry-After and uses the backoff', () => {
    const d = snap('submitting', { attemptCount: 1 });
    for (const r of [0, -5_000, Number.NaN, null, undefined]) {
      expect(decide(d, THROTTLED(r), ctx(T0))).toMatchObject({ to: 'retryable', nextAttemptAt: T0 + 1_000 });
    }
  });

  it('treats an infinite Retry-After as past expiry', () => {
    const d = snap('submitting', { attemptCount: 1 });
    expect(decide(d, THROTTLED(Number.POSITIVE_INFINITY), ctx(T0))).toMatchObject({ to: 'terminal', terminalReason: 'expired' });
  });

  it('one attempt allowed: the first retryable failure exhausts', () => {
    const d = snap('submitting', { attemptCount: 1 });
    expect(decide(d, THROTTLED(null), ctx(T0, { ...POLICY, maxAttempts: 1 }))).toMatchObject({ terminalReason: 'exhausted' });
  });
});

describe('decide: replay', () => {
  it('refuses to replay superseded, expired, suppressed and unsubscribed deliveries, with or without the flag', () => {
    const refused = TERMINAL_REASONS.filter((r) => !(REPLAYABLE_REASONS as readonly string[]).includes(r));
    expect([...refused].sort()).toEqual(['expired', 'superseded', 'suppressed', 'unsubscribed']);
    for (const reason of refused) {
      for (const e of [REPLAY, REPLAY_ACCEPTING_RISK]) {
        expect(decide(snap('terminal', { terminalReason: reason, attemptCount: 1 }), e, ctx(T0))).toEqual({
          ok: false,
          reason: `a ${reason} delivery is not replayable`,
        });
      }
    }
  });

  it('refuses a terminal delivery whose reason is missing', () => {
    for (const terminalReason of [undefined, null]) {
      expect(decide(snap('terminal', { terminalReason, attemptCount: 1 }), REPLAY_ACCEPTING_RISK, ctx(T0)).ok).toBe(false);
    }
  });

  it('refuses to replay unknown, or terminal/unresolved, without the duplicate risk accepted', () => {
    expect(decide(snap('unknown', { attemptCount: 1 }), REPLAY, ctx(T0))).toMatchObject({ ok: false, reason: expect.stringMatching(/^unknown: /) });
    expect(decide(snap('terminal', { terminalReason: 'unresolved', attemptCount: 1 }), REPLAY, ctx(T0))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^unresolved: /),
    });
  });

  it('refuses every replay at or after expires_at, even with the flag', () => {
    const waiting: DeliverySnapshot[] = [
      snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 1_000 }),
      snap('unknown', { attemptCount: 1 }),
      ...REPLAYABLE_REASONS.map((terminalReason) => snap('terminal', { terminalReason, attemptCount: 3 })),
    ];
    for (const d of waiting) {
      for (const now of [T0 + HOUR, T0 + HOUR + 1, T0 + 30 * 24 * HOUR]) {
        for (const e of [REPLAY, REPLAY_ACCEPTING_RISK]) {
          expect(decide(d, e, ctx(now)), `${d.state}/${d.terminalReason ?? ''} at +${now - T0}`).toEqual({
            ok: false,
            reason: 'expired: issue a new generation to send again',
          });
        }
      }
    }
  });

  it('has nothing to replay in ready, submitting or accepted', () => {
    for (const state of ['ready', 'submitting', 'accepted'] as const) {
      for (const e of [REPLAY, REPLAY_ACCEPTING_RISK]) {
        expect(decide(snap(state, { attemptCount: 1 }), e, ctx(T0))).toEqual({ ok: false, reason: `nothing to replay in ${state}` });
      }
    }
  });

  it('a replayed exhausted delivery gets exactly one more attempt: its retryable failure ends it exhausted again', () => {
    // POLICY allows 3 attempts; all 3 were made. attempt_count is not reset by the replay.
    const exhausted = snap('terminal', { terminalReason: 'exhausted', attemptCount: 3 });
    const replayed = decide(exhausted, REPLAY, ctx(T0));
    expect(replayed).toMatchObject({ ok: true, to: 'ready', nextAttemptAt: T0 });
    const ready = snap('ready', { attemptCount: 3, nextAttemptAt: T0 });
    expect(decide(ready, { type: 'claim' }, ctx(T0))).toMatchObject({ ok: true, to: 'submitting' });
    // The claim made it attempt 4.
    const submitting = snap('submitting', { attemptCount: 4 });
    expect(decide(submitting, RETRYABLE, ctx(T0))).toMatchObject({ ok: true, to: 'terminal', terminalReason: 'exhausted' });
    expect(decide(submitting, THROTTLED(1_000), ctx(T0))).toMatchObject({ ok: true, to: 'terminal', terminalReason: 'exhausted' });
    // ... and if the extra attempt went unknown, authoritative not-found also ends it exhausted.
    expect(decide(snap('unknown', { attemptCount: 4 }), NOT_FOUND, ctx(T0))).toMatchObject({ to: 'terminal', terminalReason: 'exhausted' });
  });

  it('a replayed rejected delivery keeps what was left of its attempts', () => {
    expect(decide(snap('terminal', { terminalReason: 'rejected', attemptCount: 1 }), REPLAY, ctx(T0))).toMatchObject({ ok: true, to: 'ready' });
    // Attempt 2 of 3 fails retryably: scheduled, not exhausted.
    expect(decide(snap('submitting', { attemptCount: 2 }), RETRYABLE, ctx(T0))).toMatchObject({ to: 'retryable', nextAttemptAt: T0 + 2_000 });
  });

  it('a replay is due at once: a claim at the same instant submits', () => {
    const r = decide(snap('retryable', { attemptCount: 1, nextAttemptAt: T0 + 60_000 }), REPLAY, ctx(T0));
    expect(r.ok).toBe(true);
    const nextAttemptAt = r.ok ? r.nextAttemptAt : null;
    expect(decide(snap('ready', { attemptCount: 1, nextAttemptAt }), { type: 'claim' }, ctx(T0))).toMatchObject({ ok: true, to: 'submitting' });
  });
});

describe('decide: supersede', () => {
  it('does not supersede what may already be out: submitting, unknown, accepted', () => {
    for (const state of ['submitting', 'unknown', 'accepted'] as const) {
      expect(decide(snap(state, { attemptCount: 1 }), SUPERSEDE, ctx(T0))).toEqual({ ok: false, reason: `nothing pending to supersede in ${state}` });
    }
  });
});

describe('decide: events that do not apply', () => {
  const ALL_EVENTS: DeliveryEvent[] = [
    { type: 'claim' },
    ACCEPTED,
    UNKNOWN,
    RETRYABLE,
    THROTTLED(1_000),
    PERMANENT,
    { type: 'lease_expired' },
    { type: 'expire' },
    { type: 'cancel' },
    FOUND,
    NOT_FOUND,
    WINDOW_CLOSED,
    SUPERSEDE,
    UNSUBSCRIBED,
    SUPPRESSED,
  ];

  it('does not stop what may already be out: suppress is refused in unknown and accepted', () => {
    for (const state of ['unknown', 'accepted'] as const) {
      for (const e of [UNSUBSCRIBED, SUPPRESSED]) {
        expect(decide(snap(state, { attemptCount: 1 }), e, ctx(T0))).toEqual({ ok: false, reason: `nothing unsent to stop in ${state}` });
      }
    }
  });

  it('refuses every event but replay on a terminal delivery, whatever its reason and the clock (and evidence of arrival for an unresolved one)', () => {
    for (const terminalReason of TERMINAL_REASONS) {
      for (const now of [T0, T0 + 2 * HOUR]) {
        for (const e of [...ALL_EVENTS, POLICY_EVENT('accept_duplicate'), POLICY_EVENT('wait_for_evidence', { windowClosed: true })]) {
          if (terminalReason === 'unresolved' && e === FOUND) continue;
          expect(decide(snap('terminal', { terminalReason, attemptCount: 1 }), e, ctx(now))).toEqual({
            ok: false,
            reason: 'terminal is final except by an operator replay or evidence for an unresolved one',
          });
        }
      }
    }
  });

  it('applies an ambiguity policy only to unknown, and resend_same_key only where the provider dedupes', () => {
    for (const state of ['ready', 'submitting', 'retryable', 'accepted'] as const) {
      for (const p of ['wait_for_evidence', 'resend_same_key', 'user_resend', 'accept_duplicate'] as const) {
        expect(decide(snap(state), POLICY_EVENT(p, { dedupesByKey: true, windowClosed: true }), ctx(T0)).ok).toBe(false);
      }
    }
    const d = snap('unknown', { attemptCount: 1 });
    expect(decide(d, POLICY_EVENT('resend_same_key', { dedupesByKey: false }), ctx(T0))).toEqual({
      ok: false,
      reason: 'resend_same_key needs a provider that deduplicates by key',
    });
    expect(decide(d, POLICY_EVENT('wait_for_evidence'), ctx(T0))).toEqual({ ok: false, reason: 'waiting for evidence' });
  });

  it('leaves accepted to downstream evidence: no event moves it, replay included', () => {
    for (const now of [T0, T0 + 2 * HOUR]) {
      for (const e of [...ALL_EVENTS, REPLAY, REPLAY_ACCEPTING_RISK]) {
        expect(decide(snap('accepted', { attemptCount: 1 }), e, ctx(now)).ok, e.type).toBe(false);
      }
    }
  });

  it('never resends from unknown on its own: claim, outcome, lease_expired, expire, cancel, supersede and a replay without the flag are refused', () => {
    const d = snap('unknown', { attemptCount: 1 });
    for (const now of [T0, T0 + 2 * HOUR]) {
      for (const e of [...ALL_EVENTS.filter((x) => x.type !== 'evidence'), REPLAY]) {
        expect(decide(d, e, ctx(now)).ok, e.type).toBe(false);
      }
    }
  });

  it('waits while reconciliation has no authoritative answer and the window is open', () => {
    expect(decide(snap('unknown', { attemptCount: 1 }), NO_ANSWER_YET, ctx(T0))).toEqual({ ok: false, reason: 'no authoritative answer yet' });
  });

  it('refuses outcomes and lease expiry without a submission in flight', () => {
    for (const state of ['ready', 'retryable', 'unknown'] as const) {
      expect(decide(snap(state), ACCEPTED, ctx(T0)).ok).toBe(false);
      expect(decide(snap(state), { type: 'lease_expired' }, ctx(T0)).ok).toBe(false);
    }
  });

  it('refuses a second claim or a cancel while submitting', () => {
    const d = snap('submitting', { attemptCount: 1 });
    expect(decide(d, { type: 'claim' }, ctx(T0)).ok).toBe(false);
    expect(decide(d, { type: 'cancel' }, ctx(T0)).ok).toBe(false);
  });

  it('refuses evidence of absence outside unknown, and lets evidence of arrival wait while a submission is in flight', () => {
    for (const state of ['ready', 'submitting', 'retryable'] as const) {
      expect(decide(snap(state), NOT_FOUND, ctx(T0)).ok).toBe(false);
      expect(decide(snap(state), WINDOW_CLOSED, ctx(T0)).ok).toBe(false);
    }
    expect(decide(snap('submitting', { attemptCount: 1 }), FOUND, ctx(T0)).ok).toBe(false);
  });
});

describe('decide: not_sent (a gateway phone reported Failed before Sent)', () => {
  const NOT_SENT_EVENT: DeliveryEvent = { type: 'not_sent', permanent: false };
  it('is refused where no submission is out: a stale report changes nothing', () => {
    for (const state of ['ready', 'submitting', 'retryable', 'terminal'] as const) {
      expect(decide(snap(state, { attemptCount: 1, terminalReason: state === 'terminal' ? 'unresolved' : null }), NOT_SENT_EVENT, ctx(T0)).ok).toBe(false);
    }
  });
  it('honours a retry-after as a lower bound', () => {
    expect(decide(snap('unknown', { attemptCount: 1 }), { type: 'not_sent', permanent: false, retryAfterMs: 30_000 }, ctx(T0))).toMatchObject({
      ok: true,
      to: 'retryable',
      nextAttemptAt: T0 + 30_000,
    });
  });
});
