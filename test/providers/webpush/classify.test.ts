/** Push services' answers (autopush's documented set, FCM's and WNS's quirks) classified (src/providers/webpush/classify.ts). */
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import { classifyWebPushResponse } from '../../../src/providers/webpush/classify.js';
import { WEBPUSH_ANSWERS, type WebPushAnswer, type WebPushAnswerName } from '../fakes/webpush.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const HOST = 'updates.push.services.mozilla.com';
type Expected = Partial<SubmitOutcome> & { kind: SubmitOutcome['kind'] };

const TABLE: Record<WebPushAnswerName, Expected> = {
  not_found: { kind: 'permanent', reason: 'invalid_destination', code: 'webpush_unregistered' },
  gone: { kind: 'permanent', reason: 'invalid_destination', code: 'webpush_unregistered' },
  expired: { kind: 'permanent', reason: 'invalid_destination', code: 'webpush_unregistered' },
  payload_too_large: { kind: 'permanent', reason: 'content_rejected', code: 'webpush_payload_too_large' },
  rate_limited: { kind: 'throttled', code: 'webpush_rate_limited', scope: 'destination', retryAfterMs: 120_000 },
  rate_limited_no_hint: { kind: 'throttled', code: 'webpush_rate_limited', scope: 'destination', retryAfterMs: null },
  wns_throttled: { kind: 'throttled', code: 'webpush_rate_limited', scope: 'destination', retryAfterMs: null },
  bad_vapid: { kind: 'permanent', reason: 'unauthorized', code: 'webpush_vapid_rejected' },
  key_mismatch: { kind: 'permanent', reason: 'unauthorized', code: 'webpush_vapid_rejected' },
  bad_ttl: { kind: 'permanent', reason: 'other', code: 'webpush_bad_request' },
  server_error: { kind: 'retryable', code: 'webpush_server_error', retryAfterMs: null },
  unavailable: { kind: 'retryable', code: 'webpush_server_error', retryAfterMs: 30_000 },
};

describe('push service answers classified', () => {
  for (const [name, expected] of Object.entries(TABLE) as Array<[WebPushAnswerName, Expected]>) {
    const answer: WebPushAnswer = WEBPUSH_ANSWERS[name];
    it(`${name}: HTTP ${answer.status} (${answer.source}) → ${expected.kind}`, () => {
      const outcome = classifyWebPushResponse({ status: answer.status, headers: { ...answer.headers }, body: answer.body }, HOST, NOW);
      expect(outcome).toMatchObject(expected);
      if (answer.body !== '') expect(JSON.stringify(outcome)).not.toContain(answer.body.slice(0, 40));
    });
  }

  it('201 Created is accepted with the Location of the push message resource; other 2xx too', () => {
    expect(classifyWebPushResponse({ status: 201, headers: { location: 'https://push.example/m/abc' }, body: null }, HOST, NOW)).toEqual({
      kind: 'accepted',
      providerMessageId: 'https://push.example/m/abc',
    });
    expect(classifyWebPushResponse({ status: 202, headers: {}, body: null }, HOST, NOW)).toEqual({ kind: 'accepted', providerMessageId: null });
  });

  it('gateways are unknown, a moved bridge endpoint is a dead destination, odd statuses by class', () => {
    expect(classifyWebPushResponse({ status: 502, headers: {}, body: null }, HOST, NOW).kind).toBe('unknown');
    expect(classifyWebPushResponse({ status: 301, headers: { location: 'https://x' }, body: null }, HOST, NOW)).toMatchObject({
      kind: 'permanent',
      reason: 'invalid_destination',
      code: 'webpush_unregistered',
    });
    expect(classifyWebPushResponse({ status: 302, headers: {}, body: null }, HOST, NOW)).toMatchObject({ kind: 'retryable', code: 'unexpected_status' });
    expect(classifyWebPushResponse({ status: 409, headers: {}, body: null }, HOST, NOW)).toMatchObject({ kind: 'permanent', code: 'webpush_http_409' });
  });

  it('names the push service, never the endpoint path', () => {
    const outcome = classifyWebPushResponse({ status: 410, headers: {}, body: null }, HOST, NOW);
    expect(outcome).toMatchObject({ message: `push service ${HOST} answered HTTP 410` });
  });
});
