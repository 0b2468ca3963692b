/**
 * Postmark's classifier on a table of the answers its API overview documents
 * (https://postmarkapp.com/developer/api/overview: HTTP response codes and API error codes),
 * and the look-up classifier on its Messages API answers.
 */
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import { classifyPostmarkResponse } from '../../../src/providers/postmark/classify.js';
import { classifyPostmarkLookup, combineLookups } from '../../../src/providers/postmark/lookup.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

function pm(code: number): unknown {
  return { ErrorCode: code, Message: "Error parsing 'To': Illegal email address 'canary.wren@example.test'." };
}

type Row = [label: string, status: number, body: unknown, headers: Record<string, string>, expected: Partial<SubmitOutcome> & { kind: SubmitOutcome['kind'] }];

const TABLE: Row[] = [
  [
    '200, ErrorCode 0, MessageID',
    200,
    { To: 'x@example.test', SubmittedAt: '2026-11-29T12:00:00Z', MessageID: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817', ErrorCode: 0, Message: 'OK' },
    {},
    { kind: 'accepted', providerMessageId: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817' },
  ],
  ['200, ErrorCode 0, no MessageID', 200, { ErrorCode: 0, Message: 'OK' }, {}, { kind: 'accepted', providerMessageId: null }],
  ['200 with a refusal inside (ErrorCode 406)', 200, pm(406), {}, { kind: 'permanent', reason: 'unsubscribed_at_provider', code: 'inactive_recipient' }],
  ['200 with an unreadable body', 200, null, {}, { kind: 'unknown', code: 'unreadable_answer' }],
  ['401 bad or missing token', 401, pm(10), {}, { kind: 'permanent', reason: 'unauthorized', code: 'bad_or_missing_api_token' }],
  ['422 ErrorCode 10', 422, pm(10), {}, { kind: 'permanent', reason: 'unauthorized', code: 'bad_or_missing_api_token' }],
  ['422 ErrorCode 100 maintenance', 422, pm(100), {}, { kind: 'retryable', code: 'maintenance' }],
  ['422 ErrorCode 300 invalid email request', 422, pm(300), {}, { kind: 'permanent', reason: 'other', code: 'invalid_email_request' }],
  ['422 ErrorCode 400 sender signature not found', 422, pm(400), {}, { kind: 'permanent', reason: 'unauthorized', code: 'sender_signature_not_found' }],
  ['422 ErrorCode 401 sender signature not confirmed', 422, pm(401), {}, { kind: 'permanent', reason: 'unauthorized', code: 'sender_signature_not_confirmed' }],
  ['422 ErrorCode 402 invalid JSON', 422, pm(402), {}, { kind: 'permanent', reason: 'other', code: 'invalid_json' }],
  ['422 ErrorCode 403 incompatible JSON', 422, pm(403), {}, { kind: 'permanent', reason: 'other', code: 'incompatible_json' }],
  ['422 ErrorCode 405 not allowed to send (credits)', 422, pm(405), {}, { kind: 'retryable', code: 'not_allowed_to_send' }],
  ['422 ErrorCode 406 inactive recipient', 422, pm(406), {}, { kind: 'permanent', reason: 'unsubscribed_at_provider', code: 'inactive_recipient' }],
  ['422 ErrorCode 409 JSON required', 422, pm(409), {}, { kind: 'permanent', reason: 'other', code: 'json_required' }],
  ['422 ErrorCode 411 forbidden attachment type', 422, pm(411), {}, { kind: 'permanent', reason: 'content_rejected', code: 'forbidden_attachment_type' }],
  ['422 ErrorCode 412 account pending', 422, pm(412), {}, { kind: 'permanent', reason: 'unauthorized', code: 'account_pending' }],
  ['422 ErrorCode 413 account may not send', 422, pm(413), {}, { kind: 'permanent', reason: 'unauthorized', code: 'account_may_not_send' }],
  ['422 ErrorCode 1101 (template API, not used)', 422, pm(1101), {}, { kind: 'permanent', reason: 'other', code: 'postmark_error_1101' }],
  ['422 without an ErrorCode', 422, null, {}, { kind: 'permanent', reason: 'other', code: 'http_422' }],
  ['429 rate limit exceeded (no Retry-After documented)', 429, pm(429), {}, { kind: 'throttled', code: 'rate_limit_exceeded', retryAfterMs: null }],
  ['429 with a Retry-After a proxy added', 429, pm(429), { 'retry-after': '30' }, { kind: 'throttled', retryAfterMs: 30_000 }],
  ['413 payload too large', 413, null, {}, { kind: 'permanent', reason: 'content_rejected', code: 'payload_too_large' }],
  ['500 internal server error ("in most cases the message is lost")', 500, pm(0), {}, { kind: 'unknown', code: 'server_error' }],
  ['502 gateway', 502, null, {}, { kind: 'unknown', code: 'gateway_error' }],
  ['503 planned outage', 503, pm(100), {}, { kind: 'retryable', code: 'service_unavailable' }],
  ['404 (wrong base_url)', 404, pm(0), {}, { kind: 'retryable', code: 'unexpected_status' }],
  ['403 HTML from a network security layer', 403, null, {}, { kind: 'retryable', code: 'unexpected_status' }],
];

describe('classifyPostmarkResponse', () => {
  for (const [label, status, body, headers, expected] of TABLE) {
    it(label, () => {
      const outcome = classifyPostmarkResponse({ status, body, headers }, NOW);
      expect(outcome).toMatchObject(expected);
      expect(JSON.stringify(outcome)).not.toContain('canary');
    });
  }
});

describe('classifyPostmarkLookup', () => {
  const REF = 'hk_postmarkLookupReference000000000000000000';
  const answer = (body: unknown, status = 200) => ({ kind: 'response' as const, status, retryAfter: null, headers: {}, body });

  it('found: the message whose metadata holds exactly the reference', () => {
    const body = {
      TotalCount: 2,
      Messages: [
        { MessageID: 'other', Metadata: { herald_reference: `${REF}x` } },
        { MessageID: 'mine', Metadata: { herald_reference: REF } },
      ],
    };
    expect(classifyPostmarkLookup(answer(body), REF)).toEqual({ kind: 'found', providerMessageId: 'mine' });
  });

  it('not_found: an empty list, or only messages of other references', () => {
    expect(classifyPostmarkLookup(answer({ TotalCount: 0, Messages: [] }), REF)).toEqual({ kind: 'not_found' });
    expect(classifyPostmarkLookup(answer({ TotalCount: 1, Messages: [{ MessageID: 'm', Metadata: {} }] }), REF)).toEqual({ kind: 'not_found' });
  });

  it('error for anything not authoritative', () => {
    expect(classifyPostmarkLookup(answer({ TotalCount: 1 }), REF)).toMatchObject({ kind: 'error', code: 'malformed_response' });
    expect(classifyPostmarkLookup(answer({ Messages: [{ Metadata: { herald_reference: REF } }] }), REF)).toMatchObject({
      kind: 'error',
      code: 'malformed_response',
    });
    expect(classifyPostmarkLookup(answer(pm(10), 401), REF)).toMatchObject({ kind: 'error', code: 'provider_auth_failed' });
    expect(classifyPostmarkLookup(answer(pm(429), 429), REF)).toMatchObject({ kind: 'error', code: 'rate_limited' });
    expect(classifyPostmarkLookup(answer(null, 500), REF)).toMatchObject({ kind: 'error', code: 'server_error' });
    expect(classifyPostmarkLookup(answer(null, 404), REF)).toMatchObject({ kind: 'error', code: 'unexpected_status' });
    expect(classifyPostmarkLookup({ kind: 'failure', failure: { stage: 'written', cause: 'timeout' } }, REF)).toMatchObject({ kind: 'error', code: 'timeout' });
  });

  it('both streams: found in either wins; not_found only when both say so; else the error', () => {
    const found = { kind: 'found', providerMessageId: 'm' } as const;
    const none = { kind: 'not_found' } as const;
    const error = { kind: 'error', code: 'timeout', message: 't' } as const;
    expect(combineLookups([none, found])).toEqual(found);
    expect(combineLookups([error, found])).toEqual(found);
    expect(combineLookups([none, none])).toEqual(none);
    expect(combineLookups([none, error])).toEqual(error);
  });
});
