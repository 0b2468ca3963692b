/**
 * The SES classifier on a table of answers shaped as SES API v2 sends them: status,
 * `x-amzn-ErrorType` (or the body's `__type` / `code`), `{"message": …}`. Error types from the
 * SendEmail API reference and the AWS common errors; the throttling texts from
 * manage-sending-quotas-errors (SES Developer Guide).
 */
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import { classifySesResponse, DAILY_QUOTA_RETRY_MS, parseSesError, type SesResponse } from '../../../src/providers/ses/classify.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const header = (type: string) => `${type}:http://internal.amazon.com/coral/com.amazonaws.sesv2/`;
const err = (status: number, type: string | null, message: string): SesResponse => ({
  status,
  errorType: type === null ? null : header(type),
  body: { message },
});

type Expected = Partial<Extract<SubmitOutcome, { kind: 'throttled' }>> | Partial<Extract<SubmitOutcome, { kind: 'permanent' }>> | Partial<SubmitOutcome>;

const table: Array<[string, SesResponse, Expected]> = [
  ['200 with a MessageId', { status: 200, body: { MessageId: '0100018c-abc-000000' } }, { kind: 'accepted', providerMessageId: '0100018c-abc-000000' }],
  ['200 without a MessageId (not SES at base_url)', { status: 200, body: null }, { kind: 'unknown', code: 'malformed_response' }],
  [
    '429 TooManyRequestsException "Maximum sending rate exceeded."',
    err(429, 'TooManyRequestsException', 'Maximum sending rate exceeded.'),
    { kind: 'throttled', code: 'rate_limited', retryAfterMs: null },
  ],
  ['429 with no type at all', { status: 429, body: null }, { kind: 'throttled', code: 'rate_limited' }],
  [
    '400 ThrottlingException (common error) in __type',
    { status: 400, body: { __type: 'com.amazonaws.sesv2#ThrottlingException', message: 'Rate exceeded' } },
    { kind: 'throttled', code: 'rate_limited' },
  ],
  ['400 Throttling, sending rate text', err(400, 'Throttling', 'Maximum sending rate exceeded.'), { kind: 'throttled', code: 'rate_limited' }],
  [
    '"Daily message quota exceeded." waits an hour',
    err(400, 'LimitExceededException', 'Daily message quota exceeded.'),
    { kind: 'throttled', code: 'daily_quota_exceeded', retryAfterMs: DAILY_QUOTA_RETRY_MS },
  ],
  [
    '429 daily quota',
    err(429, 'TooManyRequestsException', 'Daily message quota exceeded.'),
    { kind: 'throttled', code: 'daily_quota_exceeded', retryAfterMs: DAILY_QUOTA_RETRY_MS },
  ],
  [
    '400 MessageRejected',
    err(400, 'MessageRejected', 'Email address is not verified. The following identities failed the check in region EU-WEST-1: ada@example.com'),
    { kind: 'permanent', reason: 'content_rejected', code: 'message_rejected' },
  ],
  [
    '400 AccountSuspendedException',
    err(400, 'AccountSuspendedException', 'Your account has been suspended.'),
    { kind: 'permanent', reason: 'unauthorized', code: 'account_suspended' },
  ],
  ['400 BadRequestException', err(400, 'BadRequestException', 'Missing final @domain'), { kind: 'permanent', reason: 'other', code: 'bad_request' }],
  [
    '400 SerializationException',
    err(400, 'SerializationException', 'Start of structure or map found where not expected.'),
    { kind: 'permanent', reason: 'other', code: 'bad_request' },
  ],
  ['400 SendingPausedException', err(400, 'SendingPausedException', 'Sending paused for this account.'), { kind: 'retryable', code: 'sending_paused' }],
  [
    '400 MailFromDomainNotVerifiedException',
    err(400, 'MailFromDomainNotVerifiedException', 'MAIL FROM domain not verified'),
    { kind: 'retryable', code: 'mail_from_not_verified' },
  ],
  [
    '404 NotFoundException (configuration set)',
    err(404, 'NotFoundException', 'Configuration set <herald> does not exist.'),
    { kind: 'retryable', code: 'configuration_set_not_found' },
  ],
  ['400 LimitExceededException (other)', err(400, 'LimitExceededException', 'Too many tags.'), { kind: 'retryable', code: 'limit_exceeded' }],
  [
    '403 UnrecognizedClientException',
    err(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'),
    { kind: 'retryable', code: 'provider_auth_failed' },
  ],
  [
    '403 SignatureDoesNotMatch',
    err(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match'),
    { kind: 'retryable', code: 'provider_auth_failed' },
  ],
  [
    '403 ExpiredTokenException',
    err(403, 'ExpiredTokenException', 'The security token included in the request is expired'),
    { kind: 'retryable', code: 'provider_auth_failed' },
  ],
  [
    '403 AccessDeniedException',
    err(403, 'AccessDeniedException', 'not authorized to perform: ses:SendEmail'),
    { kind: 'retryable', code: 'provider_auth_failed' },
  ],
  ['400 RequestExpired (clock skew)', err(400, 'RequestExpired', 'Request has expired.'), { kind: 'retryable', code: 'provider_auth_failed' }],
  ['503 ServiceUnavailable', err(503, 'ServiceUnavailable', 'Service Unavailable'), { kind: 'retryable', code: 'service_unavailable' }],
  ['503 without a type', { status: 503, body: null }, { kind: 'retryable', code: 'service_unavailable' }],
  ['500 InternalFailure: SES may have queued it', err(500, 'InternalFailure', 'The request processing has failed'), { kind: 'unknown', code: 'server_error' }],
  ['500 InternalServiceErrorException', { status: 500, body: { __type: 'InternalServiceErrorException' } }, { kind: 'unknown', code: 'server_error' }],
  ['502 from a gateway', { status: 502, body: null }, { kind: 'unknown', code: 'gateway_error' }],
  ['504 from a gateway', { status: 504, body: null }, { kind: 'unknown', code: 'gateway_error' }],
  ['413 too large', { status: 413, body: null }, { kind: 'permanent', reason: 'content_rejected', code: 'message_too_large' }],
  ['404 UnknownOperationException (base_url is not SES)', { status: 404, body: null }, { kind: 'retryable', code: 'unexpected_status' }],
  ['301 redirect', { status: 301, body: null }, { kind: 'retryable', code: 'unexpected_status' }],
];

describe('classifySesResponse', () => {
  for (const [name, response, expected] of table) {
    it(name, () => {
      const outcome = classifySesResponse(response, NOW);
      expect(outcome).toMatchObject(expected);
      // SES's text may quote addresses; outcomes carry the status and the error type only.
      expect(JSON.stringify(outcome)).not.toMatch(/ada@example\.com|calculated|suspended\.|@domain/);
    });
  }

  it('names the status and the error type in the message', () => {
    expect(classifySesResponse(err(400, 'MessageRejected', 'x'), NOW)).toMatchObject({ message: 'SES answered HTTP 400 (MessageRejected)' });
  });

  it('honours a Retry-After, should SES ever send one, as a lower bound', () => {
    expect(classifySesResponse({ ...err(429, 'TooManyRequestsException', 'Maximum sending rate exceeded.'), retryAfter: '7' }, NOW)).toMatchObject({
      retryAfterMs: 7_000,
    });
    expect(classifySesResponse({ ...err(429, 'TooManyRequestsException', 'Daily message quota exceeded.'), retryAfter: '7' }, NOW)).toMatchObject({
      retryAfterMs: DAILY_QUOTA_RETRY_MS,
    });
  });
});

describe('parseSesError', () => {
  it('reads the type from the header first, then the body’s code, then __type', () => {
    expect(parseSesError({ status: 400, errorType: header('MessageRejected'), body: { __type: 'BadRequestException' } }).type).toBe('MessageRejected');
    expect(parseSesError({ status: 400, body: { code: 'MessageRejected', __type: 'X' } }).type).toBe('MessageRejected');
    expect(parseSesError({ status: 400, body: { __type: 'com.amazonaws.sesv2#MessageRejected', Message: 'hi' } })).toEqual({
      type: 'MessageRejected',
      message: 'hi',
    });
  });

  it('an error type that is not a plain identifier is dropped, not echoed', () => {
    expect(parseSesError({ status: 400, errorType: '<script>alert(1)</script>', body: 'x' }).type).toBeNull();
    expect(classifySesResponse({ status: 400, errorType: 'ada@example.com', body: null }, NOW)).toMatchObject({ message: 'SES answered HTTP 400' });
  });
});
