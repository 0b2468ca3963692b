/**
 * Herald's adapter for Web Push (RFC 8030 push message requests, RFC 8291 encryption, RFC 8292
 * VAPID). Each submission is encrypted and signed by the `web-push` library (build-request.ts) and
 * sent by Herald's own exchange (outbound-http/exchange.ts), not by the library's sendNotification, so that
 * how far the request got decides the outcome: a failure before it was written is retryable,
 * after it unknown. Every subscription names its own push service (FCM, Mozilla, Apple, WNS...).
 *
 * Web Push has no idempotency key, no look-up and no callbacks (docs/providers/webpush.md).
 * `base_url` is for tests only: every request goes to that origin (the endpoint's path kept),
 * while the VAPID audience stays the endpoint's own origin.
 */
import http from 'node:http';
import https from 'node:https';
import type { SubmitOutcome } from '../../domain/index.js';
import { readPushTarget } from '../push/target.js';
import { exchangeOnce } from '../outbound-http/exchange.js';
import { classifyTransportFailure } from '../outbound-http/transport-failure.js';
import { unknownOnThrow } from '../outbound-http/submit-once.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { buildWebPushRequest, PayloadTooLargeError, type WebPushRequest } from './build-request.js';
import { classifyWebPushResponse } from './classify.js';
import { readVapidKeys } from './settings.js';
import { pushIdentityKey } from '../push/identity.js';

// 64 sockets per push service host, as the other HTTP adapters: a cap, not a target.
const MAX_SOCKETS = 64;

export interface WebPushAdapterOptions {
  /** Epoch ms for message lifetimes. Default Date.now (tests pass a manual clock). */
  now?: () => number;
}

/** Builds the adapter for one Web Push account; throws for keys `check` would have refused. */
export function createWebPushAdapter(account: ProviderAccountConfig, options: WebPushAdapterOptions = {}): ProviderAdapter {
  const read = readVapidKeys(account);
  if (!read.ok) throw new Error(`provider account ${account.id}: ${read.problem.field} ${read.problem.message}`);
  const vapid = read.value;
  const now = options.now ?? Date.now;
  const override = account.base_url === undefined ? null : new URL(account.base_url);
  const agentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS };
  const httpsAgent = new https.Agent(agentOptions);
  const httpAgent = new http.Agent(agentOptions);

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    const read = readPushTarget(account, request, 'webpush', { code: 'webpush_not_a_subscription', who: 'a Web Push account' });
    if (!read.ok) return read.outcome;
    const target = read.target;
    let wire: WebPushRequest;
    try {
      wire = buildWebPushRequest({
        subscription: target,
        content: request.content,
        purpose: request.purpose,
        idempotencyKey: pushIdentityKey(request.idempotencyKey, account.id),
        expiresAt: request.expiresAt,
        nowMs: now(),
        vapid,
      });
    } catch (error) {
      if (error instanceof PayloadTooLargeError)
        return { kind: 'permanent', reason: 'content_rejected', code: 'webpush_payload_too_large', message: error.message };
      // web-push refuses keys of the wrong length before anything is sent: the subscription is unusable.
      return {
        kind: 'permanent',
        reason: 'invalid_destination',
        code: 'webpush_bad_token',
        message: "the subscription's keys cannot encrypt a payload (p256dh must be a P-256 point, auth at least 16 bytes)",
      };
    }
    const host = wire.endpoint.host;
    return unknownOnThrow(async () => {
      const url = override === null ? wire.endpoint : new URL(`${wire.endpoint.pathname}${wire.endpoint.search}`, override.origin);
      const result = await exchangeOnce({
        url,
        headers: { ...wire.headers, 'user-agent': 'herald-webpush' },
        body: wire.body,
        timeoutMs: account.timeout_ms,
        signal,
        agent: url.protocol === 'https:' ? httpsAgent : httpAgent,
        notAfter: request.sendBy,
      });
      return result.kind === 'failure' ? classifyTransportFailure(result.failure) : classifyWebPushResponse(result, host, now());
    });
  };

  return {
    kind: 'webpush',
    capabilities: { lookup: false, dedupesByKey: account.capabilities?.dedupes_by_key ?? false },
    submit,
    close: async () => {
      httpsAgent.destroy();
      httpAgent.destroy();
    },
  };
}
