/**
 * Herald's adapter for Firebase Cloud Messaging (HTTP v1). Each submission: an access token from
 * the account's cache (access-token.ts), then one `POST /v1/projects/{project}/messages:send`
 * carrying the delivery's collapse identity and its remaining lifetime, classified by how far it
 * got (outbound-http/exchange.ts) and what FCM answered (classify.ts). A 401 means FCM refused the token
 * and did not process the message, so the token is refreshed and the message sent once more;
 * a second 401 is final. The whole submission, token included, fits in `timeout_ms`.
 *
 * FCM has no idempotency key, no look-up and no delivery callbacks (docs/providers/fcm.md).
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { readPushTarget } from '../push/target.js';
import { endpointUrl } from '../outbound-http/endpoint.js';
import { exchangeOnce, type ExchangeResult, keepAliveAgent } from '../outbound-http/exchange.js';
import { classifyTransportFailure } from '../outbound-http/transport-failure.js';
import { unknownOnThrow } from '../outbound-http/submit-once.js';
import type { ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { isDataOnly } from '../push/data-only.js';
import { pushCollapseId, pushIdentityKey } from '../push/identity.js';
import { AccessTokenSource } from './access-token.js';
import { buildFcmMessage } from './build-message.js';
import { accessTokenRejected, classifyFcmResponse } from './classify.js';
import { FCM_API_URL, readServiceAccount } from './settings.js';

// 64 sockets per account: well above one worker's batch against one provider, and a hard cap so
// a stalled FCM cannot make Herald open sockets without bound (as the sandbox adapter).
const MAX_SOCKETS = 64;

export interface FcmAdapterOptions {
  /** Epoch ms for token expiry and message lifetimes. Default Date.now (tests pass a manual clock). */
  now?: () => number;
}

/** The adapter plus what tests need to see of its token cache. */
export interface FcmAdapter extends ProviderAdapter {
  readonly tokens: AccessTokenSource;
}

/** Builds the adapter for one FCM account; throws for a key `check` would have refused. */
export function createFcmAdapter(account: ProviderAccountConfig, options: FcmAdapterOptions = {}): FcmAdapter {
  const read = readServiceAccount(account);
  if (!read.ok) throw new Error(`provider account ${account.id}: ${read.problem.field} ${read.problem.message}`);
  const serviceAccount = read.value;
  const now = options.now ?? Date.now;
  const base = new URL(account.base_url ?? FCM_API_URL);
  const sendUrl = endpointUrl(base, `/v1/projects/${encodeURIComponent(serviceAccount.projectId)}/messages:send`);
  const agent = keepAliveAgent(base, MAX_SOCKETS);
  const tokenAgent = keepAliveAgent(new URL(serviceAccount.tokenUri), MAX_SOCKETS);
  const tokens = new AccessTokenSource({ serviceAccount, agent: tokenAgent, timeoutMs: account.timeout_ms, now });
  const dataOnly = isDataOnly(account);

  const sendOnce = (request: SubmitRequest, token: string, fcmToken: string, timeoutMs: number, signal?: AbortSignal): Promise<ExchangeResult> => {
    const body = buildFcmMessage({
      token: fcmToken,
      content: request.content,
      purpose: request.purpose,
      collapseId: pushCollapseId(pushIdentityKey(request.idempotencyKey, account.id)),
      expiresAt: request.expiresAt,
      nowMs: now(),
      dataOnly,
    });
    return exchangeOnce({
      url: sendUrl,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=UTF-8', accept: 'application/json', 'user-agent': 'herald-fcm' },
      body: Buffer.from(JSON.stringify(body)),
      timeoutMs,
      signal,
      agent,
      notAfter: request.sendBy,
    });
  };

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    const read = readPushTarget(account, request, 'fcm', { code: 'fcm_not_an_fcm_target', who: 'an FCM account' });
    if (!read.ok) return read.outcome;
    const target = read.target;
    return unknownOnThrow(async () => {
      const deadline = Date.now() + account.timeout_ms;
      for (let attempt = 1; ; attempt++) {
        const token = await tokens.get(deadline - Date.now(), signal);
        if (token.kind === 'failed') return token.outcome;
        if (deadline - Date.now() <= 0)
          return { kind: 'retryable', code: 'fcm_token_timeout', message: 'the access token took the whole timeout; nothing was sent' };
        const result = await sendOnce(request, token.accessToken, target.token, deadline - Date.now(), signal);
        if (result.kind === 'failure') return classifyTransportFailure(result.failure);
        // 401: FCM refused the token and processed nothing, so one resend with a fresh token is safe.
        if (attempt === 1 && accessTokenRejected(result)) {
          tokens.invalidate(token.accessToken);
          continue;
        }
        return classifyFcmResponse(result, now());
      }
    });
  };

  return {
    kind: 'fcm',
    capabilities: { lookup: false, dedupesByKey: account.capabilities?.dedupes_by_key ?? false },
    tokens,
    submit,
    close: async () => {
      agent.destroy();
      tokenAgent.destroy();
    },
  };
}
