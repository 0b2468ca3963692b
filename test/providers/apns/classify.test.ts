/** APNs's documented answers and HTTP/2 failures, classified (src/providers/apns/classify.ts). */
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import { apnsReason, classifyApnsResponse, classifyApnsTransportFailure, providerTokenExpired } from '../../../src/providers/apns/classify.js';
import { APNS_ANSWERS, type ApnsReason } from '../fakes/apns.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
type Expected = Partial<SubmitOutcome> & { kind: SubmitOutcome['kind'] };

const invalid = (code: string): Expected => ({ kind: 'permanent', reason: 'invalid_destination', code });
const badRequest: Expected = { kind: 'permanent', reason: 'other', code: 'apns_bad_request' };
const unauthorized: Expected = { kind: 'permanent', reason: 'unauthorized', code: 'apns_auth_failed' };

const TABLE: Record<ApnsReason, Expected> = {
  Unregistered: invalid('apns_unregistered'),
  ExpiredToken: invalid('apns_unregistered'),
  BadDeviceToken: invalid('apns_bad_token'),
  DeviceTokenNotForTopic: invalid('apns_bad_token'),
  MissingDeviceToken: invalid('apns_bad_token'),
  BadCollapseId: badRequest,
  BadExpirationDate: badRequest,
  BadMessageId: badRequest,
  BadPriority: badRequest,
  BadTopic: badRequest,
  InvalidPushType: badRequest,
  MissingTopic: badRequest,
  PayloadEmpty: badRequest,
  TopicDisallowed: badRequest,
  IdleTimeout: { kind: 'retryable', code: 'apns_idle_timeout' },
  ExpiredProviderToken: { kind: 'permanent', reason: 'unauthorized', code: 'apns_provider_token_expired' },
  InvalidProviderToken: unauthorized,
  MissingProviderToken: unauthorized,
  Forbidden: unauthorized,
  BadCertificateEnvironment: unauthorized,
  UnrelatedKeyIdInToken: unauthorized,
  BadEnvironmentKeyInToken: unauthorized,
  BadPath: { kind: 'permanent', reason: 'other', code: 'apns_http_404' },
  MethodNotAllowed: { kind: 'permanent', reason: 'other', code: 'apns_http_405' },
  PayloadTooLarge: { kind: 'permanent', reason: 'content_rejected', code: 'apns_payload_too_large' },
  TooManyProviderTokenUpdates: { kind: 'throttled', code: 'apns_too_many_token_updates', scope: 'account', retryAfterMs: null },
  TooManyRequests: { kind: 'throttled', code: 'apns_too_many_requests', scope: 'destination', retryAfterMs: null },
  InternalServerError: { kind: 'retryable', code: 'apns_server_error' },
  ServiceUnavailable: { kind: 'retryable', code: 'apns_unavailable' },
  Shutdown: { kind: 'retryable', code: 'apns_unavailable' },
};

describe('APNs answers classified', () => {
  for (const [reason, expected] of Object.entries(TABLE) as Array<[ApnsReason, Expected]>) {
    const answer = APNS_ANSWERS[reason];
    it(`${answer.status} ${reason} → ${expected.kind} ${'code' in expected ? expected.code : ''}`, () => {
      const body = reason === 'Unregistered' ? { reason, timestamp: NOW } : { reason };
      expect(classifyApnsResponse({ status: answer.status, headers: {}, body }, NOW)).toMatchObject(expected);
    });
  }

  it("200: APNs's apns-unique-id when it sends one, else the apns-id it echoes", () => {
    expect(classifyApnsResponse({ status: 200, headers: { 'apns-id': 'a-1', 'apns-unique-id': 'u-1' }, body: null }, NOW)).toEqual({
      kind: 'accepted',
      providerMessageId: 'u-1',
    });
    expect(classifyApnsResponse({ status: 200, headers: { 'apns-id': 'a-1' }, body: null }, NOW)).toEqual({ kind: 'accepted', providerMessageId: 'a-1' });
  });

  it('honours a Retry-After APNs does not document, and never quotes an odd reason', () => {
    expect(classifyApnsResponse({ status: 503, headers: { 'retry-after': '9' }, body: { reason: 'Shutdown' } }, NOW)).toMatchObject({ retryAfterMs: 9_000 });
    const odd = classifyApnsResponse({ status: 400, headers: {}, body: { reason: 'token c0ffee is bad' } }, NOW);
    expect(odd).toMatchObject({ kind: 'permanent', code: 'apns_bad_request' });
    expect(JSON.stringify(odd)).not.toContain('c0ffee');
    expect(apnsReason({ reason: 'BadDeviceToken' })).toBe('BadDeviceToken');
    expect(providerTokenExpired({ status: 403, headers: {}, body: { reason: 'ExpiredProviderToken' } })).toBe(true);
    expect(providerTokenExpired({ status: 403, headers: {}, body: { reason: 'InvalidProviderToken' } })).toBe(false);
  });
});

describe('APNs HTTP/2 failures classified by how far the stream got', () => {
  it('refused streams are retryable at any stage; an incomplete request is retryable; a complete one is unknown', () => {
    expect(classifyApnsTransportFailure({ stage: 'written', cause: 'error', code: 'ERR_HTTP2_STREAM_ERROR', refused: true })).toMatchObject({
      kind: 'retryable',
      code: 'apns_refused_stream',
    });
    expect(classifyApnsTransportFailure({ stage: 'writing', cause: 'error', code: 'NGHTTP2_RST_8', refused: false })).toMatchObject({
      kind: 'retryable',
      code: 'write_failed',
    });
    expect(classifyApnsTransportFailure({ stage: 'connecting', cause: 'error', code: 'ECONNREFUSED', refused: false })).toMatchObject({
      kind: 'retryable',
      code: 'connect_failed',
    });
    expect(classifyApnsTransportFailure({ stage: 'connecting', cause: 'error', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', refused: false })).toMatchObject({
      kind: 'retryable',
      code: 'tls_failed',
    });
    expect(classifyApnsTransportFailure({ stage: 'written', cause: 'error', code: 'ERR_HTTP2_STREAM_ERROR', refused: false }).kind).toBe('unknown');
    expect(classifyApnsTransportFailure({ stage: 'written', cause: 'timeout', refused: false }).kind).toBe('unknown');
    expect(classifyApnsTransportFailure({ stage: 'writing', cause: 'timeout', refused: false }).kind).toBe('retryable');
    expect(classifyApnsTransportFailure({ stage: 'written', cause: 'aborted', refused: false }).kind).toBe('unknown');
  });
});
