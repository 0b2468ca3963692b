/**
 * Outcomes fenced off by a rescue (src/delivery/late-outcomes.ts): each is kept on its attempt;
 * an acceptance is counted once and resolves the rescuer's `unknown` under the claim's fencing
 * token; a late `unknown` or refusal resolves nothing and is not counted again.
 */
import { describe, expect, it } from 'vitest';
import { LateOutcomes } from '../../src/delivery/late-outcomes.js';
import { ladderFor, type SubmitOutcome } from '../../src/domain/index.js';
import { DeliveryCounters } from '../../src/metrics/counters.js';
import type { TransitionWrite } from '../../src/store/store.js';
import { claimedDelivery } from '../helpers/claimed-delivery.js';
import { silentLogger } from '../helpers/harness.js';

function lateOutcomes() {
  const kept: Array<{ deliveryId: string; attemptNumber: number; outcome: SubmitOutcome }> = [];
  const applied: TransitionWrite[][] = [];
  const counters = new DeliveryCounters();
  const late = new LateOutcomes({
    store: {
      recordLateOutcome: async (r: { deliveryId: string; attemptNumber: number; outcome: SubmitOutcome }) => {
        kept.push(r);
      },
      applyTransitions: async (writes: TransitionWrite[]) => {
        applied.push(writes);
        return writes.map((w) => ({ deliveryId: w.deliveryId, applied: true }));
      },
    },
    logger: silentLogger,
    counters,
    policyFor: (claim) => ladderFor(claim.purpose, null),
    random: () => 0.5,
  });
  return { kept, applied, counters, late };
}

describe('LateOutcomes', () => {
  it('keeps each on its attempt; an acceptance resolves the unknown under the same fencing token and is counted once', async () => {
    const { kept, applied, counters, late } = lateOutcomes();
    const a = claimedDelivery({ deliveryId: 'a', attemptNumber: 2, leaseVersion: 7 });
    const b = claimedDelivery({ deliveryId: 'b', attemptNumber: 1, leaseVersion: 4 });
    const c = claimedDelivery({ deliveryId: 'c', attemptNumber: 1, leaseVersion: 5 });
    const accepted: SubmitOutcome = { kind: 'accepted', providerMessageId: 'SM1' };
    const unknown: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no answer' };
    const refused: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: 'bad', message: 'no' };
    await late.record(
      [
        { claim: a, outcome: accepted },
        { claim: b, outcome: unknown },
        { claim: c, outcome: refused },
      ],
      9_000,
    );
    expect(kept).toEqual([
      { deliveryId: 'a', attemptNumber: 2, outcome: accepted },
      { deliveryId: 'b', attemptNumber: 1, outcome: unknown },
      { deliveryId: 'c', attemptNumber: 1, outcome: refused },
    ]);
    expect(applied).toHaveLength(1);
    expect(applied[0]).toEqual([
      expect.objectContaining({
        deliveryId: 'a',
        expect: { state: 'unknown', leaseVersion: 7 },
        transition: expect.objectContaining({ from: 'unknown', to: 'accepted', providerMessageId: 'SM1' }),
        now: 9_000,
      }),
    ]);
    expect(counters.snapshot().map((s) => `${s.name}=${s.value}`)).toEqual(['accepted_submissions=1']);
  });
});
