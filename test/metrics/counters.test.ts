/** DeliveryCounters: one counter per name, channel and purpose; read back by get, total and snapshot. */
import { describe, expect, it } from 'vitest';
import { COUNTER_NAMES, DeliveryCounters } from '../../src/metrics/counters.js';

const smsOtp = { channel: 'sms', purpose: 'otp' } as const;
const emailOtp = { channel: 'email', purpose: 'otp' } as const;
const smsAlert = { channel: 'sms', purpose: 'alert' } as const;

describe('DeliveryCounters', () => {
  it('starts empty: every counter reads 0 and the snapshot is empty', () => {
    const c = new DeliveryCounters();
    for (const name of COUNTER_NAMES) {
      expect(c.get(name, smsOtp)).toBe(0);
      expect(c.total(name)).toBe(0);
    }
    expect(c.snapshot()).toEqual([]);
  });

  it('counts per name, channel and purpose separately', () => {
    const c = new DeliveryCounters();
    c.inc('api_attempts', smsOtp);
    c.inc('api_attempts', smsOtp);
    c.inc('api_attempts', emailOtp);
    c.inc('api_attempts', smsAlert, 3);
    c.inc('accepted_submissions', smsOtp);
    expect(c.get('api_attempts', smsOtp)).toBe(2);
    expect(c.get('api_attempts', emailOtp)).toBe(1);
    expect(c.get('api_attempts', smsAlert)).toBe(3);
    expect(c.get('accepted_submissions', smsOtp)).toBe(1);
    expect(c.get('accepted_submissions', emailOtp)).toBe(0);
    expect(c.total('api_attempts')).toBe(6);
    expect(c.total('accepted_submissions')).toBe(1);
  });

  it('ignores increments of zero or less', () => {
    const c = new DeliveryCounters();
    c.inc('replays', smsOtp, 0);
    c.inc('replays', smsOtp, -2);
    expect(c.get('replays', smsOtp)).toBe(0);
    expect(c.snapshot()).toEqual([]);
  });

  it('takes only channel and purpose from a larger object as labels', () => {
    const c = new DeliveryCounters();
    const delivery = { deliveryId: 'dlv_1', channel: 'push', purpose: 'marketing', state: 'ready' } as const;
    c.inc('expired_challenges', delivery);
    expect(c.snapshot()).toEqual([{ name: 'expired_challenges', channel: 'push', purpose: 'marketing', value: 1 }]);
  });

  it('snapshots sorted by name, channel, purpose, as copies the caller cannot change', () => {
    const c = new DeliveryCounters();
    c.inc('user_resends', smsOtp);
    c.inc('api_attempts', smsOtp);
    c.inc('api_attempts', smsAlert);
    c.inc('api_attempts', emailOtp);
    const snap = c.snapshot();
    expect(snap.map((s) => `${s.name}/${s.channel}/${s.purpose}`)).toEqual([
      'api_attempts/email/otp',
      'api_attempts/sms/alert',
      'api_attempts/sms/otp',
      'user_resends/sms/otp',
    ]);
    snap[0]!.value = 99;
    expect(c.get('api_attempts', emailOtp)).toBe(1);
  });
});
