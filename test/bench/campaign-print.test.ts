import { describe, expect, it } from 'vitest';
import { describeLayout } from '../../bench/campaign/herald.js';
import type { Measured } from '../../bench/campaign/measure.js';
import { coresBusy, cpuLines, drainLines, lowerBound } from '../../bench/campaign/print.js';

/** Only the fields the drain lines read. */
const measured = (drainSeconds: number, rateDuringDrain: number) =>
  ({
    campaign: { drainSeconds, startupSeconds: 0.5, sendingSeconds: drainSeconds - 0.5, sendingRate: 1_000 },
    otp: { rateDuringDrain },
  }) as unknown as Measured;

describe('bench:campaign report lines (shared by Herald and the peer)', () => {
  it("holds each run to the issue's bound N / (R − code traffic during its drain)", () => {
    expect(lowerBound(measured(110, 20), 98_000, 1_000)).toBe(100);
    expect(drainLines(measured(110, 20), 98_000, 1_000)[1]).toBe("  issue's lower bound N / (R − OTP sent) = 98,000 / (1,000 − 20.00) = 100.00 s");
  });

  it('lists every process group of a window, other processes last', () => {
    const w = { 'herald start': 7.5, bench: 1, irq: 0.2, steal: 0, machine: 9.2, other: 0.5 };
    expect(coresBusy(w, 5)).toBe('cores busy 1.84 (herald start 1.50, bench 0.20, other 0.10)');
  });

  it('warns when other processes used more than a fifth of a core on average', () => {
    expect(cpuLines({ x: 10, machine: 12, other: 2, irq: 0, steal: 0 }, 10, 'idle')[1]).toBe('idle; during the run other processes used 0.20 cores on average');
    expect(cpuLines({ x: 10, machine: 13, other: 3, irq: 0, steal: 0 }, 10, 'idle')[1]).toMatch(/0\.30 cores on average — WARNING: a disturbed run$/);
  });

  it('names what runs Herald on each driver', () => {
    expect(describeLayout({ kind: 'split', workers: 4 })).toBe('herald api + 4 × herald worker');
    expect(describeLayout({ kind: 'start' })).toMatch(/^one herald start/);
  });
});
