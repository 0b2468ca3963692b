/** FCM's answers, as its documentation and SDK threads show them, classified (src/providers/fcm/classify.ts). */
import { describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../../src/domain/index.js';
import {
  accessTokenRejected,
  classifyFcmResponse,
  classifyTokenResponse,
  invalidArgumentIsAboutToken,
  PROJECT_QUOTA_MIN_DELAY_MS,
  quotaScope,
  readRpcError,
} from '../../../src/providers/fcm/classify.js';
import { FCM_ANSWERS, type FcmAnswerName } from '../fakes/fcm.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

type Expected = Partial<SubmitOutcome> & { kind: SubmitOutcome['kind'] };

const TABLE: Record<FcmAnswerName, Expected> = {
  unregistered: { kind: 'permanent', reason: 'invalid_destination', code: 'fcm_unregistered' },
  invalid_token: { kind: 'permanent', reason: 'invalid_destination', code: 'fcm_bad_token' },
  invalid_token_field: { kind: 'permanent', reason: 'invalid_destination', code: 'fcm_bad_token' },
  // INVALID_ARGUMENT about the message, not the token: the token must not be dropped.
  invalid_data_value: { kind: 'permanent', reason: 'content_rejected', code: 'fcm_invalid_argument' },
  message_too_big: { kind: 'permanent', reason: 'content_rejected', code: 'fcm_invalid_argument' },
  payload_too_large_bare: { kind: 'permanent', reason: 'content_rejected', code: 'fcm_invalid_argument' },
  project_quota: { kind: 'throttled', code: 'fcm_quota_exceeded', scope: 'account', retryAfterMs: PROJECT_QUOTA_MIN_DELAY_MS },
  device_quota: { kind: 'throttled', code: 'fcm_device_quota_exceeded', scope: 'destination', retryAfterMs: null },
  unavailable: { kind: 'retryable', code: 'fcm_unavailable', retryAfterMs: null },
  internal: { kind: 'retryable', code: 'fcm_internal', retryAfterMs: null },
  sender_id_mismatch: { kind: 'permanent', reason: 'other', code: 'fcm_sender_id_mismatch' },
  third_party_auth_error: { kind: 'permanent', reason: 'unauthorized', code: 'fcm_third_party_auth_error' },
  unauthenticated: { kind: 'permanent', reason: 'unauthorized', code: 'fcm_unauthenticated' },
};

describe('FCM answers classified', () => {
  for (const [name, expected] of Object.entries(TABLE) as Array<[FcmAnswerName, Expected]>) {
    const answer = FCM_ANSWERS[name];
    it(`${name} (HTTP ${answer.status}; ${answer.source}) → ${expected.kind} ${'code' in expected ? expected.code : ''}`, () => {
      const outcome = classifyFcmResponse({ status: answer.status, body: answer.body }, NOW);
      expect(outcome).toMatchObject(expected);
      // Built from enum names only: FCM's own text never reaches an outcome.
      const fcmMessage = (answer.body as { error: { message: string } }).error.message;
      expect(JSON.stringify(outcome)).not.toContain(fcmMessage);
    });
  }

  it('accepted: the message name is the provider id', () => {
    expect(classifyFcmResponse({ status: 200, body: { name: 'projects/p/messages/0:1500415314455276%31bd1c9631bd1c96' } }, NOW)).toEqual({
      kind: 'accepted',
      providerMessageId: 'projects/p/messages/0:1500415314455276%31bd1c9631bd1c96',
    });
    expect(classifyFcmResponse({ status: 200, body: null }, NOW)).toEqual({ kind: 'accepted', providerMessageId: null });
  });

  it('honours Retry-After on UNAVAILABLE and INTERNAL, and on a quota only above its one-minute floor', () => {
    const unavailable = FCM_ANSWERS.unavailable;
    expect(classifyFcmResponse({ status: 503, retryAfter: '30', body: unavailable.body }, NOW)).toMatchObject({ kind: 'retryable', retryAfterMs: 30_000 });
    expect(classifyFcmResponse({ status: 500, retryAfter: new Date(NOW + 90_000).toUTCString(), body: FCM_ANSWERS.internal.body }, NOW)).toMatchObject({
      kind: 'retryable',
      retryAfterMs: 90_000,
    });
    const quota = FCM_ANSWERS.project_quota.body;
    expect(classifyFcmResponse({ status: 429, retryAfter: '10', body: quota }, NOW)).toMatchObject({ retryAfterMs: PROJECT_QUOTA_MIN_DELAY_MS });
    expect(classifyFcmResponse({ status: 429, retryAfter: '120', body: quota }, NOW)).toMatchObject({ retryAfterMs: 120_000 });
    // A device's limit has no floor: the hint, or none (the ladder backs off).
    expect(classifyFcmResponse({ status: 429, retryAfter: '7', body: FCM_ANSWERS.device_quota.body }, NOW)).toMatchObject({
      scope: 'destination',
      retryAfterMs: 7_000,
    });
  });

  it('reads gateway errors as unknown and other statuses by class, never quoting the body', () => {
    const html = '<!DOCTYPE html><title>Error 502 (Server Error)!!1</title>';
    expect(classifyFcmResponse({ status: 502, body: html }, NOW)).toMatchObject({ kind: 'unknown', code: 'gateway_error' });
    expect(classifyFcmResponse({ status: 504, body: null }, NOW)).toMatchObject({ kind: 'unknown' });
    expect(classifyFcmResponse({ status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: 'x' } } }, NOW)).toMatchObject({
      kind: 'permanent',
      code: 'fcm_project_not_found',
    });
    expect(classifyFcmResponse({ status: 403, body: { error: { code: 403, status: 'PERMISSION_DENIED', message: 'x' } } }, NOW)).toMatchObject({
      kind: 'permanent',
      reason: 'unauthorized',
    });
    expect(classifyFcmResponse({ status: 302, body: null }, NOW)).toMatchObject({ kind: 'retryable', code: 'unexpected_status' });
    const odd = classifyFcmResponse(
      { status: 400, body: { error: { status: 'not an enum; with a token AAAA:bbb', details: [{ '@type': 'x', errorCode: 'lower case' }] } } },
      NOW,
    );
    expect(JSON.stringify(odd)).not.toContain('AAAA');
  });

  it('tells a token INVALID_ARGUMENT from a payload one by its details', () => {
    expect(invalidArgumentIsAboutToken(readRpcError(FCM_ANSWERS.invalid_token.body))).toBe(true);
    expect(invalidArgumentIsAboutToken(readRpcError(FCM_ANSWERS.invalid_token_field.body))).toBe(true);
    expect(invalidArgumentIsAboutToken(readRpcError(FCM_ANSWERS.message_too_big.body))).toBe(false);
    expect(invalidArgumentIsAboutToken(readRpcError(FCM_ANSWERS.invalid_data_value.body))).toBe(false);
    expect(invalidArgumentIsAboutToken(readRpcError(FCM_ANSWERS.payload_too_large_bare.body))).toBe(false);
    expect(invalidArgumentIsAboutToken(null)).toBe(false);
  });

  it('scopes a quota by its QuotaFailure: a device, else the project', () => {
    expect(quotaScope(readRpcError(FCM_ANSWERS.device_quota.body))).toBe('destination');
    expect(quotaScope(readRpcError(FCM_ANSWERS.project_quota.body))).toBe('account');
    expect(quotaScope(null)).toBe('account');
  });

  it('refreshes the access token on a 401, except a third party refusing the project', () => {
    expect(accessTokenRejected({ status: 401, body: FCM_ANSWERS.unauthenticated.body })).toBe(true);
    expect(accessTokenRejected({ status: 401, body: null })).toBe(true);
    expect(accessTokenRejected({ status: 401, body: FCM_ANSWERS.third_party_auth_error.body })).toBe(false);
    expect(accessTokenRejected({ status: 403, body: FCM_ANSWERS.sender_id_mismatch.body })).toBe(false);
  });
});

