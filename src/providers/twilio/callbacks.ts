/**
 * Twilio's message status callbacks: a form-encoded POST to the StatusCallback URL with
 * `MessageSid`, `MessageStatus`, `ErrorCode` (on undelivered/failed), `To`, `From`,
 * `AccountSid`... (https://www.twilio.com/docs/messaging/guides/track-outbound-message-status),
 * signed with X-Twilio-Signature over the URL and the parameters (signature.ts). Checked over
 * the raw bytes before anything is parsed; failures name the check, never a value.
 *
 * Twilio sends no event id: the dedupe key is derived as `<MessageSid>:<MessageStatus>`, plus
 * `:<ErrorCode>` when there is one. A status is reported once per message, so a retried
 * callback (same parameters) gets the same id, while a message's later statuses get their own.
 * The signature has no timestamp, so a captured callback verifies forever: replaying it only
 * repeats an event id, which the store records as a duplicate.
 */
import type { DownstreamStatus } from '../../domain/index.js';
import type { CallbackEvent, CallbackParse, CallbackRequest, SyncCallbackVerifier } from '../provider.js';
import { REFERENCE_PARAM } from './build-request.js';
import { parseFormParams, verifyTwilioSignature } from './signature.js';
import { header, malformed, refused } from '../callback-parse.js';

/**
 * MessageStatus → downstream status. Twilio posts no callback for the first status (queued);
 * `accepted`, `scheduled`, `queued` and `sending` still prove Twilio holds the message, which
 * settles an `unknown` submission, so they map to the lattice's floor, `accepted`. `read` is
 * WhatsApp's. `canceled` is a scheduled message that will never go out: failed.
 */
const STATUS: Readonly<Record<string, DownstreamStatus>> = {
  accepted: 'accepted',
  scheduled: 'accepted',
  queued: 'accepted',
  sending: 'accepted',
  sent: 'sent',
  delivered: 'delivered',
  read: 'read',
  undelivered: 'failed',
  failed: 'failed',
  canceled: 'failed',
};

// Identifiers Herald stores and echoes: SIDs (SM…, MM…) and anything of their alphabet.
const IDENTIFIER = /^[A-Za-z0-9_-]{1,64}$/;
const ERROR_CODE = /^\d{1,6}$/;

function single(params: Map<string, string[]>, name: string): string | null | undefined {
  const values = params.get(name);
  if (values === undefined || values.length === 0) return null;
  return values.length === 1 ? values[0] : undefined;
}

/** The reference (Herald's idempotency key) the StatusCallback URL carries, if any. */
function referenceOf(url: string): string | null | undefined {
  let ref: string | null;
  try {
    ref = new URL(url).searchParams.get(REFERENCE_PARAM);
  } catch {
    return undefined;
  }
  if (ref === null) return null;
  return IDENTIFIER.test(ref) ? ref : undefined;
}

/** Parses a verified status callback into its event (none for a status Herald does not track). */
export function parseTwilioCallback(params: Map<string, string[]>, url: string): CallbackParse {
  const sid = single(params, 'MessageSid');
  if (sid === undefined || sid === null || !IDENTIFIER.test(sid)) return malformed('MessageSid is missing or not an identifier');
  const status = single(params, 'MessageStatus');
  if (status === undefined || status === null || status === '') return malformed('MessageStatus is missing');
  const errorCode = single(params, 'ErrorCode');
  if (errorCode === undefined || (errorCode !== null && errorCode !== '' && !ERROR_CODE.test(errorCode))) return malformed('ErrorCode is not a number');
  const reference = referenceOf(url);
  if (reference === undefined) return malformed('the callback URL carries a malformed ref');
  const downstream = STATUS[status];
  // A status Twilio may add later (or an MMS-only one) is acknowledged and not recorded: a
  // 4xx would only make Twilio retry a callback Herald can never read.
  if (downstream === undefined) return { ok: true, events: [] };
  const event: CallbackEvent = {
    eventId: errorCode === null || errorCode === '' ? `${sid}:${status}` : `${sid}:${status}:${errorCode}`,
    status: downstream,
    providerMessageId: sid,
    reference,
    // Twilio's status callbacks carry no time of their own.
    occurredAt: null,
    // SMS has no bounce or complaint; an opt-out (21610) is refused at send time instead.
    suppress: null,
  };
  return { ok: true, events: [event] };
}

/**
 * The verifier for an account whose callbacks are signed with one of `authTokens` (the
 * current Auth Token first; a previous one stays listed while Twilio's secondary token is promoted).
 */
export function createTwilioCallbackVerifier(authTokens: readonly string[]): SyncCallbackVerifier {
  const tokens = authTokens.filter((t) => t !== '');
  if (tokens.length === 0) throw new Error('a Twilio callback verifier needs an Auth Token');
  return {
    verify(request: CallbackRequest): CallbackParse {
      const signature = header(request.headers, 'x-twilio-signature');
      if (signature === undefined || signature === '') return refused('X-Twilio-Signature is missing');
      const params = parseFormParams(request.rawBody);
      if (!verifyTwilioSignature(tokens, signature, request.url, params)) {
        return refused('X-Twilio-Signature does not match the URL and parameters for any configured Auth Token');
      }
      return parseTwilioCallback(params, request.url);
    },
  };
}
