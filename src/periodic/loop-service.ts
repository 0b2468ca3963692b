/**
 * The base of a periodic service whose whole loop is one PeriodicRunner around its `runOnce()`:
 * it owns the runner and the start/poke/stop that every such service used to write again
 * (sweeper, reconciler, relays, appliers, campaign runner, ...). A subclass names its pass and
 * interval in `super(...)` and writes only `runOnce()`; one that must do more on stop overrides
 * `stop()` and calls `super.stop()` first.
 */
import type { Logger } from 'pino';
import { PeriodicRunner } from './periodic-runner.js';
import type { PeriodicService } from './periodic-service.js';

export interface LoopOptions {
  intervalMs: number;
  logger: Logger;
  /** Names the pass in the log line of a failed one ("sweep failed; will retry next interval"). */
  what: string;
}

export abstract class LoopService implements PeriodicService {
  private readonly loop: PeriodicRunner;

  protected constructor(loop: LoopOptions) {
    this.loop = new PeriodicRunner(() => this.runOnce(), loop);
  }

  /** One pass at the clock's now; the loop runs it every interval, and tests call it directly. */
  abstract runOnce(): Promise<unknown>;

  /** Starts the loop; the first pass runs after one interval. */
  start(): void {
    this.loop.start();
  }

  /** Asks for a pass now (PeriodicRunner.poke). */
  poke(): void {
    this.loop.poke();
  }

  /** Stops the loop and waits for a pass in progress. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
