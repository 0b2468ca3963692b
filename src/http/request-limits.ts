/**
 * The per-key request quota (docs/abuse-limits.md): every /v1 request, once authenticated, is
 * counted for its API key (or dashboard user) in a fixed window in the store
 * (`store.intakeLimits.countRequest`), so N API processes share one quota instead of granting N
 * times it. Over the quota: 429 `rate_limited` with Retry-After. Every counted answer carries the
 * IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10/11, Structured Fields):
 *
 *   RateLimit-Policy: "per-key";q=600;w=60     the quota and its window in seconds
 *   RateLimit: "per-key";r=599;t=42            what is left and seconds until the window resets
 *
 * Fixed windows: one upsert per request (one row per key, never growing), exact across
 * processes; the price is that a client may spend up to twice the quota across a window boundary,
 * which the velocity limits (per destination, sliding) do not share.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { fixedWindow, quotaFor, requestVerdict, type IntakeLimitsPolicy } from '../domain/index.js';
import { HeraldError } from '../errors.js';
import type { DeliveryCounters } from '../metrics/counters.js';
import type { Store } from '../store/store.js';

/** The policy's name in the RateLimit fields. */
export const REQUEST_POLICY_ID = 'per-key';

/** Where a request stands against its quota, after it was counted. */
export interface RequestQuotaState {
  limit: number;
  windowS: number;
  remaining: number;
  resetS: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's quota after counting it; null when no quota applies. */
    requestQuota: RequestQuotaState | null;
  }
}

export interface RequestLimitDeps {
  store: Store;
  clock: Clock;
  policy: IntakeLimitsPolicy;
  counters?: DeliveryCounters;
}

/**
 * Adds the quota to every route of the (encapsulated) app it is called on; call it after
 * `requireApiKey` on the same app, so the request's key is known when it runs.
 */
export function installRequestLimits(app: FastifyInstance, deps: RequestLimitDeps): void {
  app.decorateRequest('requestQuota', null);
  // Every route registered after this one may answer 429 rate_limited: say so in its OpenAPI.
  if (deps.policy.requests !== null || Object.keys(deps.policy.requestOverrides).length > 0) {
    app.addHook('onRoute', (route) => {
      const schema = route.schema as { response?: Record<string, unknown> } | undefined;
      if (schema?.response && !('429' in schema.response)) schema.response['429'] = { $ref: 'problem#' };
    });
  }
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const subject = request.apiKeyId;
    const quota = subject ? quotaFor(deps.policy, subject) : null;
    if (quota === null) return;
    const now = deps.clock.now();
    const count = await deps.store.intakeLimits.countRequest(subject, fixedWindow(now, quota.windowS).start);
    const v = requestVerdict(quota, count, now);
    request.requestQuota = { limit: quota.limit, windowS: quota.windowS, remaining: v.remaining, resetS: v.resetS };
    reply.header('ratelimit-policy', `"${REQUEST_POLICY_ID}";q=${quota.limit};w=${quota.windowS}`);
    reply.header('ratelimit', `"${REQUEST_POLICY_ID}";r=${v.remaining};t=${v.resetS}`);
    if (v.allowed) return;
    deps.counters?.series.intakeLimitRefusals.inc({ limit: 'request_rate' });
    throw new HeraldError('rate_limited', `this API key may make ${quota.limit} requests per ${quota.windowS} s; wait ${v.resetS} s`, [], {
      limit: { name: 'request_rate', max: quota.limit, window_s: quota.windowS },
      retryAfterS: v.resetS,
    });
  });
}
