/**
 * Turns Twilio's answer to a Messages create into a SubmitOutcome. Pure: status, header
 * fields and body in, outcome out, time passed in. Twilio's error body is
 * `{"code": 21211, "message": "...", "more_info": "...", "status": 400}`; its `message` quotes
 * the number, so outcomes carry Herald's own words and Twilio's numeric code only.
 * docs/providers/twilio.md has this table with its sources.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { answerLabel, codedOutcome, refusalByStatus, type CodedRefusal } from '../outbound-http/coded-refusals.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';

export interface TwilioResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

// A message SID: SM (SMS) or MM (MMS) and 32 hex digits.
const MESSAGE_SID = /^(SM|MM)[0-9a-fA-F]{32}$/;

/** Twilio error codes with a meaning of their own (https://www.twilio.com/docs/api/errors/<code>). */
const BY_CODE: Readonly<Record<number, CodedRefusal>> = {
  // "An API Request that receives an error 429 response is never processed and is always safe to retry."
  20429: { kind: 'throttled', code: 'twilio_20429_too_many_requests', message: 'Twilio refused the request: too many concurrent requests (not processed)' },
  // The sender's queue holds more than its validity period's worth: the message was not created.
  21611: { kind: 'retryable', code: 'twilio_21611_queue_full', message: "Twilio refused the message: the sender's queue is full (not created)" },
  30001: { kind: 'retryable', code: 'twilio_30001_queue_overflow', message: 'Twilio refused the message: queue overflow (not created)' },
  20003: { kind: 'permanent', reason: 'unauthorized', code: 'twilio_20003_authentication', message: 'Twilio refused the credentials' },
  21211: { kind: 'permanent', reason: 'invalid_destination', code: 'twilio_21211_invalid_to', message: "Twilio refused the 'To' number as invalid" },
  21614: {
    kind: 'permanent',
    reason: 'invalid_destination',
    code: 'twilio_21614_not_mobile',
    message: "Twilio refused the 'To' number: not a valid mobile number",
  },
  // The recipient replied STOP to this sender: Twilio blocks every message from it until they
  // reply START. The lead suppresses the number for this account's sender on this code.
  21610: {
    kind: 'permanent',
    reason: 'unsubscribed_at_provider',
    code: 'twilio_unsubscribed',
    message: 'the recipient has unsubscribed from this sender (replied STOP)',
  },
  21408: {
    kind: 'permanent',
    reason: 'other',
    code: 'twilio_21408_region_not_enabled',
    message: "the account's geographic permissions do not allow SMS to this region",
  },
  21612: { kind: 'permanent', reason: 'other', code: 'twilio_21612_route_unreachable', message: "Twilio cannot reach the 'To' number from this sender" },
  21606: {
    kind: 'permanent',
    reason: 'other',
    code: 'twilio_21606_invalid_from',
    message: "the 'From' number is not a valid SMS-capable number of this account",
  },
  21212: { kind: 'permanent', reason: 'other', code: 'twilio_21212_invalid_from', message: "the 'From' number is invalid" },
  21602: { kind: 'permanent', reason: 'content_rejected', code: 'twilio_21602_body_required', message: 'Twilio requires a message body' },
  21617: { kind: 'permanent', reason: 'content_rejected', code: 'twilio_21617_body_too_long', message: 'the body exceeds Twilio’s 1,600-character limit' },
  21624: { kind: 'permanent', reason: 'other', code: 'twilio_21624_invalid_validity', message: 'Twilio refused the ValidityPeriod' },
};

function errorCode(body: unknown): number | null {
  if (typeof body !== 'object' || body === null) return null;
  const code = (body as Record<string, unknown>).code;
  if (typeof code === 'number' && Number.isSafeInteger(code)) return code;
  if (typeof code === 'string' && /^\d{1,6}$/.test(code)) return Number(code);
  return null;
}

function retryAfter(headers: Readonly<Record<string, string>>, nowMs: number): number | null {
  return parseRetryAfterMs(headers['retry-after'] ?? null, nowMs);
}

/** Classifies one answer to a Messages create; `nowMs` reads an HTTP-date Retry-After. */
export function classifyTwilioResponse(response: TwilioResponse, nowMs: number): SubmitOutcome {
  const { status, body } = response;
  if (status >= 200 && status < 300) {
    const sid = (body as { sid?: unknown } | null)?.sid;
    if (typeof sid === 'string' && MESSAGE_SID.test(sid)) return { kind: 'accepted', providerMessageId: sid };
    // A success without a message SID is no protocol answer: Twilio may have created it.
    return { kind: 'unknown', code: 'malformed_response', message: `Twilio answered HTTP ${status} without a message SID` };
  }
  const code = errorCode(body);
  // 429 is Twilio's concurrency refusal (20429): never processed. Retry-After is not
  // documented for it; honoured when present, never invented.
  const known = status === 429 ? BY_CODE[20429] : code === null ? undefined : BY_CODE[code];
  if (known !== undefined) return codedOutcome(known, () => retryAfter(response.headers, nowMs));
  const label = answerLabel(status, code);
  if (status === 503) {
    // 20503 "Service unavailable: try again with exponential back-off": the service did not take the request.
    return {
      kind: 'retryable',
      code: 'twilio_service_unavailable',
      message: `Twilio is temporarily unavailable (${label})`,
      retryAfterMs: retryAfter(response.headers, nowMs),
    };
  }
  if (status >= 500) {
    // 20500: "sending an SMS ... [is] not idempotent. If you get a 500 ... and you retry ...
    // a customer [may] receive multiple messages". Twilio may have created it.
    return { kind: 'unknown', code: 'twilio_server_error', message: `Twilio answered ${label}; the message may have been created` };
  }
  return refusalByStatus('Twilio', status, code);
}
