/**
 * FCM HTTP v1 answers as SubmitOutcomes. Pure: status, Retry-After and the parsed body in, time
 * passed in. Errors are google.rpc.Status objects, `{error: {code, message, status, details}}`,
 * whose `details` say what went wrong: a `google.firebase.fcm.v1.FcmError` with an `errorCode`
 * (https://firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode), a `google.rpc.BadRequest`
 * naming the invalid field, a `google.rpc.QuotaFailure` naming the exceeded quota. Messages are
 * built from the status and those enum names only: never from FCM's own text.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';

/** A status-bearing answer from FCM or from the token endpoint. */
export interface FcmResponse {
  status: number;
  retryAfter?: string | null;
  body: unknown;
}

/**
 * FCM's advice for an exceeded project quota: "use exponential backoff with a minimum initial
 * delay of 1 minute" (ErrorCode, QUOTA_EXCEEDED, "Message rate exceeded"). Applied as a lower
 * bound where FCM says nothing sooner; device-rate throttles get no such floor (FCM advises plain
 * exponential backoff for those, which the retry ladder does).
 */
export const PROJECT_QUOTA_MIN_DELAY_MS = 60_000;

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';
const QUOTA_FAILURE = 'type.googleapis.com/google.rpc.QuotaFailure';

interface RpcError {
  /** google.rpc.Code name (INVALID_ARGUMENT, NOT_FOUND...), if it is one. */
  status: string | null;
  /** The FcmError's errorCode (UNREGISTERED, QUOTA_EXCEEDED...), if any. */
  errorCode: string | null;
  /** A google.rpc.BadRequest is present (even without field violations). */
  badRequest: boolean;
  /** The fields the BadRequest names. */
  badFields: string[];
  /** The QuotaFailure's violations, subject and description joined, lower-cased. */
  quotaViolations: string[];
}

const ENUM_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

function enumName(v: unknown): string | null {
  return typeof v === 'string' && ENUM_NAME.test(v) ? v : null;
}

function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x)) : [];
}

/** Reads the google.rpc.Status of an error body; null when the body is not one. */
export function readRpcError(body: unknown): RpcError | null {
  if (typeof body !== 'object' || body === null) return null;
  const error = (body as Record<string, unknown>).error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return null;
  const e = error as Record<string, unknown>;
  const parsed: RpcError = { status: enumName(e.status), errorCode: null, badRequest: false, badFields: [], quotaViolations: [] };
  for (const detail of records(e.details)) {
    const type = detail['@type'];
    if (type === FCM_ERROR) parsed.errorCode = enumName(detail.errorCode) ?? parsed.errorCode;
    else if (type === BAD_REQUEST) {
      parsed.badRequest = true;
      for (const v of records(detail.fieldViolations)) if (typeof v.field === 'string') parsed.badFields.push(v.field);
    } else if (type === QUOTA_FAILURE) {
      for (const v of records(detail.violations)) {
        parsed.quotaViolations.push(
          [v.subject, v.description]
            .filter((s) => typeof s === 'string')
            .join(' ')
            .toLowerCase(),
        );
      }
    }
  }
  return parsed;
}

function describe(status: number, rpc: RpcError | null): string {
  const names = [rpc?.status, rpc?.errorCode].filter((n): n is string => typeof n === 'string' && n !== '');
  const unique = [...new Set(names)];
  return unique.length === 0 ? `FCM answered HTTP ${status}` : `FCM answered HTTP ${status} (${unique.join(', ')})`;
}

/**
 * An INVALID_ARGUMENT is about the registration token when the BadRequest names `message.token`,
 * or when FCM sends only its FcmError, as in its documented answer for an invalid token ("The
 * registration token is not a valid FCM registration token", details: one FcmError). A BadRequest
 * about another field, an empty one ("Android message is too big") or no details at all (a
 * payload too large) are about the message: the token may be fine and must not be dropped.
 */
export function invalidArgumentIsAboutToken(rpc: RpcError | null): boolean {
  if (rpc === null) return false;
  if (rpc.badFields.includes('message.token')) return true;
  return !rpc.badRequest && rpc.errorCode === 'INVALID_ARGUMENT';
}

/**
 * Whose quota an exceeded one is. FCM returns a google.rpc.QuotaFailure "to specify which quota
 * was exceeded" (the message rate, a device's message rate, a topic's) without publishing its
 * wording, so a violation that names a device is the device's; anything else is taken as the
 * project's, the safe reading: pausing the whole account cannot make FCM's overload worse.
 */
export function quotaScope(rpc: RpcError | null): 'account' | 'destination' {
  return rpc !== null && rpc.quotaViolations.some((v) => v.includes('device')) ? 'destination' : 'account';
}

/** True when FCM refused the access token itself (401 UNAUTHENTICATED that is not about a third party's key): refresh it and try once more. */
export function accessTokenRejected(response: FcmResponse): boolean {
  if (response.status !== 401) return false;
  const rpc = readRpcError(response.body);
  return rpc?.errorCode !== 'THIRD_PARTY_AUTH_ERROR' && rpc?.errorCode !== 'APNS_AUTH_ERROR';
}

function messageName(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const name = (body as Record<string, unknown>).name;
  return typeof name === 'string' && name !== '' ? name : null;
}

