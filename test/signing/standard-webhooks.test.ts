/**
 * Standard Webhooks signing and verification against the spec's vector and the cases of its
 * reference JavaScript suite (github.com/standard-webhooks/standard-webhooks, libraries/javascript), cross-checked with the
 * `standardwebhooks` package.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, isWebhookSecret, signWebhook, verifyWebhook } from '../../src/signing/standard-webhooks.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TS = 1614265330;
const BODY = '{"test": 2432232314}';
const EXPECTED = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
const NOW = TS * 1000;

const headers = (sig: string, ts = String(TS), id = ID) => ({ 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig });

describe('Standard Webhooks', () => {
  it('signs the spec vector', () => {
    expect(signWebhook([SECRET], ID, NOW, BODY)['webhook-signature']).toBe(EXPECTED);
    // Without the whsec_ prefix the key is the same.
    expect(signWebhook([SECRET.slice(6)], ID, NOW, BODY)['webhook-signature']).toBe(EXPECTED);
  });

  it('agrees with the standardwebhooks package', () => {
    const secret = generateWebhookSecret();
    const ts = new Date(Math.floor(Date.now() / 1000) * 1000);
    const theirs = new Webhook(secret).sign('msg_1', ts, '{"a":1}');
    expect(signWebhook([secret], 'msg_1', ts.getTime(), '{"a":1}')['webhook-signature']).toBe(theirs);
    const ours = signWebhook([secret], 'msg_2', Date.now(), Buffer.from('{"b":2}'));
    expect(() => new Webhook(secret).verify('{"b":2}', ours)).not.toThrow();
  });

  it('verifies the vector and refuses every malformed or forged variant', () => {
    expect(verifyWebhook([SECRET], headers(EXPECTED), BODY, NOW).ok).toBe(true);
    expect(verifyWebhook([SECRET], headers(EXPECTED), Buffer.from(BODY), NOW).ok).toBe(true);
    const bad: Array<[Record<string, string | undefined>, string]> = [
      [{ ...headers(EXPECTED), 'webhook-id': undefined }, 'missing_headers'],
      [{ ...headers(EXPECTED), 'webhook-timestamp': undefined }, 'missing_headers'],
      [{ ...headers(EXPECTED), 'webhook-signature': undefined }, 'missing_headers'],
      [headers(EXPECTED, 'hello'), 'bad_timestamp'],
      [headers('v1,dawfeoifkpqwoekfpqoekf'), 'bad_signature'],
      [headers(EXPECTED.slice(0, 8)), 'bad_signature'],
      [headers('v1,'), 'bad_signature'],
      [headers('v2,' + EXPECTED.slice(3)), 'bad_signature'],
      [headers(EXPECTED, String(TS), 'msg_other'), 'bad_signature'],
    ];
    for (const [h, reason] of bad) expect(verifyWebhook([SECRET], h, BODY, NOW)).toEqual({ ok: false, reason });
    // The body is covered: one changed byte fails.
    expect(verifyWebhook([SECRET], headers(EXPECTED), '{"test": 2432232315}', NOW).ok).toBe(false);
    // Another secret fails.
    expect(verifyWebhook([generateWebhookSecret()], headers(EXPECTED), BODY, NOW).ok).toBe(false);
  });

  it('accepts one valid entry among several, and either secret during rotation', () => {
    const noise = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
    const mixed = `${noise} v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= ${EXPECTED} ${noise}`;
    expect(verifyWebhook([SECRET], headers(mixed), BODY, NOW).ok).toBe(true);
    const next = generateWebhookSecret();
    const both = signWebhook([next, SECRET], ID, NOW, BODY);
    expect(both['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyWebhook([SECRET], both, BODY, NOW).ok).toBe(true);
    expect(verifyWebhook([next], both, BODY, NOW).ok).toBe(true);
  });

  it('holds the 5-minute tolerance exactly, both ways', () => {
    const at = (deltaS: number) => verifyWebhook([SECRET], headers(EXPECTED), BODY, NOW + deltaS * 1000);
    expect(at(300).ok).toBe(true);
    expect(at(-300).ok).toBe(true);
    expect(at(301)).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(at(-301)).toEqual({ ok: false, reason: 'stale_timestamp' });
    // Milliseconds instead of seconds is far in the future: refused.
    expect(verifyWebhook([SECRET], headers(EXPECTED, String(NOW)), BODY, NOW).ok).toBe(false);
  });

  it('recognises well-formed secrets', () => {
    expect(isWebhookSecret(generateWebhookSecret())).toBe(true);
    expect(isWebhookSecret(SECRET)).toBe(true);
    expect(isWebhookSecret('whsec_')).toBe(false);
    expect(isWebhookSecret('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBe(false);
    expect(() => signWebhook([''], ID, NOW, BODY)).toThrow();
  });
});
