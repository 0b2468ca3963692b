/**
 * Telnyx's answers to `POST /v2/messages`, as its docs show them (errors are
 * `{"errors": [{"code", "title", "detail"}]}`; API error codes:
 * https://developers.telnyx.com/development/api-fundamentals/api-errors; messaging codes:
 * https://developers.telnyx.com/docs/messaging/messages/error-codes; the STOP block:
 * https://developers.telnyx.com/docs/messaging/messages/advanced-opt-in-out), through the pure classifier.
 */
import { describe, expect, it } from 'vitest';
import { classifyTelnyxResponse } from '../../../src/providers/telnyx/classify.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const errors = (code: string, title: string, detail = '') => ({ errors: [{ code, title, detail }] });

const table: Array<[string, number, Record<string, string>, unknown, Record<string, unknown>]> = [
  [
    '200 with data.id',
    200,
    {},
    { data: { record_type: 'message', id: '40385f64-5717-4562-b3fc-2c963f66afa6', to: [{ phone_number: '+15550100002', status: 'queued' }] } },
    { kind: 'accepted', providerMessageId: '40385f64-5717-4562-b3fc-2c963f66afa6' },
  ],
  ['200 without an id', 200, {}, { data: {} }, { kind: 'unknown', code: 'malformed_response' }],
  ['429 10011 without headers', 429, {}, errors('10011', 'Too many requests'), { kind: 'throttled', retryAfterMs: null, scope: 'account' }],
  [
    '429 with x-ratelimit-reset (seconds until reset)',
    429,
    { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '7' },
    errors('10011', 'Too many requests'),
    { kind: 'throttled', retryAfterMs: 7000 },
  ],
  [
    '429 with Retry-After (wins over the reset)',
    429,
    { 'retry-after': '2', 'x-ratelimit-reset': '7' },
    errors('10011', 'Too many requests'),
    { kind: 'throttled', retryAfterMs: 2000 },
  ],
  [
    '401 10009 authentication failed',
    401,
    {},
    errors('10009', 'Authentication failed'),
    { kind: 'permanent', reason: 'unauthorized', code: 'telnyx_10009_authentication' },
  ],
  ['403 10010 authorization failed', 403, {}, errors('10010', 'Authorization failed'), { kind: 'permanent', reason: 'unauthorized' }],
  [
    '40300 blocked due to STOP',
    400,
    {},
    errors('40300', 'Blocked due to STOP message', "Messages cannot be sent from '+15550100009' to '+15550100002' due to an existing block rule."),
    { kind: 'permanent', reason: 'unsubscribed_at_provider', code: 'telnyx_unsubscribed' },
  ],
  ["40310 invalid 'to'", 400, {}, errors('40310', "Invalid 'to' address"), { kind: 'permanent', reason: 'invalid_destination' }],
  ['10002 invalid phone number', 400, {}, errors('10002', 'Invalid phone number'), { kind: 'permanent', reason: 'invalid_destination' }],
  ['10016 not +E.164', 400, {}, errors('10016', 'Phone number must be in +E.164 format'), { kind: 'permanent', reason: 'invalid_destination' }],
  ['40001 not routable', 400, {}, errors('40001', 'Not routable'), { kind: 'permanent', reason: 'invalid_destination' }],
  ['40012 invalid destination number', 400, {}, errors('40012', 'Invalid destination number'), { kind: 'permanent', reason: 'invalid_destination' }],
  ["40305 invalid 'from'", 400, {}, errors('40305', "Invalid 'from' address"), { kind: 'permanent', reason: 'other' }],
  ['40013 invalid source number', 400, {}, errors('40013', 'Invalid source number'), { kind: 'permanent', reason: 'other' }],
  ['10004 missing parameter', 400, {}, errors('10004', 'Missing required parameter'), { kind: 'permanent', reason: 'other' }],
  ['40009 invalid message body', 400, {}, errors('40009', 'Invalid message body'), { kind: 'permanent', reason: 'content_rejected' }],
  ['40002 blocked as spam (temporary)', 400, {}, errors('40002', 'Blocked as spam (temporary)'), { kind: 'retryable', code: 'telnyx_40002_spam_temporary' }],
  ['an unlisted 4xx', 422, {}, errors('10015', 'Bad Request'), { kind: 'permanent', reason: 'other', code: 'telnyx_10015_bad_request' }],
  ['an unlisted code', 400, {}, errors('40399', 'Something new'), { kind: 'permanent', reason: 'other', code: 'telnyx_40399' }],
  [
    '409 a request with this key is already in progress: ask again later, not a refusal',
    409,
    {},
    { errors: [{ title: 'Conflict', detail: 'A request with this key is already in progress.' }] },
    { kind: 'retryable', code: 'telnyx_key_in_progress', retryAfterMs: null },
  ],
  ['409 with a code and Retry-After: still in progress', 409, { 'retry-after': '3' }, errors('10015', 'Conflict'), { kind: 'retryable', retryAfterMs: 3000 }],
  ['500 10007 unexpected error: retry with the same key', 500, {}, errors('10007', 'Unexpected error'), { kind: 'retryable', code: 'telnyx_10007' }],
  ['503 without a body', 503, { 'retry-after': '5' }, null, { kind: 'retryable', code: 'telnyx_server_error', retryAfterMs: 5000 }],
  ['502 from the edge', 502, {}, null, { kind: 'retryable' }],
];

describe('classifyTelnyxResponse', () => {
  for (const [name, status, headers, body, expected] of table) {
    it(name, () => {
      const outcome = classifyTelnyxResponse({ status, headers, body }, NOW);
      expect(outcome).toMatchObject(expected);
      if (outcome.kind !== 'accepted') expect(JSON.stringify(outcome)).not.toMatch(/\+1555/);
    });
  }
});
