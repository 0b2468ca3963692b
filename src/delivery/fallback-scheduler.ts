/**
 * The fallback scheduler: a small maintenance service with start/stop and a runOnce() tests
 * call. Each pass looks at pending fallbacks whose deadline passed (or whose previous channel
 * already ended) and asks the domain's `decideFallback`: create the next channel's delivery,
 * drop the remaining channels (the previous one got through, or the challenge expired), or
 * wait. Never driven by an exception: only by stored facts and the clock.
 */
import type { Clock } from '../clock.js';
import { LoopService, type LoopSettings } from '../periodic/loop-service.js';
import { decideFallback } from '../domain/index.js';
import type { Store } from '../store/store.js';

export interface FallbackSchedulerOptions extends LoopSettings {
  store: Store;
  clock: Clock;
  /** Wakes the claim loops of an account that just got a delivery. */
  wake?: (providerAccount: string) => void;
}

export interface FallbackPass {
  created: number;
  /** Later channels not needed: the previous one reached the evidence level. */
  resolved: number;
  /** Later channels that would have started at or after expiry. */
  expired: number;
}

export class FallbackScheduler extends LoopService {
  constructor(private readonly opts: FallbackSchedulerOptions) {
    super({ ...opts, what: 'fallback pass', defaultBatchSize: 200 });
  }

  /** One pass over every due fallback at this instant. */
  override async runOnce(): Promise<FallbackPass> {
    const now = this.opts.clock.now();
    const pass: FallbackPass = { created: 0, resolved: 0, expired: 0 };
    for (;;) {
      const due = await this.opts.store.fallbacks.listDueFallbacks(now, this.passBatchSize);
      let acted = 0;
      for (const f of due) {
        const d = decideFallback({ previous: f.previous, dueAt: f.dueAt, expiresAt: f.expiresAt, evidence: f.evidence, now });
        if (d.kind === 'wait') continue;
        const action = d.kind === 'create' ? 'create' : 'drop';
        const done = await this.opts.store.fallbacks.resolveFallback({
          notificationId: f.notificationId,
          position: f.position,
          action,
          now,
          nextDueAt: now + f.afterMs,
        });
        if (!done) continue; // another scheduler took it
        acted++;
        if (d.kind === 'create') {
          pass.created++;
          this.opts.wake?.(f.providerAccount);
        } else if (d.kind === 'resolved') pass.resolved++;
        else pass.expired++;
      }
      // Stop when the batch was the last one, or nothing in it could be acted on now.
      if (due.length < this.passBatchSize || acted === 0) return pass;
    }
  }
}
