/**
 * The loop shared by Herald's maintenance services (sweeper, fallback scheduler): run a pass,
 * wait an interval, run again; a failed pass is logged and retried next interval (a written
 * decision: these passes are idempotent and the next one picks up what this one missed).
 * `stop()` waits for a pass in progress.
 */
import type { Logger } from 'pino';

export class PeriodicRunner {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly opts: { intervalMs: number; logger: Logger; what: string },
  ) {}

  /** Starts the loop; the first pass runs after one interval. */
  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.running = this.pass()
        .catch((err) => this.opts.logger.error({ err }, `${this.opts.what} failed; will retry next interval`))
        .finally(() => {
          this.running = null;
          if (this.timer) this.timer = setTimeout(tick, this.opts.intervalMs);
        });
    };
    this.timer = setTimeout(tick, this.opts.intervalMs);
  }

  /** Stops the loop and waits for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
