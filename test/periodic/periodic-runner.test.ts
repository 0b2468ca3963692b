/**
 * PeriodicRunner, the loop under every periodic service (sweeper, reconciler, relays, the
 * alerter, ...): when passes run, what a poke does during and between passes, that a failed pass
 * is logged and retried, and that stop waits for the pass in progress and runs no other. Timers
 * are vitest's fake ones: the test moves time, it never waits for it.
 */
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PeriodicRunner } from '../../src/periodic/periodic-runner.js';

const INTERVAL = 1_000;

/** A pass the test finishes by hand, counting how many started. */
function controlledPass() {
  let started = 0;
  let finish: (() => void) | null = null;
  let fail: ((err: Error) => void) | null = null;
  const pass = () => {
    started++;
    return new Promise<void>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return {
    pass,
    started: () => started,
    finish: () => finish!(),
    fail: (err: Error) => fail!(err),
  };
}

describe('PeriodicRunner', () => {
  let logger: Logger & { error: ReturnType<typeof vi.fn> };
  beforeEach(() => {
    vi.useFakeTimers();
    logger = { error: vi.fn() } as unknown as Logger & { error: ReturnType<typeof vi.fn> };
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the first pass one interval after start, then one interval after each pass ends; a second start adds no loop', async () => {
    const pass = vi.fn(async () => {});
    const runner = new PeriodicRunner(pass, { intervalMs: INTERVAL, logger, what: 'test pass' });
    runner.start();
    runner.start();
    await vi.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(pass).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(pass).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(INTERVAL * 3);
    expect(pass).toHaveBeenCalledTimes(4);
    await runner.stop();
  });

  it('the interval counts from the end of a pass, so passes never overlap', async () => {
    const p = controlledPass();
    const runner = new PeriodicRunner(p.pass, { intervalMs: INTERVAL, logger, what: 'test pass' });
    runner.start();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(p.started()).toBe(1);
    await vi.advanceTimersByTimeAsync(INTERVAL * 5);
    expect(p.started()).toBe(1);
    p.finish();
    await vi.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(p.started()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(p.started()).toBe(2);
    p.finish();
    await runner.stop();
  });

  it('a poke between passes runs one now; pokes during a pass run exactly one more as soon as it ends', async () => {
    const p = controlledPass();
    const runner = new PeriodicRunner(p.pass, { intervalMs: INTERVAL, logger, what: 'test pass' });
    runner.start();
    runner.poke();
    await vi.advanceTimersByTimeAsync(0);
    expect(p.started()).toBe(1);
    runner.poke();
    runner.poke();
    await vi.advanceTimersByTimeAsync(0);
    expect(p.started()).toBe(1);
    p.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(p.started()).toBe(2);
    p.finish();
    // Nothing asked for more: the next pass waits a whole interval.
    await vi.advanceTimersByTimeAsync(INTERVAL - 1);
    expect(p.started()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(p.started()).toBe(3);
    p.finish();
    await runner.stop();
  });

  it('a poke before start or after stop runs nothing', async () => {
    const pass = vi.fn(async () => {});
    const runner = new PeriodicRunner(pass, { intervalMs: INTERVAL, logger, what: 'test pass' });
    runner.poke();
    await vi.advanceTimersByTimeAsync(INTERVAL * 2);
    expect(pass).toHaveBeenCalledTimes(0);
    runner.start();
    await runner.stop();
    runner.poke();
    await vi.advanceTimersByTimeAsync(INTERVAL * 2);
    expect(pass).toHaveBeenCalledTimes(0);
  });

  it('logs a failed pass once with what failed, and tries again after the interval', async () => {
    const p = controlledPass();
    const runner = new PeriodicRunner(p.pass, { intervalMs: INTERVAL, logger, what: 'test pass' });
    runner.start();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    const err = new Error('store unavailable');
    p.fail(err);
    await vi.advanceTimersByTimeAsync(0);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error).toHaveBeenCalledWith({ err }, 'test pass failed; will retry next interval');
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(p.started()).toBe(2);
    p.finish();
    await runner.stop();
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  it('stop waits for the pass in progress and schedules no other', async () => {
    const p = controlledPass();
    const runner = new PeriodicRunner(p.pass, { intervalMs: INTERVAL, logger, what: 'test pass' });
    runner.start();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    runner.poke();
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    p.finish();
    await stopping;
    expect(stopped).toBe(true);
    // The poke during the pass asked for another; stop cancelled it.
    await vi.advanceTimersByTimeAsync(INTERVAL * 3);
    expect(p.started()).toBe(1);
  });
});
