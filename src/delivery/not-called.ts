/**
 * The outcomes the claim sender returns without calling the provider (`expired_before_send`: the
 * challenge expired; `lease_lapsed_before_send`: the lease no longer covered the call, both at
 * the moment of the call): no request went out, so they count neither in the account's health
 * nor as a refusal, and the rollout stage does not judge them.
 */
import type { SubmitOutcome } from '../domain/index.js';

const NOT_CALLED_CODES: ReadonlySet<string> = new Set(['expired_before_send', 'lease_lapsed_before_send']);

/** True when the provider was never called for this outcome. */
export function madeNoCall(outcome: SubmitOutcome): boolean {
  return outcome.kind !== 'accepted' && NOT_CALLED_CODES.has(outcome.code);
}
