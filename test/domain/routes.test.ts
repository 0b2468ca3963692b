/**
 * Routes and failover (src/domain/routes.ts): which answers move a delivery to another account,
 * which account comes next, the latency order for codes, and the demotion evaluator, on
 * examples and as properties (random routes, figures and demotion states).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AMBIGUITY_POLICIES,
  DEFAULT_DEMOTION_POLICY,
  evaluateRoute,
  failoverReason,
  nextAccount,
  orderRoute,
  unhealthyReasons,
  type AccountFigures,
  type FailoverInput,
  type PermanentReason,
  type SubmitOutcome,
} from '../../src/domain/index.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;

function input(outcome: SubmitOutcome, extra: Partial<FailoverInput> = {}): FailoverInput {
  return {
    outcome,
    now: NOW,
    expiresAt: NOW + 10 * MIN,
    ambiguityPolicy: 'wait_for_evidence',
    overRetryBudget: false,
    pausedUntil: null,
    ladderDelayMs: 5_000,
    ...extra,
  };
}

describe('failoverReason', () => {
  it('moves after a retryable answer, saying why', () => {
    expect(failoverReason(input({ kind: 'retryable', code: 'http_503', message: '' }))).toBe('retryable');
    expect(failoverReason(input({ kind: 'retryable', code: 'http_503', message: '' }, { overRetryBudget: true }))).toBe('over_retry_budget');
    expect(failoverReason(input({ kind: 'retryable', code: 'http_503', message: '' }, { pausedUntil: NOW + MIN }))).toBe('account_paused');
    expect(failoverReason(input({ kind: 'retryable', code: 'no_device_online', message: '' }))).toBe('no_phone_online');
  });

  it('does not move an outcome no call produced', () => {
    expect(failoverReason(input({ kind: 'retryable', code: 'expired_before_send', message: '' }))).toBeNull();
    expect(failoverReason(input({ kind: 'retryable', code: 'lease_lapsed_before_send', message: '' }))).toBeNull();
    expect(failoverReason(input({ kind: 'retryable', code: 'aborted_before_send', message: '' }))).toBeNull();
    expect(failoverReason(input({ kind: 'retryable', code: 'connect_failed', message: '' }))).toBe('retryable');
  });

  it('moves a throttle that outlasts the ladder or the expiry, not a short one, never a destination-scoped one', () => {
    const throttle = (retryAfterMs: number | null, scope?: 'account' | 'destination'): SubmitOutcome => ({
      kind: 'throttled',
      code: 'http_429',
      message: '',
      retryAfterMs,
      ...(scope ? { scope } : {}),
    });
    expect(failoverReason(input(throttle(null)))).toBe('throttled'); // unknown length
    expect(failoverReason(input(throttle(60_000)))).toBe('throttled'); // longer than the ladder's 5 s
    expect(failoverReason(input(throttle(1_000)))).toBeNull(); // the ladder waits longer anyway
    expect(failoverReason(input(throttle(1_000), { expiresAt: NOW + 500 }))).toBe('throttled'); // past expiry
    expect(failoverReason(input(throttle(1_000), { pausedUntil: NOW + MIN }))).toBe('throttled'); // the account stays paused longer
    expect(failoverReason(input(throttle(null, 'destination')))).toBeNull();
  });

  it('never moves a permanent refusal (an invalid number, an unsubscribed address, the content)', () => {
    const reasons: PermanentReason[] = ['invalid_destination', 'unsubscribed_at_provider', 'content_rejected', 'unauthorized', 'other'];
    for (const reason of reasons) {
      expect(failoverReason(input({ kind: 'permanent', reason, code: 'x', message: '' }))).toBeNull();
    }
  });

  it('moves an unknown only under accept_duplicate', () => {
    for (const policy of AMBIGUITY_POLICIES) {
      const r = failoverReason(input({ kind: 'unknown', code: 'timeout', message: '' }, { ambiguityPolicy: policy }));
      expect(r).toBe(policy === 'accept_duplicate' ? 'accept_duplicate' : null);
    }
  });

  it('property: an unknown moves only under accept_duplicate, and accepted never moves', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...AMBIGUITY_POLICIES),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 3_600_000 }), { nil: null }),
        fc.integer({ min: 0, max: 600_000 }),
        (policy, overBudget, paused, ladder) => {
          const extra = { ambiguityPolicy: policy, overRetryBudget: overBudget, pausedUntil: paused === null ? null : NOW + paused, ladderDelayMs: ladder };
          const unknown = failoverReason(input({ kind: 'unknown', code: 'reset', message: '' }, extra));
          expect(unknown === null || policy === 'accept_duplicate').toBe(true);
          expect(failoverReason(input({ kind: 'accepted', providerMessageId: 'm' }, extra))).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('nextAccount', () => {
  it('takes the next account that is not demoted, wrapping to the start', () => {
    const route = ['a', 'b', 'c'];
    expect(nextAccount(route, 'a', new Set())).toBe('b');
    expect(nextAccount(route, 'a', new Set(['b']))).toBe('c');
    expect(nextAccount(route, 'c', new Set())).toBe('a');
    expect(nextAccount(route, 'a', new Set(['b', 'c']))).toBeNull();
    expect(nextAccount(['a'], 'a', new Set())).toBeNull();
    // A delivery on an account the route no longer lists starts at the route's head.
    expect(nextAccount(route, 'gone', new Set())).toBe('b');
  });

  it('property: never the current account, never a demoted one, null only when nothing else is in service', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e'), { minLength: 1 }),
        fc.nat(),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        (route, i, flags) => {
          const current = route[i % route.length]!;
          const demoted = new Set(route.filter((_, k) => flags[k]));
          const next = nextAccount(route, current, demoted);
          const others = route.filter((a) => a !== current && !demoted.has(a));
          if (next === null) expect(others).toEqual([]);
          else {
            expect(next).not.toBe(current);
            expect(demoted.has(next)).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('orderRoute', () => {
  it('fixed: the configured order, demoted accounts last', () => {
    expect(orderRoute({ accounts: ['a', 'b', 'c'], order: 'fixed' }, new Set(['a']), new Map([['c', 1]]))).toEqual(['b', 'c', 'a']);
  });

  it('latency: the fastest healthy account first; accounts without figures after, in their configured order', () => {
    const latency = new Map([
      ['a', 40_000],
      ['c', 3_000],
    ]);
    expect(orderRoute({ accounts: ['a', 'b', 'c', 'd'], order: 'latency' }, new Set(), latency)).toEqual(['c', 'a', 'b', 'd']);
    // A demoted account goes last however fast it was.
    expect(orderRoute({ accounts: ['a', 'b', 'c'], order: 'latency' }, new Set(['c']), latency)).toEqual(['a', 'b', 'c']);
  });
});

function figures(account: string, f: Partial<AccountFigures> = {}): AccountFigures {
  return { account, accepted: 100, slow: 0, calls: 0, failures: 0, pausedSince: null, ...f };
}

describe('the demotion rule', () => {
  const p = DEFAULT_DEMOTION_POLICY;

  it('has Notify-derived defaults: 15 % of 15 minutes slower than 5 minutes, 5 minutes between changes', () => {
    expect(p.slowRatio).toBe(0.15);
    expect(p.windowMs).toBe(15 * MIN);
    expect(p.slowAfterMs).toBe(5 * MIN);
    expect(p.coolDownMs).toBe(5 * MIN);
  });

  it('an account is unhealthy for slow delivery at 15 %, not below; over its retry budget; paused longer than P', () => {
    expect(unhealthyReasons(figures('a', { slow: 15 }), NOW, p)).toEqual(['slow_delivery']);
    expect(unhealthyReasons(figures('a', { slow: 14 }), NOW, p)).toEqual([]);
    expect(unhealthyReasons(figures('a', { accepted: 5, slow: 5 }), NOW, p)).toEqual([]); // too few to say
    expect(unhealthyReasons(figures('a', { calls: 40, failures: 30 }), NOW, p)).toEqual(['over_retry_budget']);
    expect(unhealthyReasons(figures('a', { pausedSince: NOW - 11 * MIN }), NOW, p)).toEqual(['paused_by_throttling']);
    expect(unhealthyReasons(figures('a', { pausedSince: NOW - 9 * MIN }), NOW, p)).toEqual([]);
  });

  it('demotes a slow primary while the backup is healthy, with its figures', () => {
    const f = new Map([
      ['a', figures('a', { slow: 30 })],
      ['b', figures('b')],
    ]);
    expect(evaluateRoute(['a', 'b'], f, { demoted: new Set(), lastChangeAt: null }, NOW, p)).toEqual({
      action: 'demote',
      account: 'a',
      reasons: ['slow_delivery'],
      figures: f.get('a'),
    });
  });

  it('does nothing when every account is unhealthy, or within the cool-down', () => {
    const allBad = new Map([
      ['a', figures('a', { slow: 30 })],
      ['b', figures('b', { slow: 50 })],
    ]);
    expect(evaluateRoute(['a', 'b'], allBad, { demoted: new Set(), lastChangeAt: null }, NOW, p)).toBeNull();
    const oneBad = new Map([['a', figures('a', { slow: 30 })]]);
    expect(evaluateRoute(['a', 'b'], oneBad, { demoted: new Set(), lastChangeAt: NOW - 4 * MIN }, NOW, p)).toBeNull();
    expect(evaluateRoute(['a', 'b'], oneBad, { demoted: new Set(), lastChangeAt: NOW - 5 * MIN }, NOW, p)?.action).toBe('demote');
  });

  it('restores a demoted account once its figures recover, and keeps it demoted while they do not', () => {
    const recovered = new Map([['a', figures('a', { accepted: 0 })]]);
    expect(evaluateRoute(['a', 'b'], recovered, { demoted: new Set(['a']), lastChangeAt: NOW - 6 * MIN }, NOW, p)).toMatchObject({
      action: 'restore',
      account: 'a',
    });
    const still = new Map([['a', figures('a', { slow: 20 })]]);
    expect(evaluateRoute(['a', 'b'], still, { demoted: new Set(['a']), lastChangeAt: NOW - 6 * MIN }, NOW, p)).toBeNull();
  });

  it('property: a route always keeps at least one account in service, and changes nothing within the cool-down', () => {
    const accounts = ['a', 'b', 'c'];
    const fig = fc.record({
      accepted: fc.integer({ min: 0, max: 50 }),
      slowShare: fc.double({ min: 0, max: 1, noNaN: true }),
      calls: fc.integer({ min: 0, max: 50 }),
      failShare: fc.double({ min: 0, max: 1, noNaN: true }),
      paused: fc.option(fc.integer({ min: 0, max: 30 * MIN }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(fig, { minLength: 3, maxLength: 3 }),
        fc.subarray(accounts),
        fc.option(fc.integer({ min: 0, max: 20 * MIN }), { nil: null }),
        (figs, demotedList, sinceChange) => {
          const f = new Map(
            accounts.map((a, i) => {
              const g = figs[i]!;
              return [
                a,
                {
                  account: a,
                  accepted: g.accepted,
                  slow: Math.floor(g.accepted * g.slowShare),
                  calls: g.calls,
                  failures: Math.floor(g.calls * g.failShare),
                  pausedSince: g.paused === null ? null : NOW - g.paused,
                },
              ] as const;
            }),
          );
          const demoted = new Set(demotedList.length === accounts.length ? demotedList.slice(1) : demotedList);
          const change = evaluateRoute(accounts, f, { demoted, lastChangeAt: sinceChange === null ? null : NOW - sinceChange }, NOW, p);
          if (sinceChange !== null && sinceChange < p.coolDownMs) expect(change).toBeNull();
          if (change?.action === 'demote') {
            const after = accounts.filter((a) => !demoted.has(a) && a !== change.account);
            expect(after.some((a) => unhealthyReasons(f.get(a)!, NOW, p).length === 0)).toBe(true);
            expect(change.reasons.length).toBeGreaterThan(0);
          }
          if (change?.action === 'restore') {
            expect(demoted.has(change.account)).toBe(true);
            expect(unhealthyReasons(f.get(change.account)!, NOW, p)).toEqual([]);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
