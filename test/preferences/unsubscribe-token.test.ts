/**
 * Unsubscribe tokens: every scope round-trips under its key; any one-character change, any
 * other key, and anything that is not a token is refused.
 */
import fc from 'fast-check';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHANNELS, OPTIONAL_PURPOSES } from '../../src/domain/index.js';
import { MAX_TOKEN_LENGTH, signUnsubscribeToken, verifyUnsubscribeToken, type UnsubscribeScope } from '../../src/preferences/unsubscribe-token.js';

const KEY = randomBytes(32);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const scopeArb: fc.Arbitrary<UnsubscribeScope> = fc.record({
  tenantId: fc.string({ minLength: 1, maxLength: 40 }),
  // Recipient ids are up to 200 characters of anything, non-ASCII included.
  recipientId: fc.string({ minLength: 1, maxLength: 200, unit: 'binary' }),
  channel: fc.constantFrom(...CHANNELS),
  purpose: fc.option(fc.constantFrom(...OPTIONAL_PURPOSES), { nil: null }),
});

describe('unsubscribe tokens', () => {
  it('round-trip every scope, stay URL-safe and within the length bound', () => {
    fc.assert(
      fc.property(scopeArb, (scope) => {
        const token = signUnsubscribeToken(KEY, scope);
        expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
        expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
        expect(verifyUnsubscribeToken(KEY, token)).toEqual(scope);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any single-character change, and any other key', () => {
    fc.assert(
      fc.property(scopeArb, fc.nat(), fc.constantFrom(...ALPHABET), (scope, at, ch) => {
        const token = signUnsubscribeToken(KEY, scope);
        const i = at % token.length;
        if (token[i] === ch || token[i] === '.') return;
        expect(verifyUnsubscribeToken(KEY, token.slice(0, i) + ch + token.slice(i + 1))).toBeNull();
        expect(verifyUnsubscribeToken(randomBytes(32), token)).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what is not a token', () => {
    const good = signUnsubscribeToken(KEY, { tenantId: 't', recipientId: 'r', channel: 'email', purpose: 'marketing' });
    for (const bad of ['', '.', good.split('.')[0]!, `${good}.`, `.${good}`, `${good}=`, good.replace('.', '..'), 'x'.repeat(MAX_TOKEN_LENGTH + 1)]) {
      expect(verifyUnsubscribeToken(KEY, bad), bad.slice(0, 40)).toBeNull();
    }
    // Correctly signed (the format's own MAC), but not a scope Herald issues: checked after the MAC.
    const signed = (fields: unknown) => {
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `${payload}.${createHmac('sha256', KEY).update('herald/unsubscribe/v1:').update(payload).digest('base64url')}`;
    };
    expect(verifyUnsubscribeToken(KEY, signed(['u1', 't', 'r', 'email', 'marketing']))).not.toBeNull();
    for (const fields of [
      ['u1', 't', 'r', 'fax', '*'],
      ['u1', 't', 'r', 'email', 'otp'],
      ['u2', 't', 'r', 'email', '*'],
      ['u1', 't', '', 'email', '*'],
      ['u1', 't', 'r', 'email'],
      { t: 't' },
    ]) {
      expect(verifyUnsubscribeToken(KEY, signed(fields)), JSON.stringify(fields)).toBeNull();
    }
  });
});
