/**
 * Twilio's answers to a Messages create, as its docs show them
 * (https://www.twilio.com/docs/api/errors/<code>; the error body is
 * `{code, message, more_info, status}`), through the pure classifier.
 */
import { describe, expect, it } from 'vitest';
import { classifyTwilioResponse } from '../../../src/providers/twilio/classify.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const error = (status: number, code: number, message: string) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

const table: Array<[string, number, Record<string, string>, unknown, Record<string, unknown>]> = [
  [
    '201 with a message SID',
    201,
    {},
    { sid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f', status: 'queued', to: '+15558675310' },
    { kind: 'accepted', providerMessageId: 'SM1f0e8ae6ade43cb3c0ce4525424e404f' },
  ],
  [
    '201 for a Messaging Service (status accepted)',
    201,
    {},
    { sid: 'SM2f0e8ae6ade43cb3c0ce4525424e404f', status: 'accepted' },
    { kind: 'accepted', providerMessageId: 'SM2f0e8ae6ade43cb3c0ce4525424e404f' },
  ],
  ['201 without a SID', 201, {}, { status: 'queued' }, { kind: 'unknown', code: 'malformed_response' }],
  [
    '429 20429, no Retry-After',
    429,
    {},
    error(429, 20429, 'Too Many Requests'),
    { kind: 'throttled', code: 'twilio_20429_too_many_requests', retryAfterMs: null, scope: 'account' },
  ],
  ['429 with Retry-After: 3', 429, { 'retry-after': '3' }, error(429, 20429, 'Too Many Requests'), { kind: 'throttled', retryAfterMs: 3000, scope: 'account' }],
  ['429 with an HTTP-date', 429, { 'retry-after': new Date(NOW + 60_000).toUTCString() }, null, { kind: 'throttled', retryAfterMs: 60_000 }],
  [
    '21211 invalid To',
    400,
    {},
    error(400, 21211, "The 'To' number +1555 is not a valid phone number."),
    { kind: 'permanent', reason: 'invalid_destination', code: 'twilio_21211_invalid_to' },
  ],
  [
    '21614 not a mobile number',
    400,
    {},
    error(400, 21614, "'To' number is not a valid mobile number"),
    { kind: 'permanent', reason: 'invalid_destination', code: 'twilio_21614_not_mobile' },
  ],
  [
    '21610 replied STOP',
    400,
    {},
    error(400, 21610, 'Attempt to send to unsubscribed recipient'),
    { kind: 'permanent', reason: 'unsubscribed_at_provider', code: 'twilio_unsubscribed' },
  ],
  [
    '21611 sender queue full',
    400,
    {},
    error(400, 21611, "This 'From' number has exceeded the maximum number of queued messages"),
    { kind: 'retryable', code: 'twilio_21611_queue_full', retryAfterMs: null },
  ],
  ['30001 queue overflow', 400, {}, error(400, 30001, 'Queue overflow'), { kind: 'retryable', code: 'twilio_30001_queue_overflow' }],
  [
    '20003 authentication (HTTP 401)',
    401,
    {},
    error(401, 20003, 'Authenticate'),
    { kind: 'permanent', reason: 'unauthorized', code: 'twilio_20003_authentication' },
  ],
  ['401 without a body', 401, {}, null, { kind: 'permanent', reason: 'unauthorized', code: 'http_401' }],
  [
    '21408 region not enabled',
    400,
    {},
    error(400, 21408, 'Permission to send an SMS has not been enabled for the region indicated by the To number'),
    { kind: 'permanent', reason: 'other', code: 'twilio_21408_region_not_enabled' },
  ],
  [
    '21612 not reachable from this sender',
    400,
    {},
    error(400, 21612, "The 'To' phone number is not currently reachable via SMS"),
    { kind: 'permanent', reason: 'other', code: 'twilio_21612_route_unreachable' },
  ],
  [
    '21606 From not ours',
    400,
    {},
    error(400, 21606, "The 'From' phone number provided is not a valid, SMS-capable inbound phone number"),
    { kind: 'permanent', reason: 'other' },
  ],
  [
    '21617 body too long',
    400,
    {},
    error(400, 21617, 'The concatenated message body exceeds the 1600 character limit'),
    { kind: 'permanent', reason: 'content_rejected' },
  ],
  [
    '21624 invalid ValidityPeriod',
    400,
    {},
    error(400, 21624, 'Invalid validity period value'),
    { kind: 'permanent', reason: 'other', code: 'twilio_21624_invalid_validity' },
  ],
  ['an unlisted 4xx code', 400, {}, error(400, 21620, 'Invalid media URL(s)'), { kind: 'permanent', reason: 'other', code: 'twilio_21620' }],
  [
    '404 20404 (wrong account SID)',
    404,
    {},
    error(404, 20404, 'The requested resource was not found'),
    { kind: 'permanent', reason: 'other', code: 'twilio_20404' },
  ],
  ['503 20503 service unavailable: not taken in', 503, {}, error(503, 20503, 'Service unavailable'), { kind: 'retryable', code: 'twilio_service_unavailable' }],
  ['500 20500: may have been created', 500, {}, error(500, 20500, 'Internal Server Error'), { kind: 'unknown', code: 'twilio_server_error' }],
  ['502 from the edge', 502, {}, null, { kind: 'unknown', code: 'twilio_server_error' }],
  ['504 from the edge', 504, {}, null, { kind: 'unknown' }],
  ['a redirect', 301, { location: 'https://elsewhere' }, null, { kind: 'retryable', code: 'unexpected_status' }],
];

describe('classifyTwilioResponse', () => {
  for (const [name, status, headers, body, expected] of table) {
    it(name, () => {
      const outcome = classifyTwilioResponse({ status, headers, body }, NOW);
      expect(outcome).toMatchObject(expected);
      // Twilio's message quotes the number: outcomes never carry it.
      if (outcome.kind !== 'accepted') expect(outcome.message).not.toMatch(/\+1555/);
    });
  }
});
