/** SMS segment counting (3GPP TS 23.038): GSM-7 160/153, UCS-2 70/67, extension characters cost two, nothing split. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatOtpSms, otpSmsFormatError, smsSegments } from '../../src/domain/index.js';

describe('smsSegments', () => {
  it.each([
    ['', 'GSM-7', 1, 0],
    ['a'.repeat(160), 'GSM-7', 1, 160],
    ['a'.repeat(161), 'GSM-7', 2, 161],
    ['a'.repeat(306), 'GSM-7', 2, 306],
    ['a'.repeat(307), 'GSM-7', 3, 307],
    ['€'.repeat(80), 'GSM-7', 1, 160],
    ['€'.repeat(81), 'GSM-7', 2, 162],
    // 152 septets then a two-septet character: it may not straddle the segment boundary.
    ['a'.repeat(152) + '€' + 'a'.repeat(10), 'GSM-7', 2, 164],
    ['a'.repeat(152) + '€' + 'a'.repeat(152), 'GSM-7', 3, 306],
    ['Your code is 123456 — thanks', 'UCS-2', 1, 28],
    ['ж'.repeat(70), 'UCS-2', 1, 70],
    ['ж'.repeat(71), 'UCS-2', 2, 71],
    ['ж'.repeat(134), 'UCS-2', 2, 134],
    ['ж'.repeat(135), 'UCS-2', 3, 135],
    // 66 units then an emoji (a surrogate pair): it goes whole into the next segment.
    ['ж'.repeat(66) + '😀' + 'ж'.repeat(10), 'UCS-2', 2, 78],
    ['Café ÄÖÜ àèìòù ¿¡ £¥§', 'GSM-7', 1, 21],
  ])('%j → %s, %i segment(s), %i units', (text, encoding, segments, units) => {
    expect(smsSegments(text)).toEqual({ encoding, segments, units });
  });

  it('never undercounts: every segment holds at most its capacity', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '€', 'ж', '😀', ' ', '\n'), maxLength: 600 }), (text) => {
        const r = smsSegments(text);
        const capacity = r.encoding === 'GSM-7' ? (r.segments === 1 ? 160 : 153) : r.segments === 1 ? 70 : 67;
        expect(r.units).toBeLessThanOrEqual(r.segments * capacity);
        if (r.segments > 1) expect(r.units).toBeGreaterThan(r.encoding === 'GSM-7' ? 160 : 70);
      }),
    );
  });
});

describe('formatOtpSms', () => {
  it('appends the WebOTP line last, and the SMS Retriever hash above it', () => {
    expect(formatOtpSms('Your code is 123456.', '123456', { webotpDomain: 'example.com' })).toBe('Your code is 123456.\n\n@example.com #123456');
    expect(formatOtpSms('Your code is 123456.\n', '123456', { webotpDomain: 'example.com', appHash: 'FA+9qCX9VSu' })).toBe(
      'Your code is 123456.\n\nFA+9qCX9VSu\n@example.com #123456',
    );
    expect(formatOtpSms('Your code is 123456.', '123456', { appHash: 'FA+9qCX9VSu' })).toBe('Your code is 123456.\n\nFA+9qCX9VSu');
    expect(formatOtpSms('Your code is 123456.', '123456', {})).toBe('Your code is 123456.');
  });

  it.each([
    [{ webotpDomain: 'https://example.com' }, '123456', 'webotp_domain must be a domain name such as example.com'],
    [{ appHash: 'short' }, '123456', 'app_hash must be the 11-character SMS Retriever hash'],
    [{}, '12', 'code must be 4-10 letters or digits'],
    [{}, '12 34', 'code must be 4-10 letters or digits'],
  ])('refuses %j with code %j', (format, code, message) => {
    expect(otpSmsFormatError(format, code)).toBe(message);
  });
});
