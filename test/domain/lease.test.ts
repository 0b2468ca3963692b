/** How much of a lease a call may use: the margin, the call's deadline, and the shortest lease that covers a call. */
import { describe, expect, it } from 'vitest';
import { callDeadline, callWindowShort, leaseCoversCall, leaseMarginMs, shortestLeaseFor } from '../../src/domain/index.js';

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

describe('a call window short enough to renew the lease first', () => {
  it("is less than half of a fresh lease's window left", () => {
    // Defaults: 17 s of window after the claim, so the lease is renewed once 8.5 s have gone.
    const claimedAt = 100_000;
    const leaseUntil = claimedAt + 30_000;
    expect(callWindowShort(leaseUntil, 30_000, 10_000, claimedAt)).toBe(false);
    expect(callWindowShort(leaseUntil, 30_000, 10_000, claimedAt + 8_500)).toBe(false);
    expect(callWindowShort(leaseUntil, 30_000, 10_000, claimedAt + 8_501)).toBe(true);
    // The chaos run's tight lease (3 s, timeout 1.5 s): 500 ms of window, renewed after 250 ms.
    expect(callWindowShort(claimedAt + 3_000, 3_000, 1_500, claimedAt + 250)).toBe(false);
    expect(callWindowShort(claimedAt + 3_000, 3_000, 1_500, claimedAt + 251)).toBe(true);
    // Past the deadline, it is short too.
    expect(callWindowShort(leaseUntil, 30_000, 10_000, claimedAt + 29_000)).toBe(true);
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
