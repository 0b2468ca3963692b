/**
 * Tests for `deriveDeliveryKey`: stable, distinct per identity, collision-free by construction,
 * opaque; and for the key of an attempt on another account after a move (`accountIdempotencyKey`),
 * which `deliveryKeyOfReference` turns back into the delivery key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHANNELS, PURPOSES, accountIdempotencyKey, deliveryKeyOfReference, deriveDeliveryKey, type DeliveryIdentity } from '../../src/domain/index.js';

const BASE: DeliveryIdentity = {
  tenantId: 'ten_01HZX3',
  recipientId: 'alice@example.com',
  groupKey: 'login:+15551234567',
  generation: 1,
  channel: 'sms',
  purpose: 'otp',
};

const KEY_SHAPE = /^hk_[A-Za-z0-9_-]{43}$/;
// sha256 over "<utf8 bytes>:<field>;" for the six fields of BASE, computed independently with node:crypto.
const PINNED_KEY = 'hk_L5_d2TSE4TAUGZLo4rCAFuAo_aklzxI-WgZrVpDM8pE';

// Short strings over a small alphabet (so near-misses are common) or any well-formed Unicode.
const fieldArb = fc.oneof(fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'b', ':', ';', '1') }), fc.string({ maxLength: 12, unit: 'grapheme' }));
const identityArb: fc.Arbitrary<DeliveryIdentity> = fc.record({
  tenantId: fieldArb,
  recipientId: fieldArb,
  groupKey: fieldArb,
  generation: fc.nat({ max: 1_000 }),
  channel: fc.constantFrom(...CHANNELS),
  purpose: fc.constantFrom(...PURPOSES),
});

describe('deriveDeliveryKey', () => {
  it('is pinned: the same identity gives the same key across releases', () => {
    // Pinned value: changing the derivation would re-key every pending delivery, so it must be deliberate.
    expect(deriveDeliveryKey(BASE)).toBe(deriveDeliveryKey({ ...BASE }));
    expect(deriveDeliveryKey(BASE)).toBe(PINNED_KEY);
  });

  it('has the documented shape hk_<43 base64url chars>', () => {
    fc.assert(
      fc.property(identityArb, (id) => {
        expect(deriveDeliveryKey(id)).toMatch(KEY_SHAPE);
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on property order or extra fields', () => {
    const reordered: DeliveryIdentity = {
      purpose: 'otp',
      channel: 'sms',
      generation: 1,
      groupKey: 'login:+15551234567',
      recipientId: 'alice@example.com',
      tenantId: 'ten_01HZX3',
    };
    expect(deriveDeliveryKey(reordered)).toBe(deriveDeliveryKey(BASE));
    expect(deriveDeliveryKey({ ...BASE, note: 'ignored' } as DeliveryIdentity)).toBe(deriveDeliveryKey(BASE));
  });

  it('changes when any single identity field changes', () => {
    const variants: Array<[keyof DeliveryIdentity, DeliveryIdentity]> = [
      ['tenantId', { ...BASE, tenantId: 'ten_01HZX4' }],
      ['recipientId', { ...BASE, recipientId: 'bob@example.com' }],
      ['groupKey', { ...BASE, groupKey: 'login:+15557654321' }],
      ['generation', { ...BASE, generation: 2 }],
      ['channel', { ...BASE, channel: 'email' }],
      ['purpose', { ...BASE, purpose: 'transactional' }],
    ];
    const base = deriveDeliveryKey(BASE);
    for (const [field, v] of variants) expect(deriveDeliveryKey(v), field).not.toBe(base);
    // And the variants are pairwise distinct too.
    expect(new Set(variants.map(([, v]) => deriveDeliveryKey(v))).size).toBe(variants.length);
  });

  it('property: distinct identities give distinct keys', () => {
    fc.assert(
      fc.property(identityArb, identityArb, (a, b) => {
        const same =
          a.tenantId === b.tenantId &&
          a.recipientId === b.recipientId &&
          a.groupKey === b.groupKey &&
          a.generation === b.generation &&
          a.channel === b.channel &&
          a.purpose === b.purpose;
        expect(deriveDeliveryKey(a) === deriveDeliveryKey(b)).toBe(same);
      }),
      { numRuns: 1_000 },
    );
  });

  it('has no concatenation collisions between adjacent fields', () => {
    const cases: Array<[Partial<DeliveryIdentity>, Partial<DeliveryIdentity>]> = [
      [
        { tenantId: 'ab', recipientId: 'c' },
        { tenantId: 'a', recipientId: 'bc' },
      ],
      [
        { recipientId: 'ab', groupKey: 'c' },
        { recipientId: 'a', groupKey: 'bc' },
      ],
      [
        { tenantId: 'a:', recipientId: 'b' },
        { tenantId: 'a', recipientId: ':b' },
      ],
      [
        { tenantId: 'a;1:b', recipientId: '' },
        { tenantId: 'a', recipientId: 'b' },
      ],
      [
        { groupKey: 'g1', generation: 1 },
        { groupKey: 'g', generation: 11 },
      ],
      [
        { tenantId: '', recipientId: 'x' },
        { tenantId: 'x', recipientId: '' },
      ],
    ];
    for (const [a, b] of cases) {
      expect(deriveDeliveryKey({ ...BASE, ...a }), JSON.stringify([a, b])).not.toBe(deriveDeliveryKey({ ...BASE, ...b }));
    }
  });

  it('property: moving a split point between two adjacent string fields changes the key', () => {
    const fields = ['tenantId', 'recipientId', 'groupKey'] as const;
    fc.assert(
      fc.property(fc.string({ minLength: 2, maxLength: 20 }), fc.integer({ min: 0, max: 1 }), fc.nat(), fc.nat(), (joined, pair, i, j) => {
        const cut1 = i % (joined.length + 1);
        const cut2 = j % (joined.length + 1);
        fc.pre(cut1 !== cut2);
        const left = fields[pair] as 'tenantId' | 'recipientId';
        const right = fields[pair + 1] as 'recipientId' | 'groupKey';
        const a = { ...BASE, [left]: joined.slice(0, cut1), [right]: joined.slice(cut1) };
        const b = { ...BASE, [left]: joined.slice(0, cut2), [right]: joined.slice(cut2) };
        expect(deriveDeliveryKey(a)).not.toBe(deriveDeliveryKey(b));
      }),
      { numRuns: 1_000 },
    );
  });

  it('carries no raw personal data', () => {
    const pii = ['alice@example.com', '+15551234567', 'Alice Liddell', 'ten_01HZX3'];
    const key = deriveDeliveryKey({ ...BASE, recipientId: 'alice@example.com', groupKey: 'login:+15551234567:Alice Liddell' });
    for (const p of pii) expect(key).not.toContain(p);
    // Fragments too: the email's local part and the phone's digits.
    expect(key.toLowerCase()).not.toContain('alice');
    expect(key).not.toContain('5551234567');
  });

  it('hashes ill-formed UTF-16 as UTF-8 does (U+FFFD), matching what a UTF-8 store would keep', () => {
    // A lone surrogate and U+FFFD give one key. Both stores keep text as UTF-8, so after a round
    // trip they are one identity anyway; a lossless encoding here would make the key change
    // across that round trip. Intake must reject ill-formed strings instead.
    expect(deriveDeliveryKey({ ...BASE, groupKey: 'g\uD800' })).toBe(deriveDeliveryKey({ ...BASE, groupKey: 'g\uFFFD' }));
  });

  it('property: no identity string of 8+ chars appears in its key', () => {
    fc.assert(
      fc.property(identityArb, fc.string({ minLength: 8, maxLength: 40 }), (id, secret) => {
        const key = deriveDeliveryKey({ ...id, recipientId: secret, groupKey: `grp:${secret}` });
        expect(key.slice(3)).not.toContain(secret);
      }),
      { numRuns: 500 },
    );
  });
});

describe('accountIdempotencyKey', () => {
  const key = deriveDeliveryKey(BASE);

  it('keeps the delivery key on the account it was created on, and gives every other account its own', () => {
    expect(accountIdempotencyKey(key, 'twilio-main', null)).toBe(key);
    expect(accountIdempotencyKey(key, 'twilio-main', 'twilio-main')).toBe(key);
    const backup = accountIdempotencyKey(key, 'twilio-backup', 'twilio-main');
    const third = accountIdempotencyKey(key, 'telnyx', 'twilio-main');
    expect(new Set([key, backup, third]).size).toBe(3);
    expect(backup.startsWith(key)).toBe(true);
    // Letters, digits, _ and - only, within 255 characters: a Telnyx key, a Resend or SES tag as it is.
    expect(backup).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
    expect(accountIdempotencyKey(key, 'twilio-backup', 'twilio-main')).toBe(backup);
  });

  it('is undone by deliveryKeyOfReference on its own account only', () => {
    const backup = accountIdempotencyKey(key, 'twilio-backup', 'twilio-main');
    expect(deliveryKeyOfReference(backup, 'twilio-backup')).toBe(key);
    expect(deliveryKeyOfReference(key, 'twilio-main')).toBe(key);
    expect(deliveryKeyOfReference(key, 'twilio-backup')).toBe(key);
    // Another account's key is not this account's reference: left as it is (it names no delivery here).
    expect(deliveryKeyOfReference(backup, 'telnyx')).toBe(backup);
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (account, origin) => {
        fc.pre(account !== origin);
        return deliveryKeyOfReference(accountIdempotencyKey(key, account, origin), account) === key;
      }),
    );
  });
});
