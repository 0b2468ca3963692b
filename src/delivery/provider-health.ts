/**
 * Records each batch's provider calls in the account's health bucket (calls, and the retryable or
 * throttled failures among them), which the retry budget (retry-budget.ts), the route evaluator
 * and /metrics read. Outcomes that made no call (domain/not-called.ts) are not counted.
 */
import type { Logger } from 'pino';
import { HEALTH_BUCKET_MS, madeNoCall, type SubmitOutcome } from '../domain/index.js';
import type { Store } from '../store/store.js';

export class ProviderHealthRecorder {
  constructor(
    private readonly store: { health: Pick<Store['health'], 'recordProviderCalls'> },
    private readonly logger: Logger,
  ) {}

  /** Adds these outcomes of `account`'s calls to the bucket holding `now`. */
  async record(account: string, outcomes: readonly SubmitOutcome[], now: number): Promise<void> {
    let calls = 0;
    let failures = 0;
    for (const o of outcomes) {
      if (madeNoCall(o)) continue;
      calls++;
      if (o.kind === 'retryable' || o.kind === 'throttled') failures++;
    }
    if (calls === 0) return;
    // Log and continue, on purpose: the outcomes are already recorded; a lost health count only
    // makes the budget slightly less informed.
    await this.store.health
      .recordProviderCalls({ providerAccount: account, bucketStart: Math.floor(now / HEALTH_BUCKET_MS) * HEALTH_BUCKET_MS, calls, failures })
      .catch((err) => this.logger.warn({ err, providerAccount: account }, 'cannot record provider health'));
  }
}
