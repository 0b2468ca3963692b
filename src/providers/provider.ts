/**
 * The seam between Herald and a provider. One folder per provider kind implements it; each
 * passes the adapter conformance suite. An adapter classifies every answer into a
 * `SubmitOutcome` and never throws for a provider's failure.
 */
import type { AmbiguityPolicy, Channel, LadderName, Purpose, SubmitOutcome } from '../domain/index.js';

export interface MessageContent {
  subject?: string | null;
  text: string;
  html?: string | null;
}

export interface SubmitRequest {
  deliveryId: string;
  /** Herald's stable key for this logical delivery; sent to the provider on every attempt. */
  idempotencyKey: string;
  channel: Channel;
  purpose: Purpose;
  /** E-mail address, E.164 number or push token, depending on the channel. */
  destination: string;
  content: MessageContent;
  /** Epoch ms; adapters may pass it on as a validity period. */
  expiresAt: number;
  /**
   * Wall-clock epoch ms (Date.now()) at or after which the request must not be written: the
   * challenge clock, translated by the worker for the transport. A request whose socket is ready
   * only after it is abandoned unwritten (retryable, provably not sent).
   */
  sendBy?: number;
}

export interface AdapterCapabilities {
  /** The provider can be asked whether it has a message, by Herald's reference. */
  lookup: boolean;
  /** The provider documents that a repeated key is not sent twice. */
  dedupesByKey: boolean;
}

export interface ProviderAdapter {
  readonly kind: string;
  readonly capabilities: AdapterCapabilities;
  /** Submits one message. Resolves with a classified outcome; rejects only on a programming error. */
  submit(request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome>;
  /** Releases sockets and timers. */
  close(): Promise<void>;
}

/** One configured provider account, as read from configuration. */
export interface ProviderAccountConfig {
  id: string;
  kind: 'sandbox';
  channel: Channel;
  base_url: string;
  /** A literal credential, or the name of an environment variable holding it. */
  api_key?: string;
  api_key_env?: string;
  rate_per_second: number;
  burst: number;
  ambiguity_policy: AmbiguityPolicy;
  /** Per purpose, the ladder this account's deliveries retry on (a notification's own choice wins). */
  retry_ladders?: Partial<Record<Purpose, LadderName>>;
  /** Per-request timeout; a timeout is `unknown`, never `failed`. */
  timeout_ms: number;
}
