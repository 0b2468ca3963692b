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

/** What a caller gives every loop service: a logger, and optionally the interval and the batch size. */
export interface LoopSettings {
  logger: Logger;
  /** Between passes; the service's default when not given (1 s unless it names another). */
  intervalMs?: number;
  /** Rows a pass takes at once (per transaction); the service's default when not given. */
  batchSize?: number;
}

export interface LoopOptions extends LoopSettings {
  /** Names the pass in the log line of a failed one ("sweep failed; will retry next interval"). */
  what: string;
  /** The service's batch size when the caller gives none (a service without batches leaves it out). */
  defaultBatchSize?: number;
}

export abstract class LoopService implements PeriodicService {
  private readonly loop: PeriodicRunner;
  /** Rows a pass takes at once: the caller's `batchSize`, else the service's default (0 without one). */
  protected readonly passBatchSize: number;

  protected constructor(loop: LoopOptions) {
    this.loop = new PeriodicRunner(() => this.runOnce(), { intervalMs: loop.intervalMs ?? 1_000, logger: loop.logger, what: loop.what });
    this.passBatchSize = loop.batchSize ?? loop.defaultBatchSize ?? 0;
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
