/**
 * Recording a batch's provider calls (src/delivery/provider-health.ts): outcomes that made no
 * call are left out, retryable and throttled answers count as failures, the bucket is the one
 * holding `now`, and nothing is written for a batch that made no call.
 */
import { describe, expect, it } from 'vitest';
import { ProviderHealthRecorder } from '../../src/delivery/provider-health.js';
import { HEALTH_BUCKET_MS, type SubmitOutcome } from '../../src/domain/index.js';
import type { ProviderCalls } from '../../src/store/health-store.js';
import { silentLogger } from '../helpers/harness.js';

const accepted: SubmitOutcome = { kind: 'accepted', providerMessageId: 'm1' };
const retryable: SubmitOutcome = { kind: 'retryable', code: 'http_503', message: 'unavailable' };
const throttled: SubmitOutcome = { kind: 'throttled', code: 'http_429', message: 'slow down' };
const permanent: SubmitOutcome = { kind: 'permanent', reason: 'invalid_destination', code: 'bad_number', message: 'no such number' };
const unknown: SubmitOutcome = { kind: 'unknown', code: 'timeout', message: 'no answer' };
const expiredBeforeSend: SubmitOutcome = { kind: 'retryable', code: 'expired_before_send', message: 'nothing was sent' };
const leaseLapsed: SubmitOutcome = { kind: 'retryable', code: 'lease_lapsed_before_send', message: 'nothing was sent' };
// The transport keeping Herald's own sendBy (a stalled worker): nothing reached the provider.
const abortedBeforeSend: SubmitOutcome = { kind: 'retryable', code: 'aborted_before_send', message: 'aborted before the request was sent' };

function recorder(fail = false) {
  const writes: ProviderCalls[] = [];
  const store = {
    health: {
      recordProviderCalls: async (r: ProviderCalls) => {
        if (fail) throw new Error('connection lost');
        writes.push(r);
      },
    },
  };
  return { writes, health: new ProviderHealthRecorder(store, silentLogger) };
}

describe('ProviderHealthRecorder', () => {
  it('counts the calls made and the retryable or throttled ones among them, in the bucket holding now', async () => {
    const { writes, health } = recorder();
    const now = 7 * HEALTH_BUCKET_MS + 123;
    await health.record('a', [accepted, retryable, throttled, permanent, unknown, expiredBeforeSend, leaseLapsed, abortedBeforeSend], now);
    expect(writes).toEqual([{ providerAccount: 'a', bucketStart: 7 * HEALTH_BUCKET_MS, calls: 5, failures: 2 }]);
  });

  it('writes nothing for a batch that made no call', async () => {
    const { writes, health } = recorder();
    await health.record('a', [expiredBeforeSend, leaseLapsed, abortedBeforeSend], 1_000);
    await health.record('a', [], 1_000);
    expect(writes).toEqual([]);
  });

  it('a failed write is logged, not thrown: the outcomes are already recorded', async () => {
    const { health } = recorder(true);
    await expect(health.record('a', [accepted], 1_000)).resolves.toBeUndefined();
  });
});
