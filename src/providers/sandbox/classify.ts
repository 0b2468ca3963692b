/**
 * Turns what happened on the wire into a SubmitOutcome. Pure: no I/O, time passed in. The
 * rule that matters most: any failure after the request was completely written is `unknown`,
 * because the sandbox (like a real provider) may have accepted it; only failures before that
 * point, or definite answers that say "not processed", permit a retry.
 */
import type { PermanentReason, SubmitOutcome } from '../../domain/index.js';
import { parseRetryAfterMs } from '../outbound-http/retry-after.js';

// Transport failures are classified by how far the request got, the same for every HTTP
// adapter: src/providers/outbound-http/. Re-exported here because the sandbox's classification (and its
// table tests) cover both halves.
export { classifyTransportFailure, type TransportFailure } from '../outbound-http/transport-failure.js';
export { parseRetryAfterMs } from '../outbound-http/retry-after.js';

/** A complete (or at least status-bearing) HTTP answer from the provider. */
export interface ProviderResponse {
  status: number;
  /** The raw Retry-After header, if any. */
  retryAfter?: string | null;
  /** The parsed JSON body, or null when it was absent or not JSON. */
  body: unknown;
}

/** The provider's error code from a JSON body, only if it is a plain identifier (it is echoed in messages). */
function errorCode(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const error = (body as Record<string, unknown>).error;
  return typeof error === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(error) ? error : null;
}

function providerMessageId(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  for (const field of ['id', 'sid', 'name']) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

// Messages are built from the status and a sanitised error code only: providers echo
// destinations in their error text (Twilio does), and outcomes end up in logs and dashboards.
function describe(status: number, code: string | null): string {
  return code === null ? `provider answered HTTP ${status}` : `provider answered HTTP ${status} (${code})`;
}

/** Classifies a provider answer by status (and body error code, Retry-After) into an outcome. */
export function classifyResponse(response: ProviderResponse, nowMs: number): SubmitOutcome {
  const { status, body } = response;
  const code = errorCode(body);
  const message = describe(status, code);
  const retryAfterMs = parseRetryAfterMs(response.retryAfter, nowMs);

  if (status >= 200 && status < 300) {
    return { kind: 'accepted', providerMessageId: providerMessageId(body) };
  }
  if (status === 429) return { kind: 'throttled', code: 'rate_limited', message, retryAfterMs };
  if (status === 401 || status === 403) {
    // A configuration problem, not bad message data: retrying until expiry lets an operator fix the key.
    return { kind: 'retryable', code: 'provider_auth_failed', message, retryAfterMs };
  }
  if (status === 408) return { kind: 'retryable', code: 'request_timeout', message, retryAfterMs };
  if (status === 502 || status === 504) {
    // Gateway errors come from a proxy in front of the provider, which may have forwarded the
    // request before its upstream failed: not the sandbox's own "not recorded" 5xx.
    return { kind: 'unknown', code: 'gateway_error', message };
  }
  if (status >= 500) return { kind: 'retryable', code: 'server_error', message, retryAfterMs };
  if (status === 400 || status === 404 || status === 410 || status === 413 || status === 422) {
    let reason: PermanentReason = 'other';
    if (code === 'invalid_destination') reason = 'invalid_destination';
    else if (code === 'content_rejected' || status === 413) reason = 'content_rejected';
    return { kind: 'permanent', reason, code: code ?? `http_${status}`, message };
  }
  // 1xx/3xx/other 4xx: nothing the sandbox sends; a redirect or odd status means the base URL
  // is wrong. Not processed, and an operator can fix it before expiry.
  return { kind: 'retryable', code: 'unexpected_status', message, retryAfterMs };
}
