/**
 * X-Twilio-Signature, Herald's own implementation (src/providers/twilio/signature.ts), held to
 * Twilio's published examples and to the official `twilio` package's getExpectedTwilioSignature
 * and validateRequest on generated URLs and parameters.
 */
import fc from 'fast-check';
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { candidateUrls, parseFormParams, twilioSignature, verifyTwilioSignature, type TwilioParams } from '../../../src/providers/twilio/signature.js';

const params = (record: Record<string, string | string[]>): TwilioParams => new Map(Object.entries(record).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));

// Twilio's webhook-security example (docs and every SDK's tests; webhook-signatures.md).
const DOC_TOKEN = '12345';
const DOC_URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const DOC_PARAMS = { CallSid: 'CA1234567890ABCDE', Digits: '1234', From: '+14158675309', To: '+18005551212', Caller: '+14158675309' };

describe("Twilio's published signature examples", () => {
  it('the webhook-security example: RSOYDt4T1cUTdK1PDd93/VVr8B8=', () => {
    expect(twilioSignature(DOC_TOKEN, DOC_URL, params(DOC_PARAMS))).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
    expect(verifyTwilioSignature([DOC_TOKEN], 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', DOC_URL, params(DOC_PARAMS))).toBe(true);
  });

  it('a repeated parameter: one name+value per value, values sorted', () => {
    const repeated = params({ Sid: 'CA123', SidAccount: 'AC123', Digits: ['5678', '1234'] });
    expect(twilioSignature(DOC_TOKEN, DOC_URL, repeated)).toBe('IK+Dwps556ElfBT0I3Rgjkr1wJU=');
  });

  it('ports: the default port may or may not have been signed; a non-default one may have been dropped', () => {
    expect(verifyTwilioSignature([DOC_TOKEN], 'kvajT1Ptam85bY51eRf/AJRuM3w=', DOC_URL, params(DOC_PARAMS))).toBe(true);
    expect(verifyTwilioSignature([DOC_TOKEN], '0ZXoZLH/DfblKGATFgpif+LLRf4=', 'http://mycompany.com/myapp.php?foo=1&bar=2', params(DOC_PARAMS))).toBe(true);
    expect(verifyTwilioSignature([DOC_TOKEN], 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', 'https://mycompany.com:1234/myapp.php?foo=1&bar=2', params(DOC_PARAMS))).toBe(
      true,
    );
    expect(verifyTwilioSignature([DOC_TOKEN], 'Zmvh+3yNM1Phv2jhDCwEM3q5ebU=', 'http://mycompany.com:1234/myapp.php?foo=1&bar=2', params(DOC_PARAMS))).toBe(
      true,
    );
  });

  it('a real SMS request Twilio signed (twilio-ruby spec/util/request_validator_spec.rb)', () => {
    const sms = {
      ToState: 'CA',
      FromState: 'CA',
      AccountSid: 'ACba8bc05eacf94afdae398e642c9cc32d',
      SmsMessageSid: 'SM2003cbd5e6a3701999aa3e5f20ff2787',
      Body: 'Orly',
      From: '+14159354345',
      FromCity: 'SAN FRANCISCO',
      SmsStatus: 'received',
      FromZip: '94107',
      FromCountry: 'US',
      To: '+14158141819',
      ToCity: 'SAN FRANCISCO',
      ToZip: '94105',
      ToCountry: 'US',
      ApiVersion: '2010-04-01',
      SmsSid: 'SM2003cbd5e6a3701999aa3e5f20ff2787',
    };
    // As it arrived: the form body Twilio posted, parsed the way the verifier parses it.
    const body = parseFormParams(Buffer.from(new URLSearchParams(sms).toString()));
    expect(
      verifyTwilioSignature(['2bd9e9638872de601313dc77410d3b23'], 'mxeiv65lEe0b8L6LdVw2jgJi8yw=', 'http://twiliotests.heroku.com/validate/sms', body),
    ).toBe(true);
  });

  it('refuses the example with a wrong token, a changed parameter, a changed URL or a truncated signature', () => {
    expect(verifyTwilioSignature(['12346'], 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', DOC_URL, params(DOC_PARAMS))).toBe(false);
    expect(verifyTwilioSignature([DOC_TOKEN], 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', DOC_URL, params({ ...DOC_PARAMS, Digits: '1235' }))).toBe(false);
    expect(verifyTwilioSignature([DOC_TOKEN], 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', DOC_URL.replace('foo=1', 'foo=2'), params(DOC_PARAMS))).toBe(false);
    expect(verifyTwilioSignature([DOC_TOKEN], 'RSOYDt4T1cUTdK1PDd93/VVr8B8', DOC_URL, params(DOC_PARAMS))).toBe(false);
    expect(verifyTwilioSignature([DOC_TOKEN], '', DOC_URL, params(DOC_PARAMS))).toBe(false);
  });

  it('candidate URLs: without a port and with the default one', () => {
    expect(candidateUrls('https://h.test/a?b=1')).toEqual(['https://h.test/a?b=1', 'https://h.test:443/a?b=1']);
    expect(candidateUrls('http://h.test:8080/a')).toEqual(['http://h.test/a', 'http://h.test:8080/a']);
    expect(candidateUrls('http://[::1]:8080/a')).toEqual(['http://[::1]/a', 'http://[::1]:8080/a']);
  });
});

// Parameter names and values as status callbacks have them, plus the characters that trip encoders.
const text = fc.string({ unit: fc.constantFrom(...'aZ09 +-_.~%&=?/:#éß€😀\'"'.split('')), maxLength: 12 });
const name = fc.string({ unit: fc.constantFrom(...'AZaz09_'.split('')), minLength: 1, maxLength: 10 });
const record = fc.dictionary(name, fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 3 })), { maxKeys: 8 });
const url = fc
  .tuple(
    fc.constantFrom('https', 'http'),
    fc.constantFrom('herald.example.com', 'h.test:8443', '127.0.0.1:8080', 'h.test:443'),
    fc.webPath(),
    fc.option(fc.webQueryParameters(), { nil: undefined }),
  )
  .map(([scheme, host, path, query]) => `${scheme}://${host}${path === '' ? '/' : path}${query === undefined ? '' : `?${query}`}`);
const token = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: 32, maxLength: 32 });

describe('against the official twilio package', () => {
  it('computes the same signature as getExpectedTwilioSignature', () => {
    fc.assert(
      fc.property(token, url, record, (t, u, r) => {
        expect(twilioSignature(t, u, params(r))).toBe(twilio.getExpectedTwilioSignature(t, u, r));
      }),
      { numRuns: 500 },
    );
  });

  it('accepts exactly what validateRequest accepts, for genuine and forged signatures', () => {
    fc.assert(
      fc.property(token, token, url, record, fc.boolean(), (t, other, u, r, forged) => {
        const signature = twilio.getExpectedTwilioSignature(forged ? other : t, u, r);
        expect(verifyTwilioSignature([t], signature, u, params(r))).toBe(twilio.validateRequest(t, signature, u, r));
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips a form body: what the package signs over parameters verifies over the posted bytes', () => {
    fc.assert(
      fc.property(token, url, fc.dictionary(name, text, { maxKeys: 8 }), (t, u, r) => {
        const body = Buffer.from(new URLSearchParams(r).toString());
        expect(verifyTwilioSignature([t], twilio.getExpectedTwilioSignature(t, u, r), u, parseFormParams(body))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
