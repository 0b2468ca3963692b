/**
 * Retiring push targets a push service said are gone (src/delivery/push-target-retirement.ts):
 * only a push delivery's permanent invalid_destination with a code ending `_unregistered` or
 * `_bad_token` deactivates its target; anything else leaves subscriptions alone, and a failed
 * write is logged, not thrown.
 */
import { describe, expect, it } from 'vitest';
import { PushTargetRetirement } from '../../src/delivery/push-target-retirement.js';
import type { SubmitOutcome } from '../../src/domain/index.js';
import type { PushTargetRefusal } from '../../src/store/push-store.js';
import { claimedDelivery } from '../helpers/claimed-delivery.js';
import { silentLogger } from '../helpers/harness.js';

const gone = (code: string): SubmitOutcome => ({ kind: 'permanent', reason: 'invalid_destination', code, message: 'refused' });

function retirement(fail = false) {
  const writes: PushTargetRefusal[] = [];
  const store = {
    push: {
      deactivatePushTarget: async (r: PushTargetRefusal) => {
        if (fail) throw new Error('connection lost');
        writes.push(r);
        return 1;
      },
    },
  };
  return { writes, retire: new PushTargetRetirement(store, silentLogger) };
}

describe('PushTargetRetirement', () => {
  it('deactivates the targets a push service called unregistered or a bad token, with the reason', async () => {
    const { writes, retire } = retirement();
    const a = claimedDelivery({ deliveryId: 'a', channel: 'push', tenantId: 't1', destination: 'tok-a' });
    const b = claimedDelivery({ deliveryId: 'b', channel: 'push', tenantId: 't2', destination: 'tok-b' });
    await retire.retireRefused([a, b], [gone('fcm_unregistered'), gone('apns_bad_token')], 5_000);
    expect(writes).toEqual([
      { tenantId: 't1', target: 'tok-a', reason: 'unregistered', code: 'fcm_unregistered', now: 5_000 },
      { tenantId: 't2', target: 'tok-b', reason: 'bad_token', code: 'apns_bad_token', now: 5_000 },
    ]);
  });

  it('leaves subscriptions alone for any other answer or channel', async () => {
    const { writes, retire } = retirement();
    const push = claimedDelivery({ channel: 'push', destination: 'tok' });
    const sms = claimedDelivery({ channel: 'sms' });
    await retire.retireRefused(
      [push, push, push, push, sms],
      [
        { kind: 'accepted', providerMessageId: 'm' },
        gone('fcm_invalid_argument'),
        { kind: 'permanent', reason: 'content_rejected', code: 'fcm_unregistered', message: 'refused' },
        { kind: 'retryable', code: 'fcm_unregistered', message: 'later' },
        gone('twilio_unregistered'),
      ],
      5_000,
    );
    expect(writes).toEqual([]);
  });

  it('a failed deactivation is logged, not thrown', async () => {
    const { retire } = retirement(true);
    await expect(retire.retireRefused([claimedDelivery({ channel: 'push' })], [gone('fcm_unregistered')], 1)).resolves.toBeUndefined();
  });
});
