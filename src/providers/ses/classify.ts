/**
 * SES API v2 answers to SendEmail, as SubmitOutcomes. Pure. SES (a restJson1 service) names
 * its error in the `x-amzn-ErrorType` header (`MessageRejected:http://…`), else in the body's
 * `code` or `__type` (`com.amazonaws.sesv2#MessageRejected`), with the text in `message`; the
 * AWS SDKs read them in that order, and so does `parseSesError`.
 *
 * The rules (docs/providers/ses.md has the table and the reasons):
 * - throttling is recognised by the text SES documents ("Maximum sending rate exceeded",
 *   "Daily message quota exceeded") as well as by type (TooManyRequestsException,
 *   ThrottlingException) or 429; the daily quota is a rolling 24 h window, so it waits an hour;
 * - a refusal of this message's data is permanent (MessageRejected, BadRequestException);
 * - a refusal of the account that an operator can lift (sending paused, MAIL FROM domain not
 *   verified, configuration set missing, credentials refused) is retryable, so messages still
 *   inside their expiry go out once it is fixed; a suspended account is permanent;
 * - 503 says the request failed and is retryable; 500 (InternalFailure) and gateway errors
 *   do not say whether SES queued the message, so they are unknown.
 *
 * Messages are built from the status and the error type only: SES's text can quote addresses
 * ("The following identities failed the check …: ada@example.com").
 */
import type { PermanentReason, SubmitOutcome } from '../../domain/index.js';
import { parseRetryAfterMs } from '../sandbox/classify.js';

/** A status-bearing answer from SES. */
export interface SesResponse {
  status: number;
  /** The `x-amzn-ErrorType` header, if any. */
  errorType?: string | null;
  retryAfter?: string | null;
  /** The parsed JSON body, or null. */
  body: unknown;
}

export interface SesError {
  /** The error's shape name (`MessageRejected`), only when it is a plain identifier. */
  type: string | null;
  /** SES's text: used to classify, never echoed. */
  message: string | null;
}

/** How long a daily-quota refusal waits: the quota is a rolling 24 h window that frees capacity as old sends age out. */
export const DAILY_QUOTA_RETRY_MS = 60 * 60_000;

const THROTTLE_TYPES = new Set(['TooManyRequestsException', 'ThrottlingException', 'Throttling', 'ThrottledException', 'RequestLimitExceeded', 'SlowDown']);
const AUTH_TYPES = new Set([
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'IncompleteSignature',
  'IncompleteSignatureException',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'MissingAuthenticationToken',
  'MissingAuthenticationTokenException',
  'ExpiredToken',
  'ExpiredTokenException',
  'AccessDenied',
  'AccessDeniedException',
  'NotAuthorized',
  'OptInRequired',
  'RequestExpired',
]);
/** Per-account refusals an operator can lift: retried until the message expires. */
const ACCOUNT_RETRYABLE: Readonly<Record<string, string>> = {
  SendingPausedException: 'sending_paused',
  MailFromDomainNotVerifiedException: 'mail_from_not_verified',
  NotFoundException: 'configuration_set_not_found',
  LimitExceededException: 'limit_exceeded',
};
const PERMANENT: Readonly<Record<string, { reason: PermanentReason; code: string }>> = {
  MessageRejected: { reason: 'content_rejected', code: 'message_rejected' },
  AccountSuspendedException: { reason: 'unauthorized', code: 'account_suspended' },
  BadRequestException: { reason: 'other', code: 'bad_request' },
  ValidationException: { reason: 'other', code: 'bad_request' },
  SerializationException: { reason: 'other', code: 'bad_request' },
  InvalidParameterValue: { reason: 'other', code: 'bad_request' },
};
const SERVER_UNKNOWN_TYPES = new Set(['InternalFailure', 'InternalServiceErrorException', 'InternalServerError', 'InternalError']);
const SERVER_RETRYABLE_TYPES = new Set(['ServiceUnavailable', 'ServiceUnavailableException']);

