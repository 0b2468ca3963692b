/** How much of a lease a call may use: the margin, the call's deadline, and the shortest lease that covers a call. */
import { describe, expect, it } from 'vitest';
import { callDeadline, leaseCoversCall, leaseMarginMs, shortestLeaseFor } from '../../src/domain/index.js';

describe('the lease margin', () => {
  it('is 10 % of the lease, never under 1 s', () => {
    expect(leaseMarginMs(30_000)).toBe(3_000);
    expect(leaseMarginMs(10_000)).toBe(1_000);
    expect(leaseMarginMs(5_000)).toBe(1_000);
    expect(leaseMarginMs(11_111)).toBe(1_111);
  });
});

describe('a call deadline', () => {
  it('leaves the timeout and the margin inside the lease', () => {
    // Defaults: a 30 s lease, a 10 s timeout: a call may start until 17 s after the claim.
    expect(callDeadline(100_000 + 30_000, 30_000, 10_000)).toBe(100_000 + 17_000);
  });

  it('a fresh lease covers a call only when timeout + margin is strictly less than the lease', () => {
    expect(leaseCoversCall(30_000, 10_000)).toBe(true);
    expect(leaseCoversCall(3_001, 2_000)).toBe(true);
    expect(leaseCoversCall(3_000, 2_000)).toBe(false);
    expect(leaseCoversCall(1_000, 0)).toBe(false);
  });
});

describe('the shortest lease for a timeout', () => {
  it.each([0, 100, 2_000, 9_000, 9_009, 9_010, 10_000, 60_000, 120_000])('for %i ms covers the call, and one ms less does not', (timeoutMs) => {
    const lease = shortestLeaseFor(timeoutMs);
    expect(leaseCoversCall(lease, timeoutMs)).toBe(true);
    expect(leaseCoversCall(lease - 1, timeoutMs)).toBe(false);
  });

  it('is 11 112 ms for the default 10 s timeout', () => {
    expect(shortestLeaseFor(10_000)).toBe(11_112);
  });
});
