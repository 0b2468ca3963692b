/**
 * The seam between Herald and a provider. One folder per provider kind implements it; each
 * passes the adapter conformance suite. An adapter classifies every answer into a
 * `SubmitOutcome` and never throws for a provider's failure.
 */
import type { CallbackEvent, Channel, MessageContent, Purpose, SubmitOutcome } from '../domain/index.js';

export type { CallbackEvent, MessageContent } from '../domain/index.js';

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

/** What a look-up by Herald's reference (the delivery's idempotency key) learned. */
export type LookupResult =
  /** The provider has the message. */
  | { kind: 'found'; providerMessageId: string | null }
  /** The provider answered authoritatively that it has no message with this reference. */
  | { kind: 'not_found' }
  /** No authoritative answer (timeout, 5xx, throttled): ask again later. */
  | { kind: 'error'; code: string; message: string };

export interface LookupRequest {
  idempotencyKey: string;
  channel: Channel;
}

export type CallbackParse =
  | { ok: true; events: CallbackEvent[] }
  /**
   * 401: bad, missing or stale signature (nothing recorded); 400: signed but unreadable; 503:
   * it cannot be checked right now (a signing certificate that cannot be fetched), so the
   * provider should retry.
   */
  | { ok: false; status: 400 | 401 | 503; code: 'callback_signature_invalid' | 'callback_malformed' | 'service_unavailable'; detail: string };

export interface CallbackRequest {
  /** The raw bytes as received: signatures are checked over these, before any parsing. */
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  /** The full URL the provider requested, as configured (some schemes sign it). */
  url: string;
}

/**
 * A provider kind's callback scheme: verify over raw bytes first, then parse into events. A
 * scheme that needs I/O to verify (SNS fetches its signing certificate, and confirms
 * subscriptions) answers with a promise; HMAC schemes answer at once. Callers await either.
 */
export interface CallbackVerifier {
  verify(request: CallbackRequest, nowMs: number): CallbackParse | Promise<CallbackParse>;
}

/** One incoming message a provider's inbound webhook reported, its signature verified. */
export interface InboundProviderMessage {
  /** The provider's id of the message (Twilio's MessageSid): the dedupe key per account. */
  externalId: string;
  /** The sender's number as the provider gave it. */
  from: string;
  /** The account's number it was sent to, when given. */
  to: string | null;
  text: string | null;
  /** The provider's time of receipt, when it sends one. */
  receivedAt: number | null;
}

export type InboundParse = { ok: true; message: InboundProviderMessage } | Extract<CallbackParse, { ok: false }>;

/**
 * A provider kind's inbound-message webhook (Twilio's "A message comes in" URL): verified over
 * the raw bytes as its status callbacks are, then read into one message; and the answer the
 * provider expects back, with at most one reply for the sender.
 */
export interface InboundReceiver {
  /** The message's source as stored (`inbound_messages.source`). */
  readonly source: 'twilio' | 'telnyx';
  verify(request: CallbackRequest, nowMs: number): InboundParse;
  /** The 200 answer's content type and body: `reply` sent back to the sender through the same account, or nothing. */
  answer(reply: string | null): { contentType: string; body: string };
}

/** A verifier that needs no I/O (a signature over the body): it answers at once. */
export interface SyncCallbackVerifier extends CallbackVerifier {
  verify(request: CallbackRequest, nowMs: number): CallbackParse;
}

export interface ProviderAdapter {
  readonly kind: string;
  readonly capabilities: AdapterCapabilities;
  /** Submits one message. Resolves with a classified outcome; rejects only on a programming error. */
  submit(request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome>;
  /** Present exactly when `capabilities.lookup`: asks the provider whether it has the message. Never throws for a provider failure. */
  lookup?(request: LookupRequest, signal?: AbortSignal): Promise<LookupResult>;
  /** Present when the account is configured to receive callbacks (it has a callback secret). */
  readonly callbacks?: CallbackVerifier;
  /** Releases sockets and timers. */
  close(): Promise<void>;
}

/** One configured provider account, as read from configuration (declared once, in account-schema.ts). */
export type { ProviderAccountConfig } from './account-schema.js';
