/**
 * The outcomes of a call Herald itself stopped before a request reached the provider:
 * `expired_before_send` (the challenge expired) and `lease_lapsed_before_send` (the lease no
 * longer covered the call), both decided at the moment of the call, and `aborted_before_send`
 * (the transport keeping Herald's own `sendBy`, the earlier of expiry and the lease's last
 * write, or a worker shutting down). The account did nothing wrong: they count neither in its
 * health and retry budget nor as a refusal, the rollout stage does not judge them, and they
 * never move a delivery to another account of its route. A connect or write that fails or
 * times out (`connect_failed`, `write_failed`) is the account's, and counts.
 */
import type { SubmitOutcome } from './outcome.js';

const NOT_CALLED_CODES: ReadonlySet<string> = new Set(['expired_before_send', 'lease_lapsed_before_send', 'aborted_before_send']);

/** True when Herald stopped this call before the provider received a request. */
export function madeNoCall(outcome: SubmitOutcome): boolean {
  return outcome.kind !== 'accepted' && NOT_CALLED_CODES.has(outcome.code);
}
