/**
 * Push service answers (RFC 8030 and the services' own documentation) as SubmitOutcomes. Pure.
 * Messages are built from the status and the push service's host only: an endpoint's path is a
 * capability, and a body may quote it.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';

export interface WebPushResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

/** Classifies a push service's answer to one push message request. */
export function classifyWebPushResponse(response: WebPushResponse, host: string, nowMs: number): SubmitOutcome {
  const { status, headers } = response;
  // 201 Created (RFC 8030 §5); some services answer 200 or 202. Location names the push message resource.
  if (status >= 200 && status < 300) return { kind: 'accepted', providerMessageId: headers.location ?? null };
  const message = `push service ${host} answered HTTP ${status}`;
  const retryAfterMs = parseRetryAfterMs(headers['retry-after'], nowMs);
  // 404 "should not be used again", 410 "no longer valid" (autopush; FCM, Apple and WNS alike): the subscription is gone.
  if (status === 404 || status === 410) return { kind: 'permanent', reason: 'invalid_destination', code: 'webpush_unregistered', message };
  if (status === 413) return { kind: 'permanent', reason: 'content_rejected', code: 'webpush_payload_too_large', message };
  if (status === 429) {
    // RFC 8030 §8.4: a rate limit "for push message delivery to a push resource", i.e. this
    // subscription; and one account sends through many push services, so pausing all of it for
    // one service's limit would be wrong twice over.
    return { kind: 'throttled', code: 'webpush_rate_limited', message, retryAfterMs, scope: 'destination' };
  }
  // Windows' push service (WNS) answers 406 Not Acceptable when "this cloud service exceeded its throttle limit".
  if (status === 406) return { kind: 'throttled', code: 'webpush_rate_limited', message, retryAfterMs, scope: 'destination' };
  // 401/403: the VAPID JWT or key was refused, or the subscription belongs to another key (RFC 8292 §4).
  if (status === 401 || status === 403) return { kind: 'permanent', reason: 'unauthorized', code: 'webpush_vapid_rejected', message };
  // 400: bad headers (TTL, Topic, Urgency), bad encryption, bad VAPID: the request, not the subscriber.
  if (status === 400) return { kind: 'permanent', reason: 'other', code: 'webpush_bad_request', message };
  // A gateway in front of the push service may have forwarded the request before failing.
  if (status === 502 || status === 504) return { kind: 'unknown', code: 'gateway_error', message };
  if (status >= 500) return { kind: 'retryable', code: 'webpush_server_error', message, retryAfterMs };
  if (status >= 400) return { kind: 'permanent', reason: 'other', code: `webpush_http_${status}`, message };
  // Autopush's 301 for a bridged endpoint: "stop using the old URL immediately"; the new one is the browser's to register.
  if (status === 301 || status === 308)
    return { kind: 'permanent', reason: 'invalid_destination', code: 'webpush_unregistered', message: `${message} (moved: the subscription must be renewed)` };
  return { kind: 'retryable', code: 'unexpected_status', message, retryAfterMs };
}
