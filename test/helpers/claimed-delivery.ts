/** A claimed delivery as the store hands one to the claim sender, for unit tests of its collaborators. */
import type { ClaimedDelivery } from '../../src/store/store.js';

export function claimedDelivery(over: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return {
    deliveryId: 'd1',
    notificationId: 'n1',
    tenantId: 't1',
    channel: 'sms',
    purpose: 'otp',
    providerAccount: 'acct',
    destination: '+14155550123',
    content: { text: 'Your code is 123456' },
    idempotencyKey: 'key-1',
    expiresAt: 1_000_000,
    attemptNumber: 1,
    leaseVersion: 3,
    leaseUntil: 30_000,
    retryLadder: null,
    notificationCreatedAt: 0,
    accountPinned: false,
    ...over,
  };
}
