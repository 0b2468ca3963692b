import { describe, expect, it } from 'vitest';
import { arrivalAllowanceMs, DEFAULT_ARRIVAL_ALLOWANCE_MS, lastUsefulCall } from '../../src/domain/index.js';

describe('the arrival allowance', () => {
  it("is the channel's default unless the account sets one (0 included)", () => {
    expect(arrivalAllowanceMs('sms', undefined)).toBe(DEFAULT_ARRIVAL_ALLOWANCE_MS.sms);
    expect(arrivalAllowanceMs('push', undefined)).toBe(500);
    expect(arrivalAllowanceMs('email', 0)).toBe(0);
    expect(arrivalAllowanceMs('sms', 5_000)).toBe(5_000);
  });

  it('moves the last useful call before expiry by the allowance', () => {
    expect(lastUsefulCall(10_000, 1_000)).toBe(9_000);
    expect(lastUsefulCall(10_000, 0)).toBe(10_000);
  });
});
