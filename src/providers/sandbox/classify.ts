/**
 * Turns what happened on the wire into a SubmitOutcome. Pure: no I/O, time passed in. The
 * rule that matters most: any failure after the request was completely written is `unknown`,
 * because the sandbox (like a real provider) may have accepted it; only failures before that
 * point, or definite answers that say "not processed", permit a retry.
 */
import type { PermanentReason, SubmitOutcome } from '../../domain/index.js';

/** A complete (or at least status-bearing) HTTP answer from the provider. */
export interface ProviderResponse {
  status: number;
  /** The raw Retry-After header, if any. */
  retryAfter?: string | null;
  /** The parsed JSON body, or null when it was absent or not JSON. */
  body: unknown;
}

/**
 * How far the exchange got before it failed. `connecting`: no connection yet (includes waiting
 * for a pooled socket); `writing`: connected, request not completely handed to the kernel;
 * `written`: the request's 'finish' fired, so the provider may hold the whole request.
 */
export type ExchangeStage = 'connecting' | 'writing' | 'written';

export interface TransportFailure {
  stage: ExchangeStage;
  /** `error` carries the errno-style code (ECONNREFUSED...); the others are Herald's own decisions. */
  cause: 'error' | 'timeout' | 'aborted';
  code?: string | undefined;
}

/**
 * Error codes that, raised before the request was completely written, prove it was not
 * received whole: connection setup failures, and resets or broken pipes while writing (e.g.
 * a pooled keep-alive socket the server had already closed). Anything not listed is `unknown`.
 */
const NOT_SENT_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ERR_STREAM_DESTROYED',
  'ERR_SOCKET_CLOSED',
]);

/** TLS handshake failures: the request is written only after a handshake succeeds. */
const TLS_ERROR_CODES: ReadonlySet<string> = new Set([
  'EPROTO',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** After the request was written, every failure is unknown; the code only says which kind. */
const WRITTEN_ERROR_CODES: Readonly<Record<string, string>> = {
  ECONNRESET: 'connection_lost',
  ECONNABORTED: 'connection_lost',
  EPIPE: 'connection_lost',
  ERR_STREAM_DESTROYED: 'connection_lost',
  ERR_SOCKET_CLOSED: 'connection_lost',
  ETIMEDOUT: 'timeout',
  ERR_SOCKET_CONNECTION_TIMEOUT: 'timeout',
  EHOSTUNREACH: 'connection_lost',
  ENETUNREACH: 'connection_lost',
  HPE_INVALID_CONSTANT: 'invalid_response',
  HPE_INVALID_VERSION: 'invalid_response',
  HPE_INVALID_STATUS: 'invalid_response',
  HPE_INVALID_HEADER_TOKEN: 'invalid_response',
  HPE_HEADER_OVERFLOW: 'invalid_response',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms, all in GMT.
const IMF_FIXDATE = /^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^[A-Z][a-z]+, (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function utc(year: number, month: string, day: string, h: string, m: string, s: string): number | null {
  const monthIndex = MONTHS.indexOf(month);
  const [dd, hh, mm, ss] = [Number(day.trim()), Number(h), Number(m), Number(s)];
  if (monthIndex < 0 || dd < 1 || dd > 31 || hh > 23 || mm > 59 || ss > 60) return null;
  const ms = Date.UTC(year, monthIndex, dd, hh, mm, ss);
  // Date.UTC rolls 31 Feb into March; a real HTTP-date never needs that.
  return new Date(ms).getUTCDate() === dd ? ms : null;
}

function parseHttpDate(value: string): number | null {
  const imf = IMF_FIXDATE.exec(value);
  if (imf !== null) {
    const [, day = '', month = '', year = '', h = '', m = '', s = ''] = imf;
    return utc(Number(year), month, day, h, m, s);
  }
  const rfc850 = RFC_850.exec(value);
  if (rfc850 !== null) {
    const [, day = '', month = '', yy = '', h = '', m = '', s = ''] = rfc850;
    // RFC 9110 reads a two-digit year as the nearest past century within 50 years; reading
    // 70-99 as 19xx agrees with that until 2070.
    const year = Number(yy) + (Number(yy) >= 70 ? 1900 : 2000);
    return utc(year, month, day, h, m, s);
  }
  const asctime = ASCTIME.exec(value);
  if (asctime !== null) {
    const [, month = '', day = '', h = '', m = '', s = '', year = ''] = asctime;
    return utc(Number(year), month, day, h, m, s);
  }
  return null;
}

/**
 * Reads Retry-After as delta-seconds or an HTTP-date into milliseconds from `nowMs` (never
 * negative); null when absent or malformed, so garbage never becomes a schedule.
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : null;
  }
  const at = parseHttpDate(trimmed);
  return at === null ? null : Math.max(0, at - nowMs);
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

/** Classifies a transport failure by how far the request got: unwritten is retryable, written is unknown. */
export function classifyTransportFailure(failure: TransportFailure): SubmitOutcome {
  const code = failure.code ?? null;
  const detail = code === null ? failure.cause : `${failure.cause} ${code}`;
  if (failure.stage !== 'written') {
    if (failure.cause === 'timeout') {
      const outcomeCode = failure.stage === 'connecting' ? 'connect_failed' : 'write_failed';
      return { kind: 'retryable', code: outcomeCode, message: 'timed out before the request was sent' };
    }
    if (failure.cause === 'aborted') {
      return { kind: 'retryable', code: 'aborted_before_send', message: 'aborted before the request was sent' };
    }
    if (code !== null && TLS_ERROR_CODES.has(code)) {
      return { kind: 'retryable', code: 'tls_failed', message: `request not sent: ${detail}` };
    }
    if (code !== null && NOT_SENT_ERROR_CODES.has(code)) {
      const outcomeCode = failure.stage === 'connecting' ? 'connect_failed' : 'write_failed';
      return { kind: 'retryable', code: outcomeCode, message: `request not sent: ${detail}` };
    }
    return { kind: 'unknown', code: 'transport_error', message: `unrecognised transport failure: ${detail}` };
  }
  if (failure.cause === 'timeout') {
    return { kind: 'unknown', code: 'timeout', message: 'no answer before the timeout; the provider may have accepted' };
  }
  if (failure.cause === 'aborted') {
    return { kind: 'unknown', code: 'aborted', message: 'aborted after the request was sent; the provider may have accepted' };
  }
  const written = (code === null ? undefined : WRITTEN_ERROR_CODES[code]) ?? 'transport_error';
  return { kind: 'unknown', code: written, message: `${detail} after the request was sent; the provider may have accepted` };
}
