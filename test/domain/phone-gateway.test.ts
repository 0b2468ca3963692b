/** The phone gateway's pure rules: the phone's states fold forward, what a report means, the message id. */
import { describe, expect, it } from 'vitest';
import { foldPhoneState, gatewayMessageId, PHONE_STATES, reportMeaning, type PhoneState } from '../../src/domain/index.js';

describe('foldPhoneState', () => {
  it('moves forward only, and never out of Failed or Cancelled', () => {
    expect(foldPhoneState(null, 'Processed')).toBe('Processed');
    expect(foldPhoneState('Sent', 'Processed')).toBe('Sent');
    expect(foldPhoneState('Processed', 'Delivered')).toBe('Delivered');
    expect(foldPhoneState('Delivered', 'Failed')).toBe('Failed');
    expect(foldPhoneState('Failed', 'Delivered')).toBe('Failed');
    expect(foldPhoneState('Cancelled', 'Sent')).toBe('Cancelled');
  });
  it('does not depend on the order reports arrive in', () => {
    const states = PHONE_STATES.filter((s) => s !== 'Cancelling' && s !== 'Cancelled');
    for (const a of states)
      for (const b of states) {
        expect(foldPhoneState(foldPhoneState(null, a), b)).toBe(foldPhoneState(foldPhoneState(null, b), a));
      }
  });
});

describe('reportMeaning', () => {
  const cases: Array<[PhoneState, boolean, ReturnType<typeof reportMeaning>]> = [
    ['Pending', false, { kind: 'holds', downstream: 'accepted' }],
    ['Processed', false, { kind: 'holds', downstream: 'accepted' }],
    ['Sent', true, { kind: 'holds', downstream: 'sent' }],
    ['Delivered', true, { kind: 'holds', downstream: 'delivered' }],
    ['Failed', false, { kind: 'not_sent' }],
    ['Failed', true, { kind: 'holds', downstream: 'failed' }],
    ['Cancelled', false, { kind: 'not_sent' }],
    ['Cancelling', false, { kind: 'nothing' }],
  ];
  it.each(cases)('%s (sent: %s)', (state, sent, meaning) => expect(reportMeaning(state, sent)).toEqual(meaning));
});

describe('gatewayMessageId', () => {
  it('is stable per (key, offer), at most 36 characters, and carries no part of the key', () => {
    const key = 'hk_4QyF0cQv3u0y1rYlq0hxq8f3b5s6kE4h1mWmVw8Xn2A';
    expect(gatewayMessageId(key, 1)).toBe(gatewayMessageId(key, 1));
    expect(gatewayMessageId(key, 2)).not.toBe(gatewayMessageId(key, 1));
    expect(gatewayMessageId(key, 9_999_999)).toHaveLength(36);
    expect(gatewayMessageId(key, 1)).toMatch(/^[0-9a-f]{28}-1$/);
    expect(gatewayMessageId(key, 1)).not.toContain(key.slice(3, 10));
    expect(() => gatewayMessageId(key, 0)).toThrow(RangeError);
    expect(() => gatewayMessageId(key, 10_000_000)).toThrow(RangeError);
  });
});
