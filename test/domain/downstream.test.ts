/**
 * Tests for `mergeDownstream`: downstream status moves forward on the lattice
 * accepted < sent < delivered < read, with bounced / failed / complained final.
 * The order below is written out here, independently of the implementation's ranks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOWNSTREAM_STATUSES, mergeDownstream, type DownstreamStatus } from '../../src/domain/index.js';

const CHAIN = ['accepted', 'sent', 'delivered', 'read'] as const satisfies readonly DownstreamStatus[];
const FINALS = ['bounced', 'failed', 'complained'] as const satisfies readonly DownstreamStatus[];
type ChainStatus = (typeof CHAIN)[number];

const isFinal = (s: DownstreamStatus | null): boolean => s !== null && (FINALS as readonly string[]).includes(s);
/** Position in the order: null lowest, then the chain, then every final above it. */
const level = (s: DownstreamStatus | null): number => (s === null ? -1 : isFinal(s) ? CHAIN.length : CHAIN.indexOf(s as ChainStatus));

const fold = (start: DownstreamStatus | null, events: readonly DownstreamStatus[]): DownstreamStatus | null =>
  events.reduce<DownstreamStatus | null>((cur, e) => mergeDownstream(cur, e), start);

/** The lattice join of chain statuses: the highest one (null for none). */
const join = (xs: ReadonlyArray<ChainStatus | null>): ChainStatus | null =>
  xs.reduce<ChainStatus | null>((best, x) => (x !== null && level(x) > level(best) ? x : best), null);

const chainArb = fc.constantFrom(...CHAIN);
const finalArb = fc.constantFrom(...FINALS);
const anyArb = fc.constantFrom(...DOWNSTREAM_STATUSES);

/** A permutation of `xs` driven by generated sort keys. */
function permute<T>(xs: readonly T[], keys: readonly number[]): T[] {
  return xs
    .map((x, i) => ({ x, k: keys[i] ?? 0, i }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((e) => e.x);
}

describe('mergeDownstream', () => {
  it('lists exactly the chain and the final statuses', () => {
    expect([...DOWNSTREAM_STATUSES].sort()).toEqual([...CHAIN, ...FINALS].sort());
  });

  it('worked examples', () => {
    expect(mergeDownstream(null, 'sent')).toBe('sent');
    expect(mergeDownstream('accepted', 'delivered')).toBe('delivered');
    // A late "sent" callback after "delivered" does not move it back.
    expect(mergeDownstream('delivered', 'sent')).toBe('delivered');
    expect(mergeDownstream('read', 'accepted')).toBe('read');
    expect(mergeDownstream('delivered', 'delivered')).toBe('delivered');
    // A complaint after delivery is final; nothing after it counts.
    expect(mergeDownstream('delivered', 'complained')).toBe('complained');
    expect(mergeDownstream('complained', 'read')).toBe('complained');
    expect(mergeDownstream('bounced', 'failed')).toBe('bounced');
    expect(mergeDownstream(null, 'failed')).toBe('failed');
  });

  it('property: for non-final events, the result is the lattice join, whatever the order and duplicates', () => {
    fc.assert(
      fc.property(
        fc.option(chainArb, { nil: null }),
        fc.array(chainArb, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.double({ noNaN: true }), { minLength: 30, maxLength: 30 }),
        (start, xs, dupIdx, keys) => {
          const expected = join([start, ...xs]);
          expect(fold(start, xs)).toBe(expected);
          // Duplicates (a callback delivered twice, a reconciliation repeating a callback) change nothing.
          const dups = xs.length === 0 ? [] : dupIdx.map((i) => xs[i % xs.length] as ChainStatus);
          expect(fold(start, permute([...xs, ...dups], keys))).toBe(expected);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('property: merge is idempotent, commutative and associative on the chain', () => {
    fc.assert(
      fc.property(chainArb, chainArb, chainArb, (a, b, c) => {
        expect(mergeDownstream(a, a)).toBe(a);
        expect(mergeDownstream(a, b)).toBe(mergeDownstream(b, a));
        expect(mergeDownstream(mergeDownstream(a, b), c)).toBe(mergeDownstream(a, mergeDownstream(b, c)));
      }),
    );
  });

  it('property: with one kind of final among the events, the result is that final in any order', () => {
    fc.assert(
      fc.property(
        fc.option(chainArb, { nil: null }),
        finalArb,
        fc.array(chainArb, { maxLength: 20 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.double({ noNaN: true }), { minLength: 23, maxLength: 23 }),
        (start, final, xs, copies, keys) => {
          const events = [...xs, ...Array.from({ length: copies }, () => final)];
          expect(fold(start, permute(events, keys))).toBe(final);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('property: never moves backwards, and a final status is never left', () => {
    let leftFinal = 0;
    fc.assert(
      fc.property(fc.option(anyArb, { nil: null }), fc.array(anyArb, { minLength: 1, maxLength: 30 }), (start, events) => {
        let cur = start;
        let firstFinal: DownstreamStatus | null = isFinal(start) ? start : null;
        for (const e of events) {
          const next = mergeDownstream(cur, e);
          expect([cur, e]).toContain(next);
          expect(level(next)).toBeGreaterThanOrEqual(level(cur));
          // Below a final, the higher of the two wins (a final incoming status is the top).
          if (!isFinal(cur)) expect(level(next)).toBe(Math.max(level(cur), level(e)));
          if (isFinal(cur)) {
            leftFinal++;
            expect(next).toBe(cur);
          }
          if (firstFinal === null && isFinal(e)) firstFinal = e;
          cur = next;
        }
        // The first final status seen (in the start or the events) is where it ends.
        if (firstFinal !== null) expect(cur).toBe(firstFinal);
      }),
      { numRuns: 1_000 },
    );
    expect(leftFinal).toBeGreaterThan(0);
  });
});
