/**
 * Turns Telnyx's answer to `POST /v2/messages` into a SubmitOutcome. Pure: status, header
 * fields and body in, outcome out, time passed in. Telnyx's errors are
 * `{"errors": [{"code": "40300", "title": "...", "detail": "..."}]}`; `detail` quotes the
 * numbers, so outcomes carry Herald's words and Telnyx's code only. Every attempt carries the
 * delivery's Idempotency-Key; a 5xx is retried as Telnyx advises ("Please retest"), and where
 * Telnyx honours the key a request it had completed is answered from its record. A 409 is a
 * key still in progress: retryable. docs/providers/telnyx.md has this table with its sources.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { answerLabel, codedOutcome, refusalByStatus, type CodedRefusal } from '../outbound-http/coded-refusals.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';

export interface TelnyxResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

/**
 * Telnyx error codes (API errors: https://developers.telnyx.com/development/api-fundamentals/api-errors;
 * messaging: https://developers.telnyx.com/docs/messaging/messages/error-codes).
 */
const BY_CODE: Readonly<Record<string, CodedRefusal>> = {
  '10011': { kind: 'throttled', code: 'telnyx_10011_too_many_requests', message: 'Telnyx refused the request: too many requests' },
  '10009': { kind: 'permanent', reason: 'unauthorized', code: 'telnyx_10009_authentication', message: 'Telnyx refused the API key' },
  '10010': { kind: 'permanent', reason: 'unauthorized', code: 'telnyx_10010_authorization', message: 'the API key may not send with this sender or profile' },
  // "Blocked due to STOP message": a block rule on the messaging profile. The lead suppresses
  // the number for this account's profile on this code.
  '40300': {
    kind: 'permanent',
    reason: 'unsubscribed_at_provider',
    code: 'telnyx_unsubscribed',
    message: 'the recipient has opted out of this messaging profile (replied STOP)',
  },
  '10002': { kind: 'permanent', reason: 'invalid_destination', code: 'telnyx_10002_invalid_number', message: 'Telnyx refused the phone number as invalid' },
  '10016': { kind: 'permanent', reason: 'invalid_destination', code: 'telnyx_10016_not_e164', message: 'Telnyx requires +E.164 numbers' },
  '40310': { kind: 'permanent', reason: 'invalid_destination', code: 'telnyx_40310_invalid_to', message: "Telnyx refused the 'to' address" },
  '40012': {
    kind: 'permanent',
    reason: 'invalid_destination',
    code: 'telnyx_40012_invalid_destination',
    message: 'the carrier refused the destination number',
  },
  '40001': { kind: 'permanent', reason: 'invalid_destination', code: 'telnyx_40001_not_routable', message: 'the destination is a landline or not routable' },
  '40305': { kind: 'permanent', reason: 'other', code: 'telnyx_40305_invalid_from', message: "Telnyx refused the 'from' address" },
  '40013': {
    kind: 'permanent',
    reason: 'other',
    code: 'telnyx_40013_invalid_source',
    message: 'the sending number is not active or not enabled for messaging',
  },
  '10004': { kind: 'permanent', reason: 'other', code: 'telnyx_10004_missing_parameter', message: 'Telnyx says a required parameter is missing' },
  '10015': { kind: 'permanent', reason: 'other', code: 'telnyx_10015_bad_request', message: 'Telnyx refused the request as malformed' },
  '40009': { kind: 'permanent', reason: 'content_rejected', code: 'telnyx_40009_invalid_body', message: 'Telnyx refused the message body' },
  // "Blocked as spam (temporary)": Telnyx advises reducing the rate and reviewing content.
  '40002': { kind: 'retryable', code: 'telnyx_40002_spam_temporary', message: 'a spam filter blocked the message for now' },
  // "Unexpected error ... may be the result of a temporary issue on our end. Please retest."
  '10007': { kind: 'retryable', code: 'telnyx_10007_unexpected', message: 'Telnyx answered an unexpected error' },
};

function firstErrorCode(body: unknown): string | null {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return null;
  for (const e of errors) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^\d{1,6}$/.test(code)) return code;
    if (typeof code === 'number' && Number.isSafeInteger(code)) return String(code);
  }
  return null;
}

/**
 * When to come back after a 429: `Retry-After` if Telnyx sends one, else `x-ratelimit-reset`
 * ("the time in seconds until the rate limit resets"); null when neither parses.
 */
export function telnyxRetryAfterMs(headers: Readonly<Record<string, string>>, nowMs: number): number | null {
  const retryAfter = parseRetryAfterMs(headers['retry-after'] ?? null, nowMs);
  if (retryAfter !== null) return retryAfter;
  const reset = headers['x-ratelimit-reset']?.trim();
  if (reset === undefined || !/^\d+(\.\d+)?$/.test(reset)) return null;
  const ms = Math.ceil(Number(reset) * 1000);
  return Number.isSafeInteger(ms) ? ms : null;
}

/** Classifies one answer to a send; `nowMs` reads an HTTP-date Retry-After. */
export function classifyTelnyxResponse(response: TelnyxResponse, nowMs: number): SubmitOutcome {
  const { status, body } = response;
  if (status >= 200 && status < 300) {
    const id = (body as { data?: { id?: unknown } } | null)?.data?.id;
    if (typeof id === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(id)) return { kind: 'accepted', providerMessageId: id };
    return { kind: 'unknown', code: 'malformed_response', message: `Telnyx answered HTTP ${status} without a message id` };
  }
  const code = firstErrorCode(body);
  const label = answerLabel(status, code);
  if (status === 409) {
    // "A request with this key is already in progress": the first request is still being
    // worked on, and may well send. Not a refusal: ask again later with the same key, and the
    // completed request's answer comes back (as Resend's concurrent_idempotent_requests). The
    // messages API documents no other 409.
    return {
      kind: 'retryable',
      code: 'telnyx_key_in_progress',
      message: `Telnyx answered ${label}: a request with this Idempotency-Key is still in progress; asking again later with the same key`,
      retryAfterMs: parseRetryAfterMs(response.headers['retry-after'] ?? null, nowMs),
    };
  }
  if (status >= 500) {
    // With the same Idempotency-Key, a retry is answered from Telnyx's record if it had completed the send.
    return {
      kind: 'retryable',
      code: code === null ? 'telnyx_server_error' : `telnyx_${code}`,
      message: `Telnyx answered ${label}; the retry carries the same Idempotency-Key`,
      retryAfterMs: parseRetryAfterMs(response.headers['retry-after'] ?? null, nowMs),
    };
  }
  // A 429 is Telnyx's 10011, whatever the body says.
  const known = status === 429 ? BY_CODE['10011'] : code === null ? undefined : BY_CODE[code];
  if (known !== undefined) return codedOutcome(known, () => telnyxRetryAfterMs(response.headers, nowMs));
  return refusalByStatus('Telnyx', status, code);
}
