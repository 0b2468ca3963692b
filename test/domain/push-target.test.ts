/** Push destinations: a bare FCM token, or a registered subscription's JSON; round trips are exact. */
import { describe, expect, it } from 'vitest';
import { encodePushTarget, parsePushTarget, pushTargetError, type PushTarget } from '../../src/domain/index.js';

const targets: PushTarget[] = [
  { type: 'fcm', token: 'fcm-token-1:APA91b' },
  { type: 'apns', token: 'a'.repeat(64), environment: 'sandbox' },
  {
    type: 'webpush',
    endpoint: 'https://push.example.test/sub/1',
    keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' },
  },
];

describe('push targets', () => {
  it.each(targets)('$type round-trips through its destination string', (t) => {
    expect(parsePushTarget(encodePushTarget(t))).toEqual(t);
  });

  it('reads a bare token as FCM (recipient.push_token), and refuses what is neither', () => {
    expect(parsePushTarget('abc:def')).toEqual({ type: 'fcm', token: 'abc:def' });
    expect(parsePushTarget('')).toBeNull();
    expect(parsePushTarget('{not json')).toBeNull();
    expect(parsePushTarget(JSON.stringify({ type: 'apns', token: 'xyz', environment: 'production' }))).toBeNull();
  });

  it.each([
    [{ type: 'webpush', endpoint: 'http://push.example.test/1', keys: { p256dh: 'a', auth: 'b' } }, 'endpoint must be an https URL'],
    [{ type: 'webpush', endpoint: 'https://push.example.test/1', keys: { p256dh: 'a+b', auth: 'b' } }, 'keys.p256dh must be base64url'],
    [{ type: 'apns', token: 'a'.repeat(64), environment: 'dev' }, 'environment must be production or sandbox'],
    [{ type: 'hms', token: 'x' }, 'type must be fcm, apns or webpush'],
  ])('names what is wrong with %j', (v, message) => {
    expect(pushTargetError(v)).toBe(message);
  });
});