/** `MessageRejected:http://…`, `com.amazonaws.sesv2#MessageRejected` → `MessageRejected` (the AWS SDKs' rule). */
function sanitizeType(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  let value = raw.split(',')[0] ?? '';
  value = value.split(':')[0] ?? '';
  if (value.includes('#')) value = value.split('#')[1] ?? '';
  value = value.trim();
  return /^[A-Za-z][A-Za-z0-9]{0,99}$/.test(value) ? value : null;
}

/** Reads the error type and text from an SES answer (header first, then body). */
export function parseSesError(response: SesResponse): SesError {
  const body = typeof response.body === 'object' && response.body !== null ? (response.body as Record<string, unknown>) : {};
  const type = sanitizeType(response.errorType) ?? sanitizeType(body.code) ?? sanitizeType(body.__type);
  const text = body.message ?? body.Message;
  return { type, message: typeof text === 'string' ? text : null };
}

function describe(status: number, type: string | null): string {
  return type === null ? `SES answered HTTP ${status}` : `SES answered HTTP ${status} (${type})`;
}

function messageId(body: unknown): string | null {
  const id = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).MessageId : undefined;
  return typeof id === 'string' && id !== '' ? id : null;
}

/** Classifies one SES answer to SendEmail. `nowMs` reads a Retry-After date, should SES ever send one. */
export function classifySesResponse(response: SesResponse, nowMs: number): SubmitOutcome {
  const { status } = response;
  if (status >= 200 && status < 300) {
    const id = messageId(response.body);
    // Every SES 200 carries a MessageId; one without it came from something else at base_url.
    if (id === null) return { kind: 'unknown', code: 'malformed_response', message: `HTTP ${status} without a MessageId; the message may have been sent` };
    return { kind: 'accepted', providerMessageId: id };
  }
  const { type, message: text } = parseSesError(response);
  const message = describe(status, type);
  const retryAfterMs = parseRetryAfterMs(response.retryAfter, nowMs);

  if (text !== null && /daily message quota exceeded/i.test(text)) {
    return { kind: 'throttled', code: 'daily_quota_exceeded', message, retryAfterMs: Math.max(retryAfterMs ?? 0, DAILY_QUOTA_RETRY_MS) };
  }
  if ((text !== null && /maximum sending rate exceeded/i.test(text)) || (type !== null && THROTTLE_TYPES.has(type)) || status === 429) {
    return { kind: 'throttled', code: 'rate_limited', message, retryAfterMs };
  }
  if (type !== null) {
    const permanent = PERMANENT[type];
    if (permanent) return { kind: 'permanent', ...permanent, message };
    const retryable = ACCOUNT_RETRYABLE[type];
    if (retryable) return { kind: 'retryable', code: retryable, message, retryAfterMs };
    if (AUTH_TYPES.has(type)) return { kind: 'retryable', code: 'provider_auth_failed', message, retryAfterMs };
    if (SERVER_RETRYABLE_TYPES.has(type)) return { kind: 'retryable', code: 'service_unavailable', message, retryAfterMs };
    if (SERVER_UNKNOWN_TYPES.has(type)) return { kind: 'unknown', code: 'server_error', message: `${message}; SES may have accepted the message` };
  }
  if (status === 401 || status === 403) return { kind: 'retryable', code: 'provider_auth_failed', message, retryAfterMs };
  if (status === 503) return { kind: 'retryable', code: 'service_unavailable', message, retryAfterMs };
  if (status === 502 || status === 504) return { kind: 'unknown', code: 'gateway_error', message: `${message}; SES may have accepted the message` };
  if (status >= 500) return { kind: 'unknown', code: 'server_error', message: `${message}; SES may have accepted the message` };
  if (status === 413) return { kind: 'permanent', reason: 'content_rejected', code: 'message_too_large', message };
  if (status === 400 || status === 422) return { kind: 'permanent', reason: 'other', code: 'bad_request', message };
  // A 404 or 3xx without an SES error type: base_url points somewhere that is not SES. Nothing
  // was processed, and an operator can fix it before the message expires.
  return { kind: 'retryable', code: 'unexpected_status', message, retryAfterMs };
}
