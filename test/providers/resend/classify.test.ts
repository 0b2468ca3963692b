/**
 * Resend's classifier on a table of the answers its documentation lists
 * (https://resend.com/docs/api-reference/errors, /rate-limit, /dashboard/emails/idempotency-keys):
 * status, error name and headers in, outcome out.
 */
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import { classifyResendResponse, resendRetryAfterMs } from '../../../src/providers/resend/classify.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

function err(status: number, name: string, message = 'a message that quotes canary.wren@example.test'): unknown {
  return { statusCode: status, name, message };
}

type Row = [label: string, status: number, body: unknown, headers: Record<string, string>, expected: Partial<SubmitOutcome> & { kind: SubmitOutcome['kind'] }];

const TABLE: Row[] = [
  ['200 with the id', 200, { id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' }, {}, { kind: 'accepted', providerMessageId: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' }],
  ['200 without a readable body', 200, null, {}, { kind: 'accepted', providerMessageId: null }],
  ['400 validation_error', 400, err(400, 'validation_error'), {}, { kind: 'permanent', reason: 'other', code: 'validation_error' }],
  ['400 invalid_idempotency_key', 400, err(400, 'invalid_idempotency_key'), {}, { kind: 'permanent', reason: 'other', code: 'invalid_idempotency_key' }],
  ['401 missing_api_key', 401, err(401, 'missing_api_key'), {}, { kind: 'permanent', reason: 'unauthorized', code: 'missing_api_key' }],
  [
    '401 validation_error (key not valid on sending endpoints)',
    401,
    err(401, 'validation_error'),
    {},
    { kind: 'permanent', reason: 'unauthorized', code: 'validation_error' },
  ],
  ['403 invalid_api_key', 403, err(403, 'invalid_api_key'), {}, { kind: 'permanent', reason: 'unauthorized', code: 'invalid_api_key' }],
  [
    '403 validation_error (domain not verified)',
    403,
    err(403, 'validation_error'),
    {},
    { kind: 'permanent', reason: 'unauthorized', code: 'validation_error' },
  ],
  ['404 not_found (wrong base_url)', 404, err(404, 'not_found'), {}, { kind: 'retryable', code: 'unexpected_status' }],
  ['405 method_not_allowed', 405, err(405, 'method_not_allowed'), {}, { kind: 'retryable', code: 'unexpected_status' }],
  [
    '409 invalid_idempotent_request (same key, other body)',
    409,
    err(409, 'invalid_idempotent_request'),
    {},
    { kind: 'permanent', reason: 'other', code: 'invalid_idempotent_request' },
  ],
  ['409 concurrent_idempotent_requests', 409, err(409, 'concurrent_idempotent_requests'), {}, { kind: 'retryable', code: 'concurrent_idempotent_requests' }],
  ['409 of an unknown name', 409, err(409, 'something_new'), {}, { kind: 'retryable', code: 'something_new' }],
  ['422 invalid_attachment', 422, err(422, 'invalid_attachment'), {}, { kind: 'permanent', reason: 'content_rejected', code: 'invalid_attachment' }],
  ['422 invalid_from_address', 422, err(422, 'invalid_from_address'), {}, { kind: 'permanent', reason: 'other', code: 'invalid_from_address' }],
  ['422 invalid_access', 422, err(422, 'invalid_access'), {}, { kind: 'permanent', reason: 'other', code: 'invalid_access' }],
  ['422 invalid_parameter', 422, err(422, 'invalid_parameter'), {}, { kind: 'permanent', reason: 'other', code: 'invalid_parameter' }],
  ['422 invalid_region', 422, err(422, 'invalid_region'), {}, { kind: 'permanent', reason: 'other', code: 'invalid_region' }],
  ['422 missing_required_field', 422, err(422, 'missing_required_field'), {}, { kind: 'permanent', reason: 'other', code: 'missing_required_field' }],
  ['422 validation_error', 422, err(422, 'validation_error'), {}, { kind: 'permanent', reason: 'other', code: 'validation_error' }],
  ['422 without a body', 422, null, {}, { kind: 'permanent', reason: 'other', code: 'http_422' }],
  [
    '429 rate_limit_exceeded with retry-after',
    429,
    err(429, 'rate_limit_exceeded'),
    { 'retry-after': '1', 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' },
    { kind: 'throttled', code: 'rate_limit_exceeded', retryAfterMs: 1_000 },
  ],
  [
    '429 with ratelimit-reset only',
    429,
    err(429, 'rate_limit_exceeded'),
    { 'ratelimit-reset': '7' },
    { kind: 'throttled', code: 'rate_limit_exceeded', retryAfterMs: 7_000 },
  ],
  ['429 without any hint', 429, err(429, 'rate_limit_exceeded'), {}, { kind: 'throttled', code: 'rate_limit_exceeded', retryAfterMs: null }],
  [
    '429 daily_quota_exceeded',
    429,
    err(429, 'daily_quota_exceeded'),
    { 'retry-after': '3600' },
    { kind: 'throttled', code: 'daily_quota_exceeded', retryAfterMs: 3_600_000 },
  ],
  ['429 monthly_quota_exceeded', 429, err(429, 'monthly_quota_exceeded'), {}, { kind: 'throttled', code: 'monthly_quota_exceeded', retryAfterMs: null }],
  ['451 security_error', 451, err(451, 'security_error'), {}, { kind: 'permanent', reason: 'content_rejected', code: 'security_error' }],
  ['500 application_error (same key on retry)', 500, err(500, 'application_error'), {}, { kind: 'retryable', code: 'application_error' }],
  ['500 internal_server_error', 500, err(500, 'internal_server_error'), {}, { kind: 'retryable', code: 'internal_server_error' }],
  ['502 from a gateway, HTML body', 502, null, {}, { kind: 'retryable', code: 'server_error' }],
  ['503 with retry-after', 503, null, { 'retry-after': '30' }, { kind: 'retryable', code: 'server_error', retryAfterMs: 30_000 }],
  ['301 redirect (wrong base_url)', 301, null, {}, { kind: 'retryable', code: 'unexpected_status' }],
];

describe('classifyResendResponse', () => {
  for (const [label, status, body, headers, expected] of TABLE) {
    it(label, () => {
      const outcome = classifyResendResponse({ status, body, headers }, NOW);
      expect(outcome).toMatchObject(expected);
      // Never the body's message: Resend quotes addresses in it.
      expect(JSON.stringify(outcome)).not.toContain('canary');
    });
  }

  it('never takes an error name that is not a plain identifier into the code', () => {
    const outcome = classifyResendResponse({ status: 422, body: { name: 'Drop <b>tables</b>', message: 'x' }, headers: {} }, NOW);
    expect(outcome).toMatchObject({ kind: 'permanent', code: 'http_422' });
  });
});

describe('resendRetryAfterMs', () => {
  it('prefers retry-after, also as an HTTP-date, then ratelimit-reset; garbage is null', () => {
    expect(resendRetryAfterMs({ 'retry-after': '2', 'ratelimit-reset': '9' }, NOW)).toBe(2_000);
    expect(resendRetryAfterMs({ 'retry-after': new Date(NOW + 120_000).toUTCString() }, NOW)).toBe(120_000);
    expect(resendRetryAfterMs({ 'retry-after': 'soon', 'ratelimit-reset': '4' }, NOW)).toBe(4_000);
    expect(resendRetryAfterMs({ 'ratelimit-reset': '-1' }, NOW)).toBeNull();
    expect(resendRetryAfterMs({ 'ratelimit-reset': '1764417600000' }, NOW)).toBeNull();
    expect(resendRetryAfterMs({}, NOW)).toBeNull();
  });
});
