/**
 * How much of a lease a provider call may use. A worker calls only while the lease it holds
 * covers the whole call, its timeout and a margin included (`now + timeout + margin < lease
 * end`): a worker frozen between its claim and its call (GC pause, blocked query, SIGSTOP, a
 * suspended VM) may wake after the rescuer declared the delivery `unknown` and another worker
 * sent it again under the same key, and the fencing token cannot stop that second send
 * because it guards Herald's rows, not the provider. Configuration refuses a lease that could
 * never cover one call.
 */

/**
 * The margin's floor. What it covers once the check has passed: the skew between the clock
 * that stamped `lease_until` (this worker's) and the one the rescuer compares it with (another
 * process's, perhaps another machine's; NTP keeps hosts within ~10-100 ms, so 1 s is ten times
 * a poorly synced one), and the event-loop delay between a call's timeout timer being due and
 * the call really being over (a GC pause or a busy batch of 64 calls: hundreds of ms).
 */
const MIN_LEASE_MARGIN_MS = 1_000;

/**
 * The part of a lease that a call must leave free: max(1 s, 10 % of the lease). The share grows
 * with the lease because a longer lease is what an operator sets for a slower environment,
 * whose stalls and skew are larger too. Default lease 30 s: 3 s, so with the default 10 s
 * timeout a call may still start up to 17 s after its claim, where a healthy worker starts it
 * within milliseconds (one send-time query): only a real freeze trips the check.
 */
export function leaseMarginMs(leaseMs: number): number {
  return Math.max(MIN_LEASE_MARGIN_MS, Math.floor(leaseMs / 10));
}

/**
 * The moment (on the clock that set `leaseUntil`) from which a call of `timeoutMs` may no
 * longer start, nor write its request: from then on it could outlast the lease (of `leaseMs`,
 * which sets the margin). A call is allowed strictly before it.
 */
export function callDeadline(leaseUntil: number, leaseMs: number, timeoutMs: number): number {
  return leaseUntil - timeoutMs - leaseMarginMs(leaseMs);
}

/**
 * True when a call of `timeoutMs` starting at `now` has less than half of a fresh lease's call
 * window left under the lease it holds (`leaseUntil`): the worker renews the lease before calling
 * rather than give up the attempt. A healthy worker calls within milliseconds of its claim and
 * never needs it (default lease 30 s, timeout 10 s: 17 s of window, renewed after 8.5 s); a busy
 * machine with a tight lease (3 s, timeout 1.5 s: 500 ms of window) spends that half on the
 * claim's round trip and the send-time check alone. A renewal answered after the lease ended
 * does not count (the rescuer may already have read it as expired), so this never revives a
 * lease that lapsed: it keeps a live one from lapsing before its call.
 */
export function callWindowShort(leaseUntil: number, leaseMs: number, timeoutMs: number, now: number): boolean {
  return callDeadline(leaseUntil, leaseMs, timeoutMs) - now < callDeadline(leaseMs, leaseMs, timeoutMs) / 2;
}

/** True when a fresh lease of `leaseMs` leaves room for a call of `timeoutMs` (else nothing could ever be sent). */
export function leaseCoversCall(leaseMs: number, timeoutMs: number): boolean {
  return callDeadline(leaseMs, leaseMs, timeoutMs) > 0;
}

/** The shortest lease that covers a call of `timeoutMs` (for configuration errors). */
export function shortestLeaseFor(timeoutMs: number): number {
  // The margin grows by 1 ms per 10 ms of lease, so 10/9 of the timeout is never past the
  // answer, and a few steps reach it.
  let leaseMs = Math.max(timeoutMs + MIN_LEASE_MARGIN_MS + 1, Math.floor((10 * timeoutMs) / 9));
  while (!leaseCoversCall(leaseMs, timeoutMs)) leaseMs++;
  return leaseMs;
}
