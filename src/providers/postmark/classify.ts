/**
 * Postmark's answers to `POST /email` as SubmitOutcomes. Pure. Postmark answers with an HTTP
 * status and a body `{"ErrorCode", "Message", ...}`: 200 with ErrorCode 0 and a MessageID is
 * accepted; 422 carries the API error code that decides; 401 a bad token; 429 a rate limit
 * (no Retry-After documented); 500 "an issue with Postmark's servers processing your request.
 * In most cases the message is lost"; 503 a planned outage
 * (https://postmarkapp.com/developer/api/overview). The `Message` is never read (it quotes
 * addresses). docs/providers/postmark.md has the table and why each row.
 *
 * Postmark documents no idempotency key, so a retry after an answer that may hide a send would
 * be a second e-mail. What makes that bearable is the look-up (lookup.ts): an `unknown` is
 * searched for by its metadata before anything is sent again.
 */
import type { PermanentReason, SubmitOutcome } from '../../domain/index.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';

export interface PostmarkResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or null when it was absent or not JSON. */
  body: unknown;
}

type Row = { kind: 'permanent'; reason: PermanentReason; code: string } | { kind: 'retryable'; code: string } | { kind: 'throttled'; code: string };

/** Postmark API error codes (https://postmarkapp.com/developer/api/overview#error-codes) a send can get. */
export const POSTMARK_ERROR_CODES: Readonly<Record<number, Row>> = {
  10: { kind: 'permanent', reason: 'unauthorized', code: 'bad_or_missing_api_token' },
  // "Maintenance": Postmark is not taking messages; nothing was processed.
  100: { kind: 'retryable', code: 'maintenance' },
  // Illegal addresses, no body, more than 50 recipients: the request as built cannot succeed.
  300: { kind: 'permanent', reason: 'other', code: 'invalid_email_request' },
  400: { kind: 'permanent', reason: 'unauthorized', code: 'sender_signature_not_found' },
  401: { kind: 'permanent', reason: 'unauthorized', code: 'sender_signature_not_confirmed' },
  402: { kind: 'permanent', reason: 'other', code: 'invalid_json' },
  403: { kind: 'permanent', reason: 'other', code: 'incompatible_json' },
  // "Not allowed to send": the account ran out of credits. Nothing is wrong with the message,
  // and buying credits fixes it; the ladder and the message's expiry bound the wait.
  405: { kind: 'retryable', code: 'not_allowed_to_send' },
  // The recipient hard-bounced, complained or was deactivated on this server: Postmark refuses
  // every message to it until it is reactivated.
  406: { kind: 'permanent', reason: 'unsubscribed_at_provider', code: 'inactive_recipient' },
  409: { kind: 'permanent', reason: 'other', code: 'json_required' },
  411: { kind: 'permanent', reason: 'content_rejected', code: 'forbidden_attachment_type' },
  // A pending account may only send to its own domains; an account that "may not send" is
  // suspended. Neither changes within a message's life without a person.
  412: { kind: 'permanent', reason: 'unauthorized', code: 'account_pending' },
  413: { kind: 'permanent', reason: 'unauthorized', code: 'account_may_not_send' },
  429: { kind: 'throttled', code: 'rate_limit_exceeded' },
};

/** The body's ErrorCode when it is a non-negative integer, else null. */
export function postmarkErrorCode(body: unknown): number | null {
  const code = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).ErrorCode : undefined;
  return typeof code === 'number' && Number.isInteger(code) && code >= 0 ? code : null;
}

function describe(status: number, code: number | null): string {
  return code === null ? `Postmark answered HTTP ${status}` : `Postmark answered HTTP ${status} (ErrorCode ${code})`;
}

function byErrorCode(code: number, message: string, retryAfterMs: number | null): SubmitOutcome {
  const row = POSTMARK_ERROR_CODES[code];
  if (row === undefined) return { kind: 'permanent', reason: 'other', code: `postmark_error_${code}`, message };
  if (row.kind === 'permanent') return { kind: 'permanent', reason: row.reason, code: row.code, message };
  return { kind: row.kind, code: row.code, message, retryAfterMs };
}

/** Classifies one answer to `POST /email`. */
export function classifyPostmarkResponse(response: PostmarkResponse, nowMs: number): SubmitOutcome {
  const { status, body } = response;
  const errorCode = postmarkErrorCode(body);
  const message = describe(status, errorCode);
  // Postmark documents no Retry-After; one that a proxy or a future Postmark sends is honoured.
  const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], nowMs);

  if (status === 200) {
    if (errorCode === 0) {
      const id = (body as Record<string, unknown>).MessageID;
      return { kind: 'accepted', providerMessageId: typeof id === 'string' && id !== '' ? id : null };
    }
    if (errorCode !== null) return byErrorCode(errorCode, message, retryAfterMs);
    // A 200 whose body was cut off or is not Postmark's: it may be an acceptance. The look-up
    // (by metadata) tells, where a guess either way could lose or double the message.
    return { kind: 'unknown', code: 'unreadable_answer', message: `${message} with an unreadable body; the message may have been accepted` };
  }
  if (status === 401) return { kind: 'permanent', reason: 'unauthorized', code: 'bad_or_missing_api_token', message };
  if (status === 422) {
    if (errorCode !== null) return byErrorCode(errorCode, message, retryAfterMs);
    return { kind: 'permanent', reason: 'other', code: 'http_422', message };
  }
  if (status === 429) return { kind: 'throttled', code: 'rate_limit_exceeded', message, retryAfterMs };
  if (status === 413) return { kind: 'permanent', reason: 'content_rejected', code: 'payload_too_large', message };
  // "During planned service outages, Postmark API services will return this HTTP response."
  if (status === 503) return { kind: 'retryable', code: 'service_unavailable', message, retryAfterMs };
  if (status === 500) {
    // "In most cases the message is lost": most is not all, and a retry without a key could
    // send twice. Unknown, and the look-up settles it.
    return { kind: 'unknown', code: 'server_error', message: `${message}; Postmark may have accepted the message` };
  }
  if (status >= 500) {
    // 502/504 come from a proxy in front of Postmark, which may have forwarded the request.
    return { kind: 'unknown', code: 'gateway_error', message: `${message}; Postmark may have accepted the message` };
  }
  // 404 (a wrong base_url), 3xx, other 4xx: nothing Postmark sends to a well-formed send; not
  // processed, and an operator can fix the endpoint before the message expires.
  return { kind: 'retryable', code: 'unexpected_status', message, retryAfterMs };
}
