/**
 * APNs answers as SubmitOutcomes. Pure. An answer is a `:status` and, for a failure, a JSON body
 * `{"reason": "<ReasonCode>"}` (410 adds `timestamp`)
 * (https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns).
 * Messages are built from the status and the reason code only.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';
import { classifyTransportFailure } from '../outbound-http/transport-failure.js';
import type { Http2Failure } from './http2-exchange.js';

export interface ApnsResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

/** Device tokens APNs will not deliver to, for this topic and environment: the registration is dead or wrong. */
const BAD_TOKEN_REASONS: ReadonlySet<string> = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic', 'MissingDeviceToken']);

/** The reason code of an error body, if it is a plain identifier. */
export function apnsReason(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const reason = (body as Record<string, unknown>).reason;
  return typeof reason === 'string' && /^[A-Za-z]{1,64}$/.test(reason) ? reason : null;
}

/** True when APNs refused the provider token as expired: the one answer a regenerated token may fix. */
export function providerTokenExpired(response: ApnsResponse): boolean {
  return response.status === 403 && apnsReason(response.body) === 'ExpiredProviderToken';
}

function describe(status: number, reason: string | null): string {
  return reason === null ? `APNs answered ${status}` : `APNs answered ${status} ${reason}`;
}

/** Classifies an APNs answer (after any provider-token regeneration has been tried). */
export function classifyApnsResponse(response: ApnsResponse, nowMs: number): SubmitOutcome {
  const { status, headers, body } = response;
  if (status === 200) {
    // apns-unique-id is APNs's own id (development environment only); apns-id echoes ours.
    return { kind: 'accepted', providerMessageId: headers['apns-unique-id'] ?? headers['apns-id'] ?? null };
  }
  const reason = apnsReason(body);
  const message = describe(status, reason);
  // Apple documents no Retry-After; one that comes is honoured as a lower bound.
  const retryAfterMs = parseRetryAfterMs(headers['retry-after'], nowMs);

  if (status === 410) return { kind: 'permanent', reason: 'invalid_destination', code: 'apns_unregistered', message };
  if (status === 400) {
    if (reason !== null && BAD_TOKEN_REASONS.has(reason)) return { kind: 'permanent', reason: 'invalid_destination', code: 'apns_bad_token', message };
    // The connection sat idle too long; APNs closes it without processing the request.
    if (reason === 'IdleTimeout') return { kind: 'retryable', code: 'apns_idle_timeout', message, retryAfterMs };
    // BadCollapseId, BadExpirationDate, BadMessageId, BadPriority, BadTopic, DuplicateHeaders,
    // InvalidPushType, MissingTopic, PayloadEmpty, TopicDisallowed: the request, not the device.
    return { kind: 'permanent', reason: 'other', code: 'apns_bad_request', message };
  }
  if (status === 403) {
    // ExpiredProviderToken (after the one regeneration allowed), InvalidProviderToken,
    // MissingProviderToken, Forbidden, BadCertificate(Environment), UnrelatedKeyIdInToken,
    // BadEnvironmentKeyInToken: the account's key, team or environment is wrong.
    return { kind: 'permanent', reason: 'unauthorized', code: reason === 'ExpiredProviderToken' ? 'apns_provider_token_expired' : 'apns_auth_failed', message };
  }
  if (status === 413) return { kind: 'permanent', reason: 'content_rejected', code: 'apns_payload_too_large', message };
  if (status === 429) {
    // TooManyProviderTokenUpdates is about the account's token; TooManyRequests is "too many
    // requests for the same device token": only that delivery waits.
    if (reason === 'TooManyProviderTokenUpdates') return { kind: 'throttled', code: 'apns_too_many_token_updates', message, retryAfterMs, scope: 'account' };
    return { kind: 'throttled', code: 'apns_too_many_requests', message, retryAfterMs, scope: 'destination' };
  }
  // 500 InternalServerError, 503 ServiceUnavailable and Shutdown.
  if (status >= 500) return { kind: 'retryable', code: status === 503 ? 'apns_unavailable' : 'apns_server_error', message, retryAfterMs };
  // 404 BadPath, 405 MethodNotAllowed and anything else APNs does not document.
  if (status >= 400) return { kind: 'permanent', reason: 'other', code: `apns_http_${status}`, message };
  return { kind: 'retryable', code: 'unexpected_status', message, retryAfterMs };
}

/**
 * Classifies an HTTP/2 failure: a stream APNs refused unprocessed, or one that failed before it
 * was completely written (APNs cannot hold a request without its END_STREAM), is retryable;
 * after that it is unknown, as for every transport (outbound-http/transport-failure.ts).
 */
export function classifyApnsTransportFailure(failure: Http2Failure): SubmitOutcome {
  if (failure.refused)
    return { kind: 'retryable', code: 'apns_refused_stream', message: 'APNs refused the stream without processing it (REFUSED_STREAM or GOAWAY)' };
  if (failure.stage === 'writing' && failure.cause === 'error') {
    return { kind: 'retryable', code: 'write_failed', message: `the stream failed before the request was complete (${failure.code ?? 'error'}); not sent` };
  }
  return classifyTransportFailure(failure);
}
