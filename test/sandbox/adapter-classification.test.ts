/**
 * Table-driven tests of the sandbox adapter's pure classifier
 * (src/providers/sandbox/classify.ts). They live beside the sandbox tests because the test
 * files allotted to the adapter were test/sandbox/* and test/providers/sandbox/adapter.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { OUTCOME_KINDS, type SubmitOutcome } from '../../src/domain/index.js';
import {
  classifyResponse,
  classifyTransportFailure,
  parseRetryAfterMs,
  type ProviderResponse,
  type TransportFailure,
} from '../../src/providers/sandbox/classify.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0); // Wed, 15 Jan 2025 12:00:00 GMT

describe('parseRetryAfterMs', () => {
  const cases: Array<[string | null | undefined, number | null]> = [
    ['2', 2_000],
    ['0', 0],
    [' 5 ', 5_000],
    ['120', 120_000],
    // IMF-fixdate, RFC 850 and asctime all name the same instant 30 s after NOW.
    ['Wed, 15 Jan 2025 12:00:30 GMT', 30_000],
    ['Wednesday, 15-Jan-25 12:00:30 GMT', 30_000],
    ['Wed Jan 15 12:00:30 2025', 30_000],
    ['Wed Jan  5 12:00:00 2025', 0], // asctime with a space-padded day, in the past
    ['Tue, 14 Jan 2025 12:00:00 GMT', 0], // a date in the past means "now", never negative
    ['Thu, 16 Jan 2025 12:00:00 GMT', 86_400_000],
    [null, null],
    [undefined, null],
    ['', null],
    ['-1', null],
    ['1.5', null],
    ['soon', null],
    ['1', 1_000],
    ['2025-01-15T12:00:30Z', null], // ISO 8601 is not an HTTP-date
    ['Wed, 31 Feb 2025 12:00:00 GMT', null],
    ['Wed, 15 Foo 2025 12:00:00 GMT', null],
    ['Wed, 15 Jan 2025 25:00:00 GMT', null],
    ['Wed, 15 Jan 2025 12:00:30 PST', null],
    ['99999999999999999999', null],
  ];

  it.each(cases)('%j -> %j', (value, expected) => {
    expect(parseRetryAfterMs(value, NOW)).toBe(expected);
  });
});

describe('classifyResponse', () => {
  const cases: Array<{ name: string; response: ProviderResponse; expected: SubmitOutcome }> = [
    {
      name: 'email 200 with id',
      response: { status: 200, body: { id: 'em_1' } },
      expected: { kind: 'accepted', providerMessageId: 'em_1' },
    },
    {
      name: 'sms 201 with sid',
      response: { status: 201, body: { sid: 'SM1', status: 'queued', to: '+15551234567' } },
      expected: { kind: 'accepted', providerMessageId: 'SM1' },
    },
    {
      name: 'push 200 with name',
      response: { status: 200, body: { name: 'projects/p/messages/1' } },
      expected: { kind: 'accepted', providerMessageId: 'projects/p/messages/1' },
    },
    {
      name: '202 without a body',
      response: { status: 202, body: null },
      expected: { kind: 'accepted', providerMessageId: null },
    },
    {
      name: '429 with delta-seconds',
      response: { status: 429, retryAfter: '2', body: { error: 'rate_limited' } },
      expected: { kind: 'throttled', code: 'rate_limited', message: expect.any(String), retryAfterMs: 2_000 },
    },
    {
      name: '429 with an HTTP-date',
      response: { status: 429, retryAfter: 'Wed, 15 Jan 2025 12:01:00 GMT', body: null },
      expected: { kind: 'throttled', code: 'rate_limited', message: expect.any(String), retryAfterMs: 60_000 },
    },
    {
      name: '429 with garbage Retry-After',
      response: { status: 429, retryAfter: 'later', body: null },
      expected: { kind: 'throttled', code: 'rate_limited', message: expect.any(String), retryAfterMs: null },
    },
    {
      name: '503 is retryable',
      response: { status: 503, body: { error: 'server_error' } },
      expected: { kind: 'retryable', code: 'server_error', message: expect.any(String), retryAfterMs: null },
    },
    {
      name: '500 honours Retry-After',
      response: { status: 500, retryAfter: '9', body: null },
      expected: { kind: 'retryable', code: 'server_error', message: expect.any(String), retryAfterMs: 9_000 },
    },
    {
      name: '502 from a gateway is unknown',
      response: { status: 502, body: null },
      expected: { kind: 'unknown', code: 'gateway_error', message: expect.any(String) },
    },
    {
      name: '504 from a gateway is unknown',
      response: { status: 504, body: null },
      expected: { kind: 'unknown', code: 'gateway_error', message: expect.any(String) },
    },
    {
      name: '400 invalid_destination',
      response: { status: 400, body: { error: 'invalid_destination' } },
      expected: { kind: 'permanent', reason: 'invalid_destination', code: 'invalid_destination', message: expect.any(String) },
    },
    {
      name: '422 invalid_destination',
      response: { status: 422, body: { error: 'invalid_destination' } },
      expected: { kind: 'permanent', reason: 'invalid_destination', code: 'invalid_destination', message: expect.any(String) },
    },
    {
      name: '400 content_rejected',
      response: { status: 400, body: { error: 'content_rejected' } },
      expected: { kind: 'permanent', reason: 'content_rejected', code: 'content_rejected', message: expect.any(String) },
    },
    {
      name: '400 invalid_request',
      response: { status: 400, body: { error: 'invalid_request', message: 'To is required' } },
      expected: { kind: 'permanent', reason: 'other', code: 'invalid_request', message: expect.any(String) },
    },
    {
      name: '400 missing_idempotency_key',
      response: { status: 400, body: { error: 'missing_idempotency_key' } },
      expected: { kind: 'permanent', reason: 'other', code: 'missing_idempotency_key', message: expect.any(String) },
    },
    {
      name: '404 without a body',
      response: { status: 404, body: null },
      expected: { kind: 'permanent', reason: 'other', code: 'http_404', message: expect.any(String) },
    },
    {
      name: '413 payload too large',
      response: { status: 413, body: { error: 'payload_too_large' } },
      expected: { kind: 'permanent', reason: 'content_rejected', code: 'payload_too_large', message: expect.any(String) },
    },
    {
      name: '401 is a configuration problem, retryable',
      response: { status: 401, body: { error: 'unauthorized' } },
      expected: { kind: 'retryable', code: 'provider_auth_failed', message: expect.any(String), retryAfterMs: null },
    },
    {
      name: '403 is a configuration problem, retryable',
      response: { status: 403, body: null },
      expected: { kind: 'retryable', code: 'provider_auth_failed', message: expect.any(String), retryAfterMs: null },
    },
    {
      name: '408 was not processed',
      response: { status: 408, body: null },
      expected: { kind: 'retryable', code: 'request_timeout', message: expect.any(String), retryAfterMs: null },
    },
    {
      name: '301 means a wrong base URL',
      response: { status: 301, body: null },
      expected: { kind: 'retryable', code: 'unexpected_status', message: expect.any(String), retryAfterMs: null },
    },
  ];

  it.each(cases)('$name', ({ response, expected }) => {
    expect(classifyResponse(response, NOW)).toEqual(expected);
  });

  it('never echoes provider text that could hold a destination', () => {
    const outcome = classifyResponse({ status: 400, body: { error: "The 'To' number +15551234567 is not valid", message: '+15551234567' } }, NOW);
    expect(outcome).toMatchObject({ kind: 'permanent', reason: 'other', code: 'http_400' });
    expect(JSON.stringify(outcome)).not.toContain('+1555');
  });
});

describe('classifyTransportFailure', () => {
  const cases: Array<{ failure: TransportFailure; kind: SubmitOutcome['kind']; code: string }> = [
    { failure: { stage: 'connecting', cause: 'error', code: 'ECONNREFUSED' }, kind: 'retryable', code: 'connect_failed' },
    { failure: { stage: 'connecting', cause: 'error', code: 'ENOTFOUND' }, kind: 'retryable', code: 'connect_failed' },
    { failure: { stage: 'connecting', cause: 'error', code: 'EAI_AGAIN' }, kind: 'retryable', code: 'connect_failed' },
    { failure: { stage: 'connecting', cause: 'error', code: 'EHOSTUNREACH' }, kind: 'retryable', code: 'connect_failed' },
    { failure: { stage: 'connecting', cause: 'error', code: 'ETIMEDOUT' }, kind: 'retryable', code: 'connect_failed' },
    { failure: { stage: 'connecting', cause: 'timeout' }, kind: 'retryable', code: 'connect_failed' },
    { failure: { stage: 'connecting', cause: 'aborted' }, kind: 'retryable', code: 'aborted_before_send' },
    { failure: { stage: 'connecting', cause: 'error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, kind: 'retryable', code: 'tls_failed' },
    { failure: { stage: 'writing', cause: 'error', code: 'ECONNRESET' }, kind: 'retryable', code: 'write_failed' },
    { failure: { stage: 'writing', cause: 'error', code: 'EPIPE' }, kind: 'retryable', code: 'write_failed' },
    { failure: { stage: 'writing', cause: 'timeout' }, kind: 'retryable', code: 'write_failed' },
    // Unrecognised codes are never assumed safe, even before the request was written.
    { failure: { stage: 'connecting', cause: 'error', code: 'EWHATEVER' }, kind: 'unknown', code: 'transport_error' },
    { failure: { stage: 'writing', cause: 'error' }, kind: 'unknown', code: 'transport_error' },
    // After the request was written, everything is unknown.
    { failure: { stage: 'written', cause: 'error', code: 'ECONNRESET' }, kind: 'unknown', code: 'connection_lost' },
    { failure: { stage: 'written', cause: 'error', code: 'EPIPE' }, kind: 'unknown', code: 'connection_lost' },
    { failure: { stage: 'written', cause: 'error', code: 'ECONNREFUSED' }, kind: 'unknown', code: 'transport_error' },
    { failure: { stage: 'written', cause: 'error', code: 'ETIMEDOUT' }, kind: 'unknown', code: 'timeout' },
    { failure: { stage: 'written', cause: 'error', code: 'HPE_INVALID_CONSTANT' }, kind: 'unknown', code: 'invalid_response' },
    { failure: { stage: 'written', cause: 'timeout' }, kind: 'unknown', code: 'timeout' },
    { failure: { stage: 'written', cause: 'aborted' }, kind: 'unknown', code: 'aborted' },
    { failure: { stage: 'written', cause: 'error' }, kind: 'unknown', code: 'transport_error' },
  ];

  it.each(cases)('$failure.stage $failure.cause $failure.code -> $kind $code', ({ failure, kind, code }) => {
    const outcome = classifyTransportFailure(failure);
    expect(outcome.kind).toBe(kind);
    expect(outcome).toMatchObject({ code, message: expect.any(String) });
  });
});

describe('the tables are not vacuous', () => {
  it('between them, the classifiers produce every outcome kind', () => {
    const kinds = new Set<string>([
      classifyResponse({ status: 200, body: null }, NOW).kind,
      classifyResponse({ status: 429, body: null }, NOW).kind,
      classifyResponse({ status: 503, body: null }, NOW).kind,
      classifyResponse({ status: 400, body: null }, NOW).kind,
      classifyTransportFailure({ stage: 'written', cause: 'timeout' }).kind,
    ]);
    expect([...kinds].sort()).toEqual([...OUTCOME_KINDS].sort());
  });
});
