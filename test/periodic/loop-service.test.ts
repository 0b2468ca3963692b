/**
 * LoopService, the base every periodic service with one loop extends: its start/poke/stop drive
 * the subclass's own runOnce() through a PeriodicRunner (named in the failure log line), and a
 * subclass's stop override still waits for the pass in progress. Timers are vitest's fake ones.
 */
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LoopService } from '../../src/periodic/loop-service.js';

const INTERVAL = 1_000;

class CountingService extends LoopService {
  passes = 0;
  failNext: Error | null = null;
  closed = false;

  constructor(logger: Logger) {
    super({ intervalMs: INTERVAL, logger, what: 'counting pass' });
  }

  override async runOnce(): Promise<number> {
    this.passes++;
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = null;
      throw err;
    }
    return this.passes;
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.closed = true;
  }
}

class BatchService extends LoopService {
  constructor(logger: Logger, batchSize?: number) {
    super({ logger, batchSize, what: 'batch pass', defaultBatchSize: 500 });
  }

  override async runOnce(): Promise<number> {
    return this.passBatchSize;
  }
}

describe('LoopService', () => {
  let logger: Logger & { error: ReturnType<typeof vi.fn> };
  beforeEach(() => {
    vi.useFakeTimers();
    logger = { error: vi.fn() } as unknown as Logger & { error: ReturnType<typeof vi.fn> };
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a pass's batch size is the caller's batchSize, else the service's default", async () => {
    expect(await new BatchService(logger, 7).runOnce()).toBe(7);
    expect(await new BatchService(logger).runOnce()).toBe(500);
  });

  it("start runs the subclass's runOnce every interval; poke runs one now; stop ends the loop", async () => {
    const s = new CountingService(logger);
    s.poke(); // before start: nothing
    await vi.advanceTimersByTimeAsync(INTERVAL * 2);
    expect(s.passes).toBe(0);
    s.start();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(s.passes).toBe(1);
    s.poke();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.passes).toBe(2);
    await s.stop();
    expect(s.closed).toBe(true);
    await vi.advanceTimersByTimeAsync(INTERVAL * 3);
    expect(s.passes).toBe(2);
  });

  it('a failed pass is logged with the name given to super, and the loop goes on', async () => {
    const s = new CountingService(logger);
    const err = new Error('store unavailable');
    s.failNext = err;
    s.start();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(logger.error).toHaveBeenCalledWith({ err }, 'counting pass failed; will retry next interval');
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(s.passes).toBe(2);
    await s.stop();
  });
});
