/**
 * The delivery worker: `loops_per_account` claim loops per lane of each provider account, each
 * running the shared claim → call → record path (claim-sender.ts) and sleeping until work is due,
 * woken, or permits have accrued.
 */
import type { Logger } from 'pino';
import { PURPOSES } from '../domain/index.js';
import type { WorkerLane } from './worker-lanes.js';
import { ClaimSender, type BatchResult, type ClaimSenderOptions } from './claim-sender.js';
import { WakeSignal } from './wake-signal.js';

export interface WorkerOptions extends ClaimSenderOptions {
  wake?: WakeSignal;
}

export class DeliveryWorker {
  private readonly pollIntervalMs: number;
  readonly wake: WakeSignal;
  /** The claim → call → record path the loops run. */
  readonly sender: ClaimSender;
  private readonly logger: Logger;
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly opts: WorkerOptions) {
    this.pollIntervalMs = opts.settings.poll_interval_ms;
    this.wake = opts.wake ?? new WakeSignal();
    this.sender = new ClaimSender(opts);
    this.logger = opts.logger;
  }

  /**
   * Claims and processes one batch for one provider account (one lane of it, or every lane in
   * turn when none is named); resolves when its outcomes are written.
   */
  async runOnce(providerAccount: string, laneName?: string): Promise<BatchResult> {
    const lanes = this.sender.lanesOf(providerAccount);
    if (laneName === undefined) {
      const total: BatchResult = { claimed: 0, applied: 0, stale: 0 };
      for (const l of lanes) addInto(total, await this.sender.runLane(providerAccount, l));
      return total;
    }
    const lane = lanes.find((l) => l.name === laneName);
    if (!lane) throw new Error(`provider account ${providerAccount} has no lane ${laneName}`);
    return this.sender.runLane(providerAccount, lane);
  }

  /** Processes every account until none has due work (tests and benchmarks drive the worker with it). */
  async drain(): Promise<BatchResult> {
    const total: BatchResult = { claimed: 0, applied: 0, stale: 0 };
    for (;;) {
      let claimedThisRound = 0;
      for (const account of this.opts.adapters.keys()) {
        const r = await this.runOnce(account);
        addInto(total, r);
        claimedThisRound += r.claimed;
      }
      if (claimedThisRound === 0) return total;
    }
  }

  /** Starts the claim loops: `loops_per_account` per lane of each provider account. */
  start(): void {
    if (this.running) return;
    this.running = true;
    const loops = this.opts.settings.loops_per_account;
    for (const account of this.sender.accounts()) {
      const lanes = this.sender.lanesOf(account);
      // Every lane has its own loops: a full marketing backlog never sits in front of a code.
      for (const lane of lanes) for (let i = 0; i < loops; i++) this.loops.push(this.loop(account, lane));
    }
  }

  private async loop(account: string, lane: WorkerLane): Promise<void> {
    while (this.running) {
      let result: BatchResult;
      try {
        result = await this.runOnce(account, lane.name);
      } catch (err) {
        this.logger.error({ err, providerAccount: account }, 'claim loop failed; retrying after the poll interval');
        await this.wake.wait(account, this.pollIntervalMs);
        continue;
      }
      if (!this.running) break;
      if (result.claimed === lane.batchSize) continue; // more is probably waiting
      if (result.permitsAt != null) {
        // Work is waiting for permits, not permits for work: a wake-up (new work) would not help,
        // so sleep on a timer. And not just until the next single permit: until half a batch
        // has accrued at the lane's rate (no more than the burst, which is all the limiter ever
        // holds), so claims come back with batches instead of queueing on the limiter's lock one
        // permit at a time.
        const accrue = lane.limits ? Math.min(lane.batchSize / 2, lane.limits.plan.accrual.burst) : 0;
        const accrueMs = lane.limits ? (1000 * accrue) / lane.limits.plan.accrual.ratePerSecond : 0;
        const untilPermits = Math.max(result.permitsAt - this.opts.clock.now(), Math.min(250, accrueMs));
        if (untilPermits > 0) await sleep(Math.min(this.pollIntervalMs, untilPermits));
        continue;
      }
      const purposes = lane.purposes.length === PURPOSES.length ? undefined : lane.purposes;
      const next = await this.opts.store.nextDueAt(account, this.opts.clock.now(), purposes).catch((err) => {
        this.logger.warn({ err, providerAccount: account }, 'cannot read when work is next due; waiting the poll interval');
        return null;
      });
      const untilDue = next === null ? this.pollIntervalMs : next - this.opts.clock.now();
      if (untilDue > 0) await this.wake.wait(account, Math.min(this.pollIntervalMs, untilDue));
    }
  }

  /** Stops claiming, lets in-flight calls finish and their outcomes be written. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake.notifyAll();
    await Promise.allSettled(this.loops);
    this.loops = [];
  }
}

function addInto(total: BatchResult, r: BatchResult): void {
  total.claimed += r.claimed;
  total.applied += r.applied;
  total.stale += r.stale;
}

/** Real time, on purpose: permits accrue with the wall clock the provider counts in. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
