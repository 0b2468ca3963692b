/**
 * What an adapter hands the conformance suite: its fake, and what its provider does on the
 * wire. Transport-agnostic on purpose: an HTTP fake scripts transport faults through the fault
 * proxy (test/providers/fakes/fault-proxy.ts), an SMTP or HTTP/2 fake injects them itself; the
 * suite only names the class of answer it wants next and reads what the fake received.
 */
import type { Channel } from '../../../src/domain/index.js';
import type { ProviderAdapter } from '../../../src/providers/provider.js';

/**
 * The ways a provider says how long a throttled client must wait: none at all,
 * `Retry-After: <seconds>`, `Retry-After: <HTTP-date>`, or its own rate-limit header(s).
 */
export type ThrottleHint = 'none' | 'retry_after_seconds' | 'retry_after_date' | 'provider_header';

export const THROTTLE_HINTS: readonly ThrottleHint[] = ['none', 'retry_after_seconds', 'retry_after_date', 'provider_header'];

/** The next answer the fake gives, by class; the fake decides what that looks like for its provider. */
export type ScriptedAnswer =
  /** Accept the submission and assign a provider message id. */
  | { kind: 'accept' }
  /** Refuse it definitely and for good (an invalid destination, say). */
  | { kind: 'permanent' }
  /** Refuse it definitely but permit a retry (the provider's "not processed" 5xx, say). */
  | { kind: 'retryable' }
  /** Refuse it for rate reasons, saying `seconds` in the given form (`none`: saying nothing). */
  | { kind: 'throttled'; hint: ThrottleHint; seconds: number }
  /** From now on, refuse every connection (nothing listens). */
  | { kind: 'refuse_connection' }
  /** Reset the connection while the request is still being written; the fake never sees it. */
  | { kind: 'reset_while_writing' }
  /** Let the fake receive (and answer) the request, and reset the connection before the answer arrives. */
  | { kind: 'reset_after_write' }
  /** Let the fake receive the request and never answer. */
  | { kind: 'hang' }
  /** Let the fake receive the request and answer bytes that are not a protocol answer. */
  | { kind: 'malformed_answer'; canaries: readonly string[] }
  /** Let the fake receive the request and accept it, with the answer held for `delayMs`. */
  | { kind: 'slow_answer'; delayMs: number }
  /**
   * Take the submission and keep working on it until `release()`: its answer is lost, and its
   * idempotency key is in progress, so a repeat with the key gets the provider's "still in
   * progress" answer; on release the message is created, and a repeat replays its answer.
   */
  | { kind: 'accept_held' };

/** One submission the fake received whole. */
export interface ReceivedSubmission {
  /** The idempotency key exactly as it came over the wire (a header value, a Message-ID...), null when absent. */
  carriedKey: string | null;
}

/** One started fake, for one test. */
export interface ConformanceFake {
  /** Builds the adapter under test, configured against this fake with the given per-request timeout. */
  adapter(options: { timeoutMs: number }): ProviderAdapter;
  /** Scripts the answer to the next submission (transport faults: to the next connection or request). */
  script(answer: ScriptedAnswer): Promise<void>;
  /** Every submission the fake received whole, in order, refused ones included. */
  received(): Promise<ReceivedSubmission[]>;
  /** The provider message ids the fake assigned to the submissions it accepted, in order. */
  acceptedIds(): Promise<string[]>;
  /** Finishes the submission held by `accept_held` (only fakes whose subject supports `keyInProgress`). */
  release?(): Promise<void>;
  /** Stops the fake and whatever stands in front of it; rejects if a scripted fault could not apply. */
  close(): Promise<void>;
}

/** Supported, or skipped with the reason (the suite reports the skip; it never skips silently). */
export type Support = true | { skip: string };

export interface AdapterSubject {
  /** The adapter kind, shown in test names. */
  readonly name: string;
  /** The channels the adapter serves; the suite runs once per channel. */
  readonly channels: readonly Channel[];
  /**
   * A destination per channel in the provider's format (address, E.164 number, token,
   * subscription). Distinctive: the suite checks no outcome quotes it.
   */
  readonly destinations: Partial<Record<Channel, string>>;
  /** Which throttle hints the provider sends; the fake must be able to script each supported one. */
  readonly throttleHints: Readonly<Record<ThrottleHint, Support>>;
  /** How the provider expects Herald's idempotency key to be carried (e.g. the header value), or why it takes none. */
  readonly idempotency: { carried(idempotencyKey: string): string } | { skip: string };
  /**
   * Whether the provider answers a repeat whose key is still in progress (Resend's 409
   * `concurrent_idempotent_requests`, Telnyx's 409), which the fake then plays for
   * `accept_held`; or why that case does not arise.
   */
  readonly keyInProgress: Support;
  /**
   * The credentials and secrets the adapter is configured with (API keys, tokens, callback
   * secrets): canaries that no outcome may contain.
   */
  readonly credentials: readonly string[];
  /**
   * Whether the adapter puts a request of many megabytes on the wire (the reset-while-writing
   * scenario needs one), or why it refuses such content before sending (Web Push: RFC 8291 caps
   * the plaintext at 3993 octets). Default: it does.
   */
  readonly largeRequests?: Support;
  /** Starts a fresh fake for one test on one channel. */
  start(channel: Channel): Promise<ConformanceFake>;
}
