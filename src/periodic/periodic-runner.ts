/**
 * The loop shared by Herald's maintenance services (sweeper, fallback scheduler): run a pass,
 * wait an interval, run again; a failed pass is logged and retried next interval (a written
 * decision: these passes are idempotent and the next one picks up what this one missed).
 * `stop()` waits for a pass in progress.
 */
import type { Logger } from 'pino';

export class PeriodicRunner {
  private started = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  /** A poke arrived while a pass ran: run the next one at once. */
  private again = false;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly opts: { intervalMs: number; logger: Logger; what: string },
  ) {}

  /** Starts the loop; the first pass runs after one interval. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(this.opts.intervalMs);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), ms);
  }

  private run(): void {
    this.timer = null;
    this.again = false;
    this.running = this.pass()
      .catch((err) => this.opts.logger.error({ err }, `${this.opts.what} failed; will retry next interval`))
      .finally(() => {
        this.running = null;
        if (this.started) this.schedule(this.again ? 0 : this.opts.intervalMs);
      });
  }

  /**
   * Asks for a pass now instead of at the end of the interval (new work arrived in this
   * process). A pass in progress is not interrupted; the next one starts as soon as it ends.
   */
  poke(): void {
    if (!this.started) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** Stops the loop and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