/** Classifies an answer of `messages:send` (after any access-token refresh has been tried). */
export function classifyFcmResponse(response: FcmResponse, nowMs: number): SubmitOutcome {
  const { status, body } = response;
  if (status >= 200 && status < 300) return { kind: 'accepted', providerMessageId: messageName(body) };
  const rpc = readRpcError(body);
  const message = describe(status, rpc);
  const retryAfterMs = parseRetryAfterMs(response.retryAfter, nowMs);
  const errorCode = rpc?.errorCode ?? null;

  switch (errorCode) {
    case 'UNREGISTERED':
      return { kind: 'permanent', reason: 'invalid_destination', code: 'fcm_unregistered', message };
    case 'SENDER_ID_MISMATCH':
      // The token belongs to another Firebase project: nothing this account sends will reach it.
      return { kind: 'permanent', reason: 'other', code: 'fcm_sender_id_mismatch', message };
    case 'THIRD_PARTY_AUTH_ERROR':
    case 'APNS_AUTH_ERROR':
      // The project's APNs key or Web Push credential is missing or refused by Apple or the push service.
      return { kind: 'permanent', reason: 'unauthorized', code: 'fcm_third_party_auth_error', message };
    case 'UNAVAILABLE':
      return { kind: 'retryable', code: 'fcm_unavailable', message, retryAfterMs };
    case 'INTERNAL':
      return { kind: 'retryable', code: 'fcm_internal', message, retryAfterMs };
    default:
      break;
  }
  if (status === 429 || errorCode === 'QUOTA_EXCEEDED') {
    const scope = quotaScope(rpc);
    if (scope === 'destination') return { kind: 'throttled', code: 'fcm_device_quota_exceeded', message, retryAfterMs, scope };
    return { kind: 'throttled', code: 'fcm_quota_exceeded', message, retryAfterMs: Math.max(retryAfterMs ?? 0, PROJECT_QUOTA_MIN_DELAY_MS), scope };
  }
  if (status === 400 || errorCode === 'INVALID_ARGUMENT') {
    if (invalidArgumentIsAboutToken(rpc)) return { kind: 'permanent', reason: 'invalid_destination', code: 'fcm_bad_token', message };
    return { kind: 'permanent', reason: 'content_rejected', code: 'fcm_invalid_argument', message };
  }
  if (status === 401) return { kind: 'permanent', reason: 'unauthorized', code: 'fcm_unauthenticated', message };
  if (status === 403) return { kind: 'permanent', reason: 'unauthorized', code: 'fcm_permission_denied', message };
  // A 404 without UNREGISTERED: the project (or the path under base_url) does not exist.
  if (status === 404) return { kind: 'permanent', reason: 'other', code: 'fcm_project_not_found', message };
  if (status === 502 || status === 504) {
    // A gateway's answer (Google's front end), not FCM's own "not processed": it may have forwarded the request.
    return { kind: 'unknown', code: 'gateway_error', message };
  }
  if (status >= 500) return { kind: 'retryable', code: 'fcm_server_error', message, retryAfterMs };
  if (status >= 400) return { kind: 'permanent', reason: 'other', code: `fcm_http_${status}`, message };
  // 1xx/3xx: nothing FCM sends; a redirect means base_url is wrong, which an operator can fix before expiry.
  return { kind: 'retryable', code: 'unexpected_status', message, retryAfterMs };
}

/** What the token endpoint answered: an access token, or the outcome the send ends with (nothing reached FCM). */
export type TokenAnswer = { kind: 'token'; accessToken: string; expiresAtMs: number } | { kind: 'failed'; outcome: SubmitOutcome };

/**
 * Classifies the OAuth 2 token endpoint's answer to a JWT bearer grant (RFC 7523). No message
 * was sent yet, so nothing here is `unknown`: a refused key (`invalid_grant`, `invalid_client`:
 * revoked, deleted, or a clock off by minutes) is permanent `unauthorized`; an unavailable or
 * throttled endpoint is retryable.
 */
export function classifyTokenResponse(response: FcmResponse, nowMs: number): TokenAnswer {
  const { status, body } = response;
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const oauthError = typeof b.error === 'string' && /^[a-z_]{1,64}$/.test(b.error) ? b.error : null;
  const message = oauthError === null ? `the token endpoint answered HTTP ${status}` : `the token endpoint answered HTTP ${status} (${oauthError})`;
  const retryAfterMs = parseRetryAfterMs(response.retryAfter, nowMs);
  if (status === 200) {
    const token = b.access_token;
    const expiresIn = b.expires_in;
    if (typeof token !== 'string' || token === '' || typeof expiresIn !== 'number' || !(expiresIn > 0)) {
      return {
        kind: 'failed',
        outcome: { kind: 'retryable', code: 'fcm_token_malformed', message: 'the token endpoint answered 200 without an access token' },
      };
    }
    return { kind: 'token', accessToken: token, expiresAtMs: nowMs + expiresIn * 1000 };
  }
  if (status === 429) return { kind: 'failed', outcome: { kind: 'retryable', code: 'fcm_token_throttled', message, retryAfterMs } };
  if (status >= 500 || status < 400) return { kind: 'failed', outcome: { kind: 'retryable', code: 'fcm_token_unavailable', message, retryAfterMs } };
  return { kind: 'failed', outcome: { kind: 'permanent', reason: 'unauthorized', code: 'fcm_auth_failed', message } };
}
