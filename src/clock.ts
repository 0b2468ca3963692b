/**
 * Time as a dependency. Services take a Clock; tests pass a ManualClock and advance it, so no
 * test waits on the wall clock and src/domain never reads one.
 */

export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.t += ms;
  }
  set(t: number): void {
    this.t = t;
  }
}
