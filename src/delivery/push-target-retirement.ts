/**
 * A push service's definite "this device is gone" (an adapter's permanent invalid_destination
 * with a code ending `_unregistered` or `_bad_token`) deactivates every subscription holding that
 * target, so nothing is sent to it again (send-time checks stop the deliveries already queued).
 * Kept even when the outcome's write was fenced off: the refusal is evidence either way.
 */
import type { Logger } from 'pino';
import type { SubmitOutcome } from '../domain/index.js';
import type { ClaimedDelivery, Store } from '../store/store.js';

/** Why a push target is retired, from the refusal's code; null when the refusal does not say the device is gone. */
function retirementReason(channel: ClaimedDelivery['channel'], outcome: SubmitOutcome): 'unregistered' | 'bad_token' | null {
  if (channel !== 'push' || outcome.kind !== 'permanent' || outcome.reason !== 'invalid_destination') return null;
  return /_unregistered$/.test(outcome.code) ? 'unregistered' : /_bad_token$/.test(outcome.code) ? 'bad_token' : null;
}

export class PushTargetRetirement {
  constructor(
    private readonly store: { push: Pick<Store['push'], 'deactivatePushTarget'> },
    private readonly logger: Logger,
  ) {}

  /** Deactivates the targets these outcomes (one per claim, same order) say are gone. */
  async retireRefused(claimed: readonly ClaimedDelivery[], outcomes: readonly SubmitOutcome[], now: number): Promise<void> {
    for (const [i, c] of claimed.entries()) {
      const o = outcomes[i]!;
      const reason = retirementReason(c.channel, o);
      if (reason === null || o.kind !== 'permanent') continue;
      // Log and continue, on purpose: the outcomes are recorded; a missed deactivation costs one more refusal.
      await this.store.push
        .deactivatePushTarget({ tenantId: c.tenantId, target: c.destination, reason, code: o.code, now })
        .catch((err) =>
          this.logger.warn({ err, deliveryId: c.deliveryId }, 'cannot deactivate a refused push subscription; the next send to it will be refused again'),
        );
    }
  }
}
