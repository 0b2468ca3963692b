/**
 * A transport failure (no HTTP status arrived) turned into a SubmitOutcome, by how far the
 * request got. The rule that matters most: any failure after the request was completely
 * written is `unknown`, because the provider may have accepted it; only failures before that
 * point permit a retry. Shared by every HTTP adapter (sandbox, resend, postmark): the stage is
 * a fact about the socket, not about the provider. Pure.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import type { LookupResult } from '../provider.js';

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

/**
 * Names an exception an adapter did not expect by its name and errno-style code only: an
 * arbitrary message could quote a destination or a body, and outcomes end up in logs.
 */
export function describeUnexpected(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `${name} ${code}` : name;
}

/**
 * A look-up that got no answer: an error to try again later, whatever the stage (a look-up
 * changes nothing at the provider, so how far it got does not matter).
 */
export function classifyLookupFailure(failure: TransportFailure): LookupResult {
  if (failure.cause === 'timeout') return { kind: 'error', code: 'timeout', message: 'no answer to the look-up before the timeout' };
  if (failure.cause === 'aborted') return { kind: 'error', code: 'aborted', message: 'look-up aborted' };
  return { kind: 'error', code: 'transport_error', message: `look-up failed: ${failure.code ?? 'transport error'}` };
}
