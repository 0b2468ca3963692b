/**
 * The words of the Android phone gateway (the SMSGate app, capcom6/android-sms-gateway) and
 * the pure rules over them: the phone's message states and how they fold, what a report means
 * for a delivery, the state of an offer on Herald's side, and the message id an offer carries.
 * The schema's CHECK constraints list the same words (test/store/schema-checks.test.ts).
 */
import { createHash } from 'node:crypto';
import type { DownstreamStatus } from './downstream.js';

/**
 * The app's message states, spelled as on the wire (app `domain/ProcessingState.kt`; server
 * `modules/messages/models.go`). `Processed` = handed to Android's SmsManager, `Sent` = the SMSC
 * accepted it, `Delivered` = a delivery report came back, `Failed` = final at any stage.
 */
export const PHONE_STATES = ['Pending', 'Processed', 'Sent', 'Delivered', 'Failed', 'Cancelling', 'Cancelled'] as const;
export type PhoneState = (typeof PHONE_STATES)[number];

/**
 * Where an offer is on Herald's side. `offered` and `reoffered` are listed by `GET /message`;
 * a pull makes them `pulled`; a report makes one `reported`; an offer the phone never pulled
 * may be `withdrawn` (then it provably never reached the phone).
 */
export const OFFER_STATES = ['offered', 'pulled', 'reoffered', 'withdrawn', 'reported'] as const;
export type OfferState = (typeof OFFER_STATES)[number];

export function isPhoneState(value: unknown): value is PhoneState {
  return typeof value === 'string' && (PHONE_STATES as readonly string[]).includes(value);
}

// Forward only, like the downstream lattice: a late `Processed` never undoes a `Sent`.
// `Failed` and `Cancelled` are final (the app's `Failed` may follow `Delivered`: a later report).
const RANK: Record<PhoneState, number> = { Pending: 0, Cancelling: 0, Processed: 1, Sent: 2, Delivered: 3, Failed: 4, Cancelled: 4 };
const FINAL: ReadonlySet<PhoneState> = new Set(['Failed', 'Cancelled']);

/** The state after a report of `incoming` on top of `current`: never lower, never out of a final state. */
export function foldPhoneState(current: PhoneState | null, incoming: PhoneState): PhoneState {
  if (current === null) return incoming;
  if (FINAL.has(current)) return current;
  return RANK[incoming] > RANK[current] ? incoming : current;
}

/**
 * What a phone's report means for the delivery: `holds` (the phone has the message: evidence
 * that settles `unknown` as `accepted`, with a downstream status), `not_sent` (it failed or was
 * cancelled before the SMSC took it: nothing went out) or `nothing` (`Cancelling`, which only
 * Herald asks for).
 */
export type ReportMeaning = { kind: 'holds'; downstream: DownstreamStatus } | { kind: 'not_sent' } | { kind: 'nothing' };

/** Reads a folded phone state; `sent` says whether the phone ever reported `Sent` (or `Delivered`) for it. */
export function reportMeaning(state: PhoneState, sent: boolean): ReportMeaning {
  switch (state) {
    case 'Pending':
    case 'Processed':
      return { kind: 'holds', downstream: 'accepted' };
    case 'Sent':
      return { kind: 'holds', downstream: 'sent' };
    case 'Delivered':
      return { kind: 'holds', downstream: 'delivered' };
    case 'Failed':
      // After Sent the SMS is out: a failed delivery report is downstream news, not a retry.
      return sent ? { kind: 'holds', downstream: 'failed' } : { kind: 'not_sent' };
    case 'Cancelled':
      return sent ? { kind: 'holds', downstream: 'sent' } : { kind: 'not_sent' };
    case 'Cancelling':
      return { kind: 'nothing' };
  }
}

const MAX_SEQ = 9_999_999;

/**
 * The id under which a delivery's `seq`-th offer goes to a phone: 28 hex characters of
 * SHA-256 over Herald's idempotency key, `-`, and the offer's sequence number (at most 36
 * characters). Stable: a re-offer (the look-up) reuses it, so the phone re-reports instead of
 * sending; only a new submission after a definite failure takes the next `seq`. A hash, so
 * the phone's log carries no personal data.
 */
export function gatewayMessageId(idempotencyKey: string, seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > MAX_SEQ) throw new RangeError(`offer sequence must be 1..${MAX_SEQ}, got ${seq}`);
  return `${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 28)}-${seq}`;
}
