/**
 * The arrival allowance: a message is useful only if it arrives before it expires (the
 * mission's "a code that would arrive after its expiry is not sent"), and a call is not an
 * arrival. An SMS crosses a carrier in a second or more, an e-mail a relay or two, a push
 * notification a push service. So a call must leave its channel that much of the message's
 * validity: from `expires_at` less the allowance on, no call starts and no request is written,
 * and a retry that could only start after it ends the delivery `terminal/expired`, as a retry
 * after expiry does. A code with 400 ms of validity left is no use to anyone, and sending it
 * costs a message and, worse, a provider stamp after its expiry.
 *
 * The defaults are floors for a healthy path (a provider that accepts within tens of ms and
 * delivers within about a second), not promises: an account sets `arrival_allowance_ms` to what
 * its route takes (an Android phone's radio, a slow relay). Producers set the validity; intake
 * refuses a notification whose whole validity is no longer than every one of its channels'
 * allowances (422 expires_before_arrival), since it could only end `expired`.
 */
import type { Channel } from './vocabulary.js';

export const DEFAULT_ARRIVAL_ALLOWANCE_MS: Readonly<Record<Channel, number>> = {
  sms: 1_000,
  email: 1_000,
  push: 500,
};

/** The account's allowance when it sets one, else its channel's default. */
export function arrivalAllowanceMs(channel: Channel, configuredMs: number | undefined): number {
  return configuredMs ?? DEFAULT_ARRIVAL_ALLOWANCE_MS[channel];
}

/**
 * The moment from which a call for a message expiring at `expiresAt` may no longer start, nor
 * write its request, given its channel's allowance. A call is allowed strictly before it.
 */
export function lastUsefulCall(expiresAt: number, allowanceMs: number): number {
  return expiresAt - allowanceMs;
}
