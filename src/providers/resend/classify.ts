/**
 * Resend's answers to `POST /emails` as SubmitOutcomes. Pure: status, header fields and the
 * parsed body in, time passed in. Error bodies are `{"statusCode", "name", "message"}`
 * (https://resend.com/docs/api-reference/errors); the `name` decides, the `message` is never
 * read (it may quote an address). docs/providers/resend.md has the table and why each row.
 *
 * What makes Resend different from a provider without idempotency: every attempt carries the
 * delivery's Idempotency-Key, and Resend answers a repeated key (same payload, within 24 h)
 * with the original answer without sending again. So a 5xx, which Resend does not document as
 * "not processed", still permits a retry: if the first call was processed, the retry replays
 * its answer. Failures with no answer at all stay `unknown` (transport-failure.ts); the
 * account's `resend_same_key` policy settles those the same way.
 */
import type { PermanentReason, SubmitOutcome } from '../../domain/index.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';

export interface ResendResponse {
  status: number;
  /** Header fields, names lower-cased. */
  headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or null when it was absent or not JSON. */
  body: unknown;
}

/** Refusals for good, by error name, and the permanent reason each one is. */
const PERMANENT_NAMES: Readonly<Record<string, PermanentReason>> = {
  validation_error: 'other',
  missing_required_field: 'other',
  invalid_from_address: 'other',
  invalid_attachment: 'content_rejected',
  invalid_access: 'other',
  invalid_parameter: 'other',
  invalid_region: 'other',
  invalid_idempotency_key: 'other',
  // The key was used within 24 h for another payload: the same request cannot succeed. The
  // earlier attempt may well have been sent; an operator sees this code on the attempt.
  invalid_idempotent_request: 'other',
  // 451: "We may have found a security issue with the request."
  security_error: 'content_rejected',
};

// Seconds until the window resets (Resend follows the IETF RateLimit header draft 6). Seven
// digits at most: anything larger is not a window, and garbage never becomes a schedule.
const DELTA_SECONDS = /^\d{1,7}$/;

/** The error `name`, only when it is a plain identifier (it is echoed in outcome codes). */
export function resendErrorName(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const name = (body as Record<string, unknown>).name;
  return typeof name === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(name) ? name : null;
}

/**
 * When a throttled client may come back: `retry-after` (delta-seconds, or an HTTP-date), else
 * `ratelimit-reset` (delta-seconds); null when neither is readable.
 */
export function resendRetryAfterMs(headers: Readonly<Record<string, string>>, nowMs: number): number | null {
  const retryAfter = parseRetryAfterMs(headers['retry-after'], nowMs);
  if (retryAfter !== null) return retryAfter;
  const reset = headers['ratelimit-reset']?.trim();
  return reset !== undefined && DELTA_SECONDS.test(reset) ? Number(reset) * 1000 : null;
}

function describe(status: number, name: string | null): string {
  return name === null ? `Resend answered HTTP ${status}` : `Resend answered HTTP ${status} (${name})`;
}

function acceptedId(body: unknown): string | null {
  const id = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).id : undefined;
  return typeof id === 'string' && id !== '' ? id : null;
}

/** Classifies one answer to `POST /emails`. */
export function classifyResendResponse(response: ResendResponse, nowMs: number): SubmitOutcome {
  const { status, body } = response;
  const name = resendErrorName(body);
  const message = describe(status, name);
  const retryAfterMs = resendRetryAfterMs(response.headers, nowMs);

  if (status >= 200 && status < 300) return { kind: 'accepted', providerMessageId: acceptedId(body) };
  if (status === 429) {
    // rate_limit_exceeded, daily_quota_exceeded, monthly_quota_exceeded: nothing was sent.
    return { kind: 'throttled', code: name ?? 'rate_limited', message, retryAfterMs };
  }
  if (status === 401 || status === 403) {
    // missing_api_key, invalid_api_key, restricted_api_key, validation_error (a key that is not
    // valid, an unverified domain, test-mode limits): no attempt succeeds until the account is fixed.
    return { kind: 'permanent', reason: 'unauthorized', code: name ?? `http_${status}`, message };
  }
  if (status === 409) {
    if (name !== null && PERMANENT_NAMES[name] !== undefined) return { kind: 'permanent', reason: PERMANENT_NAMES[name], code: name, message };
    // concurrent_idempotent_requests: "safe to retry this request later". Any other conflict
    // is on the key too, and the key keeps a retry from sending twice.
    return { kind: 'retryable', code: name ?? 'conflict', message, retryAfterMs };
  }
  if (status === 400 || status === 413 || status === 422 || status === 451) {
    const fallback: PermanentReason = status === 413 || status === 451 ? 'content_rejected' : 'other';
    const reason = (name === null ? undefined : PERMANENT_NAMES[name]) ?? fallback;
    return { kind: 'permanent', reason, code: name ?? `http_${status}`, message };
  }
  if (status >= 500) {
    // application_error / internal_server_error ("try the request again later") and gateway
    // errors: see the header. The retry carries the same key, so it cannot send twice.
    return { kind: 'retryable', code: name ?? 'server_error', message, retryAfterMs };
  }
  // 404 not_found / 405 method_not_allowed (a wrong base_url), 3xx, other 4xx: not processed,
  // and an operator can fix the endpoint before the message expires.
  return { kind: 'retryable', code: 'unexpected_status', message, retryAfterMs };
}
