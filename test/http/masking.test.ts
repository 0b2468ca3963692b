/** What an operator or viewer session sees of a destination (src/http/masking.ts). */
import { describe, expect, it } from 'vitest';
import { maskEmail, maskPhone, showDestination } from '../../src/http/masking.js';

describe('destination masking', () => {
  it.each([
    ['+447911123789', '+44•••••789'],
    ['+14155550123', '+1•••••123'],
    ['+33612345678', '+33•••••678'],
    // A three-digit calling code (Ireland) stays whole.
    ['+353861234567', '+353•••••567'],
    // Not E.164: nothing of it is shown.
    ['07911 123789', '•••••'],
  ])('phone %s → %s', (phone, masked) => expect(maskPhone(phone)).toBe(masked));

  it('keeps the first character of an address and its domain; hides the length of both', () => {
    expect(maskEmail('ada@example.com')).toBe('a•••@example.com');
    expect(maskEmail('a.very.long.name@example.co.uk')).toBe('a•••@example.co.uk');
    expect(maskEmail('not-an-address')).toBe('•••');
  });

  it('shows everything in full to a full view, no push target to a masked one', () => {
    expect(showDestination('sms', '+447911123789', 'full')).toBe('+447911123789');
    expect(showDestination('email', 'ada@example.com', 'masked')).toBe('a•••@example.com');
    expect(showDestination('push', 'fcm-token', 'masked')).toBeNull();
    expect(showDestination('push', 'fcm-token', 'full')).toBe('fcm-token');
    expect(showDestination('sms', null, 'masked')).toBeNull();
  });
});
