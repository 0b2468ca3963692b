/** Mailboxes as producers write them; anything that could break a header is refused. */
import { describe, expect, it } from 'vitest';
import { mailboxDomain, parseMailbox } from '../../src/domain/index.js';

describe('parseMailbox', () => {
  it.each([
    ['ada@example.com', null, 'ada@example.com'],
    ['  ada@mail.example.co.uk ', null, 'ada@mail.example.co.uk'],
    ['Ada Lovelace <ada@example.com>', 'Ada Lovelace', 'ada@example.com'],
    ['"Lovelace, Ada" <ada@example.com>', 'Lovelace, Ada', 'ada@example.com'],
    ['"Ada \\"The Countess\\"" <ada@example.com>', 'Ada "The Countess"', 'ada@example.com'],
    ['<ada@example.com>', null, 'ada@example.com'],
    ['Herald Codes<codes+otp@example.com>', 'Herald Codes', 'codes+otp@example.com'],
  ])('%s → name %s, address %s', (raw, name, address) => {
    expect(parseMailbox(raw)).toEqual({ name, address });
  });

  it.each([
    'ada',
    'ada@localhost',
    'Ada ada@example.com',
    'Ada <ada@example.com',
    'Ada <ada@example.com>, Bob <bob@example.com>',
    'ada@example.com\r\nBcc: eve@example.com',
    'Ada\n <ada@example.com>',
    'Ada <ada@exa mple.com>',
    'Ada <<ada@example.com>>',
    '"unterminated <ada@example.com>',
    `${'a'.repeat(320)}@example.com`,
  ])('refuses %j', (raw) => {
    expect(parseMailbox(raw)).toBeNull();
  });

  it('gives the lower-cased domain', () => {
    expect(mailboxDomain(parseMailbox('Ada <ada@Mail.Example.COM>')!)).toBe('mail.example.com');
  });
});
