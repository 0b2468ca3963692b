/**
 * Herald's adapter for the Apple Push Notification service over HTTP/2 with token-based
 * authentication. One HTTP/2 session per APNs host (production, sandbox) for the adapter's life,
 * one provider token for every send (provider-token.ts), each send classified by how far its
 * stream got (http2-exchange.ts) and what APNs answered (classify.ts). A 403
 * ExpiredProviderToken means APNs processed nothing, so when the token may be replaced the
 * request is sent once more with the new one.
 *
 * APNs has no idempotency key, no look-up and no delivery callbacks (docs/providers/apns.md).
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { unknownOnThrow } from '../outbound-http/submit-once.js';
import { readPushTarget } from '../push/target.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { isDataOnly } from '../push/data-only.js';
import { buildApnsRequest } from './build-request.js';
import { classifyApnsResponse, classifyApnsTransportFailure, providerTokenExpired } from './classify.js';
import { Http2Sessions } from './http2-exchange.js';
import { ProviderTokens } from './provider-token.js';
import { APNS_PRODUCTION_URL, APNS_SANDBOX_URL, readApnsCredentials, readExtraCa } from './settings.js';
import { pushIdentityKey } from '../push/identity.js';

export interface ApnsAdapterOptions {
  /** Epoch ms for provider-token ages and message lifetimes. Default Date.now (tests pass a manual clock). */
  now?: () => number;
}

/** The adapter plus what tests need to see of its token and sessions. */
export interface ApnsAdapter extends ProviderAdapter {
  readonly tokens: ProviderTokens;
  readonly sessions: Http2Sessions;
}

/** The origin a target's environment is sent to: base_url when set (a test server), else Apple's host. */
export function apnsOrigin(account: ProviderAccountConfig, environment: 'production' | 'sandbox'): string {
  if (account.base_url !== undefined) return new URL(account.base_url).origin;
  return environment === 'sandbox' ? APNS_SANDBOX_URL : APNS_PRODUCTION_URL;
}

/** Builds the adapter for one APNs account; throws for a key `check` would have refused. */
export function createApnsAdapter(account: ProviderAccountConfig, options: ApnsAdapterOptions = {}): ApnsAdapter {
  const read = readApnsCredentials(account);
  if (!read.ok) throw new Error(`provider account ${account.id}: ${read.problem.field} ${read.problem.message}`);
  const { keyId, teamId, signingKey, topic } = read.value;
  const now = options.now ?? Date.now;
  const tokens = new ProviderTokens({ keyId, teamId, signingKey, now });
  const sessions = new Http2Sessions(readExtraCa(account));
  const dataOnly = isDataOnly(account);

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    const read = readPushTarget(account, request, 'apns', { code: 'apns_not_an_apns_target', who: 'an APNs account' });
    if (!read.ok) return read.outcome;
    const target = read.target;
    return unknownOnThrow(async () => {
      const deadline = Date.now() + account.timeout_ms;
      let token = await tokens.current();
      for (let attempt = 1; ; attempt++) {
        const wire = buildApnsRequest({
          deviceToken: target.token,
          topic,
          content: request.content,
          purpose: request.purpose,
          idempotencyKey: pushIdentityKey(request.idempotencyKey, account.id),
          expiresAt: request.expiresAt,
          nowMs: now(),
          dataOnly,
        });
        const result = await sessions.request({
          origin: apnsOrigin(account, target.environment),
          path: wire.path,
          headers: { ...wire.headers, authorization: `bearer ${token.jwt}` },
          body: wire.body,
          timeoutMs: deadline - Date.now(),
          signal,
          notAfter: request.sendBy,
        });
        if (result.kind === 'failure') return classifyApnsTransportFailure(result.failure);
        // 403 ExpiredProviderToken: nothing was processed; one more try if a newer token may be used.
        if (attempt === 1 && providerTokenExpired(result)) {
          const replacement = await tokens.replacementFor(token);
          if (replacement !== null) {
            token = replacement;
            continue;
          }
        }
        return classifyApnsResponse(result, now());
      }
    });
  };

  return {
    kind: 'apns',
    capabilities: { lookup: false, dedupesByKey: account.capabilities?.dedupes_by_key ?? false },
    tokens,
    sessions,
    submit,
    close: async () => {
      sessions.close();
    },
  };
}
