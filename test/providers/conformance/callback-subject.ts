/**
 * What a provider kind's callback verifier hands the callback conformance suite: how to make
 * keys in its format, how its provider signs and lays out one event, and whether the scheme
 * signs a timestamp. "Key" is what an account lists (a shared secret for HMAC schemes, a
 * public key or certificate for Ed25519 or SNS); the subject keeps whatever signing needs.
 */
import type { Channel } from '../../../src/domain/index.js';
import type { CallbackRequest, CallbackVerifier } from '../../../src/providers/provider.js';

/** One delivery event, as the suite asks the subject to send it. */
export interface SampleEvent {
  /** The provider's event id where it has one; a subject without one derives its own. */
  eventId: string;
  providerMessageId: string;
  /** Herald's idempotency key, where the provider echoes it. */
  reference: string;
  channel: Channel;
  status: 'sent' | 'delivered' | 'failed';
  /** When the event happened (epoch ms): part of the event, unlike the time a delivery of it is signed. */
  occurredAt: number;
  /** Where the provider's callback quotes the destination (Twilio's `To`); a subject may leave it out. */
  destination: string;
}

export interface CallbackVerifierSubject {
  /** The provider kind, shown in test names. */
  readonly name: string;
  /** A fresh key in the format an account lists it. */
  newKey(): string;
  /** The verifier an account with `keys` (current first, older ones while rotating) gets. */
  verifier(keys: readonly string[]): CallbackVerifier;
  /**
   * One event as the provider delivers it, signed with the private side of `key` at `atMs`
   * (epoch ms); a second delivery of the same event differs only where the provider's retries
   * differ. The body must contain `event.providerMessageId` verbatim: the suite tampers with it.
   */
  deliver(event: SampleEvent, options: { key: string; atMs: number }): CallbackRequest;
  /** How far a signed timestamp may be from now, or why the scheme signs none. */
  readonly timestamp: { toleranceMs: number } | { skip: string };
  /**
   * Why a tampered body cannot be told from the real one, for a scheme that signs no body
   * (Postmark's Basic credentials in the URL); absent for every scheme that signs one.
   */
  readonly unsignedBody?: { skip: string };
}
