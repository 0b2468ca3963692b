import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assessBudget,
  budgetSpreadMs,
  decideFallback,
  DOWNSTREAM_STATUSES,
  DELIVERY_STATES,
  FALLBACK_EVIDENCE,
  reachedEvidence,
  type FallbackFacts,
} from '../../src/domain/index.js';

const base = (over: Partial<FallbackFacts> = {}): FallbackFacts => ({
  previous: { state: 'submitting', downstreamStatus: null },
  dueAt: 60_000,
  expiresAt: 600_000,
  evidence: 'accepted',
  now: 0,
  ...over,
});

describe('decideFallback', () => {
  it('an email accepted before the deadline resolves the challenge: no SMS', () => {
    expect(decideFallback(base({ previous: { state: 'accepted', downstreamStatus: 'accepted' }, now: 10_000 }))).toEqual({ kind: 'resolved' });
    expect(decideFallback(base({ previous: { state: 'accepted', downstreamStatus: 'accepted' }, now: 60_000 }))).toEqual({ kind: 'resolved' });
  });

  it('a slow email past the deadline means the SMS is created', () => {
    expect(decideFallback(base({ now: 59_999 }))).toEqual({ kind: 'wait' });
    expect(decideFallback(base({ now: 60_000 }))).toEqual({ kind: 'create' });
    expect(decideFallback(base({ previous: { state: 'unknown', downstreamStatus: null }, now: 60_000 }))).toEqual({ kind: 'create' });
  });

  it('a previous delivery that ended terminal falls back at once', () => {
    expect(decideFallback(base({ previous: { state: 'terminal', downstreamStatus: null }, now: 1 }))).toEqual({ kind: 'create' });
    expect(decideFallback(base({ previous: { state: 'accepted', downstreamStatus: 'bounced' }, now: 1 }))).toEqual({ kind: 'create' });
  });

  it('a fallback that would start at or after expiry is not created', () => {
    expect(decideFallback(base({ now: 600_000, dueAt: 60_000 }))).toEqual({ kind: 'expired' });
    expect(decideFallback(base({ now: 700_000, dueAt: 650_000 }))).toEqual({ kind: 'expired' });
  });

  it('a stricter evidence level waits for downstream evidence', () => {
    const accepted = { state: 'accepted' as const, downstreamStatus: 'accepted' as const };
    expect(decideFallback(base({ previous: accepted, evidence: 'delivered', now: 60_000 }))).toEqual({ kind: 'create' });
    expect(decideFallback(base({ previous: { state: 'accepted', downstreamStatus: 'delivered' }, evidence: 'delivered', now: 60_000 }))).toEqual({
      kind: 'resolved',
    });
    expect(decideFallback(base({ previous: { state: 'accepted', downstreamStatus: 'sent' }, evidence: 'sent', now: 1 }))).toEqual({ kind: 'resolved' });
  });

  it('never creates a fallback at or after expiry, and never while the previous channel met the evidence level', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DELIVERY_STATES),
        fc.option(fc.constantFrom(...DOWNSTREAM_STATUSES), { nil: null }),
        fc.constantFrom(...FALLBACK_EVIDENCE),
        fc.nat(1_000_000),
        fc.nat(1_000_000),
        fc.nat(1_000_000),
        (state, downstream, evidence, now, dueAt, expiresAt) => {
          const d = decideFallback({ previous: { state, downstreamStatus: downstream }, evidence, now, dueAt, expiresAt });
          if (d.kind === 'create') {
            expect(now).toBeLessThan(expiresAt);
            expect(reachedEvidence(state, downstream, evidence)).toBe(false);
          }
          if (reachedEvidence(state, downstream, evidence)) expect(d.kind).toBe('resolved');
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('retry budget', () => {
  it('is degraded only when more than half of enough calls failed', () => {
    expect(assessBudget({ calls: 19, failures: 19 }).state).toBe('healthy');
    expect(assessBudget({ calls: 20, failures: 10 }).state).toBe('healthy');
    expect(assessBudget({ calls: 20, failures: 11 })).toEqual({ state: 'degraded', failureRatio: 0.55 });
    expect(assessBudget({ calls: 0, failures: 0 })).toEqual({ state: 'healthy', failureRatio: 0 });
  });

  it('spreads retries of a degraded account over a wider, bounded window; none when healthy', () => {
    expect(budgetSpreadMs('healthy', 10_000, () => 0.99)).toBe(0);
    expect(budgetSpreadMs('degraded', 10_000, () => 0)).toBe(0);
    expect(budgetSpreadMs('degraded', 10_000, () => 0.5)).toBe(10_000);
    expect(budgetSpreadMs('degraded', 3_600_000, () => 1)).toBe(300_000);
  });
});
