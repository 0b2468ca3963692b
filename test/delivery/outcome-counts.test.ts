/**
 * The counters for one applied outcome (src/delivery/outcome-counts.ts): acceptance and its time
 * since intake, ambiguity, a definite refusal by class, a throttle by scope, an expired challenge;
 * a short-circuit that made no call is no refusal.
 */
import { describe, expect, it } from 'vitest';
import { countApplied } from '../../src/delivery/outcome-counts.js';
import { decide, ladderFor, type SubmitOutcome } from '../../src/domain/index.js';
import { DeliveryCounters } from '../../src/metrics/counters.js';
import { claimedDelivery } from '../helpers/claimed-delivery.js';

const c = claimedDelivery({ channel: 'sms', purpose: 'otp', providerAccount: 'acct', notificationCreatedAt: 1_000, expiresAt: 100_000 });

/** Counts `outcome` as the sender would after writing `decide`'s transition for it at `now`. */
function counted(outcome: SubmitOutcome, now = 3_000, claim = c): DeliveryCounters {
  const d = decide(
    { state: 'submitting', attemptCount: 1, expiresAt: claim.expiresAt, nextAttemptAt: null },
    { type: 'outcome', outcome },
    {
      now,
      policy: ladderFor(claim.purpose, null),
      random: () => 0.5,
    },
  );
  if (!d.ok) throw new Error(`no transition for ${outcome.kind}`);
  const counters = new DeliveryCounters();
  countApplied(counters, claim, outcome, { now, transition: d });
  return counters;
}
const names = (k: DeliveryCounters) => k.snapshot().map((s) => `${s.name}/${s.channel}/${s.purpose}=${s.value}`);

describe('countApplied', () => {
  it('an acceptance, with its time since intake', async () => {
    const k = counted({ kind: 'accepted', providerMessageId: 'm' }, 3_000);
    expect(names(k)).toEqual(['accepted_submissions/sms/otp=1']);
    const histogram = await k.series.intakeToAcceptance.get();
    expect(histogram.values.find((v) => v.metricName?.endsWith('_sum'))?.value).toBe(2);
  });

  it('an ambiguous answer', () => {
    expect(names(counted({ kind: 'unknown', code: 'timeout', message: 'no answer' }))).toEqual(['ambiguous_submissions/sms/otp=1']);
  });

  it('a definite refusal by class, and a throttle by its scope', () => {
    const refused = counted({ kind: 'retryable', code: 'http_503', message: 'later' });
    expect(refused.series.refusals.snapshot()).toEqual([{ labels: { channel: 'sms', purpose: 'otp', class: 'retryable' }, value: 1 }]);
    const throttled = counted({ kind: 'throttled', code: 'http_429', message: 'slow', scope: 'destination' });
    expect(throttled.series.throttles.snapshot()).toEqual([{ labels: { provider_account: 'acct', scope: 'destination' }, value: 1 }]);
    const accountWide = counted({ kind: 'throttled', code: 'http_429', message: 'slow' });
    expect(accountWide.series.throttles.snapshot()).toEqual([{ labels: { provider_account: 'acct', scope: 'account' }, value: 1 }]);
  });

  it('a challenge that expired before the call: an expired challenge, no refusal', () => {
    const k = counted({ kind: 'retryable', code: 'expired_before_send', message: 'nothing was sent' }, 100_000);
    expect(names(k)).toEqual(['expired_challenges/sms/otp=1']);
    expect(k.series.refusals.snapshot()).toEqual([]);
  });

  it('a lapsed lease made no call: no refusal', () => {
    const k = counted({ kind: 'retryable', code: 'lease_lapsed_before_send', message: 'nothing was sent' });
    expect(k.series.refusals.snapshot()).toEqual([]);
    expect(names(k)).toEqual([]);
  });
});