describe('token endpoint answers classified (RFC 6749 §5.2, Google OAuth 2)', () => {
  it('a token with its expiry', () => {
    expect(classifyTokenResponse({ status: 200, body: { access_token: 'ya29.a', expires_in: 3599, token_type: 'Bearer' } }, NOW)).toEqual({
      kind: 'token',
      accessToken: 'ya29.a',
      expiresAtMs: NOW + 3_599_000,
    });
  });

  it('a refused key is permanent unauthorized; nothing quoted', () => {
    const answer = classifyTokenResponse({ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } }, NOW);
    expect(answer).toMatchObject({ kind: 'failed', outcome: { kind: 'permanent', reason: 'unauthorized', code: 'fcm_auth_failed' } });
    expect(JSON.stringify(answer)).not.toContain('Signature');
    expect(classifyTokenResponse({ status: 401, body: { error: 'invalid_client', error_description: 'The OAuth client was not found.' } }, NOW)).toMatchObject({
      outcome: { kind: 'permanent', reason: 'unauthorized' },
    });
  });

  it('an unavailable, throttled or odd endpoint is retryable: no message was sent', () => {
    expect(classifyTokenResponse({ status: 503, retryAfter: '5', body: null }, NOW)).toMatchObject({
      outcome: { kind: 'retryable', code: 'fcm_token_unavailable', retryAfterMs: 5_000 },
    });
    expect(classifyTokenResponse({ status: 429, body: null }, NOW)).toMatchObject({ outcome: { kind: 'retryable', code: 'fcm_token_throttled' } });
    expect(classifyTokenResponse({ status: 200, body: { access_token: '' } }, NOW)).toMatchObject({
      outcome: { kind: 'retryable', code: 'fcm_token_malformed' },
    });
  });
});
