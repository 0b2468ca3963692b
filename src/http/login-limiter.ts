/**
 * Failed sign-ins, counted per client address and per username in this process, so a guesser
 * is slowed down without a write per attempt. Per process by decision (docs/dashboard.md): an
 * API behind a load balancer with k processes allows k times the budget, which still leaves
 * brute force of a scrypt-hashed password hopeless; a shared counter would cost a store write
 * on every failed attempt, which is what an attacker would then flood.
 */
import type { Clock } from '../clock.js';

/** 15 minutes, the window OWASP's authentication cheat sheet uses as its example. */
export const LOGIN_WINDOW_MS = 15 * 60_000;
/** Failures allowed per address (a shared NAT has several people) and per username in a window. */
export const LOGIN_LIMITS = { address: 10, username: 5 } as const;
/** Entries kept at most; beyond it the oldest go first (a flood of addresses cannot grow memory without bound). */
const MAX_ENTRIES = 50_000;

/** Counts failed sign-ins; `retryAfterMs` says whether (and how long) a new attempt must wait. */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  /** 0 when an attempt from this address for this username may go ahead, else how long to wait. */
  retryAfterMs(address: string, username: string | null): number {
    const now = this.clock.now();
    const waits = [this.wait(`a:${address}`, LOGIN_LIMITS.address, now)];
    if (username !== null) waits.push(this.wait(`u:${username}`, LOGIN_LIMITS.username, now));
    return Math.max(...waits);
  }

  /** Records one failed attempt. */
  fail(address: string, username: string | null): void {
    const now = this.clock.now();
    this.push(`a:${address}`, now);
    if (username !== null) this.push(`u:${username}`, now);
  }

  /** A successful sign-in clears the username's failures (not the address's: one right password must not reset a guesser). */
  succeed(username: string | null): void {
    if (username !== null) this.failures.delete(`u:${username}`);
  }

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => t > now - LOGIN_WINDOW_MS);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }

  private wait(key: string, limit: number, now: number): number {
    const list = this.recent(key, now);
    return list.length < limit ? 0 : list[list.length - limit]! + LOGIN_WINDOW_MS - now;
  }

  private push(key: string, now: number): void {
    const list = this.recent(key, now);
    list.push(now);
    this.failures.delete(key);
    this.failures.set(key, list);
    if (this.failures.size > MAX_ENTRIES) this.failures.delete(this.failures.keys().next().value!);
  }
}
