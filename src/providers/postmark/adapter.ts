/**
 * Herald's adapter for Postmark: one `POST /email` per submission with the server token, the
 * message stream chosen by purpose and Herald's reference in `Metadata`, classified by
 * classify.ts. Postmark has no idempotency key, so the safety net is the look-up: an `unknown`
 * is searched for by its metadata (lookup.ts) before the reconciler lets anything resend. With
 * webhook credentials configured it also authenticates Postmark's webhooks.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { endpointUrl, parseBaseUrl } from '../outbound-http/endpoint.js';
import { exchangeOnce, keepAliveAgent } from '../outbound-http/exchange.js';
import { postAndClassify, unknownOnThrow } from '../outbound-http/submit-once.js';
import { describeUnexpected } from '../outbound-http/transport-failure.js';
import type { AdapterCapabilities, LookupRequest, LookupResult, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { buildPostmarkEmail } from './build-request.js';
import { createPostmarkCallbackVerifier } from './callbacks.js';
import { classifyPostmarkResponse } from './classify.js';
import { classifyPostmarkLookup, combineLookups, lookupQuery } from './lookup.js';
import { POSTMARK_API_URL, readPostmarkSettings } from './settings.js';

// 64 sockets per account: a hard cap so a stalled endpoint cannot make Herald open sockets without bound.
const MAX_SOCKETS = 64;

/** What Postmark can do, as the account declares it: look-up by metadata (unless turned off); no dedupe by key. */
export function postmarkCapabilities(account: ProviderAccountConfig): AdapterCapabilities {
  return { lookup: account.capabilities?.lookup ?? true, dedupesByKey: false };
}

/** The endpoint: `base_url`, or Postmark's own. */
export function postmarkBase(account: ProviderAccountConfig): URL {
  return parseBaseUrl(account.id, account.base_url ?? POSTMARK_API_URL);
}

/** Creates the adapter; throws for a configuration error (unreadable credential, bad base_url) no retry can fix. */
export function createPostmarkAdapter(account: ProviderAccountConfig): ProviderAdapter {
  const settings = readPostmarkSettings(account);
  const base = postmarkBase(account);
  const agent = keepAliveAgent(base, MAX_SOCKETS);
  const headers = {
    accept: 'application/json',
    'x-postmark-server-token': settings.serverToken,
    'user-agent': 'herald-postmark-adapter',
  };

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    if (request.channel !== 'email') {
      // A routing bug in the caller, not a provider failure: nothing was sent.
      throw new Error(`provider account ${account.id} sends email, not ${request.channel}`);
    }
    return unknownOnThrow(async () => {
      return postAndClassify(
        {
          url: endpointUrl(base, '/email'),
          headers: { ...headers, 'content-type': 'application/json' },
          body: buildPostmarkEmail(request, settings),
          timeoutMs: account.timeout_ms,
          signal,
          agent,
          notAfter: request.sendBy,
        },
        classifyPostmarkResponse,
      );
    });
  };

  const lookupStream = async (reference: string, stream: string, signal?: AbortSignal): Promise<LookupResult> => {
    const result = await exchangeOnce({
      method: 'GET',
      url: endpointUrl(base, '/messages/outbound', lookupQuery(reference, stream)),
      headers,
      body: Buffer.alloc(0),
      timeoutMs: account.timeout_ms,
      signal,
      agent,
    });
    return classifyPostmarkLookup(result, reference);
  };

  const lookup = async (request: LookupRequest, signal?: AbortSignal): Promise<LookupResult> => {
    try {
      const streams = [...new Set([settings.transactionalStream, settings.broadcastStream])];
      return combineLookups(await Promise.all(streams.map((stream) => lookupStream(request.idempotencyKey, stream, signal))));
    } catch (error) {
      // Never "not found" on a surprise: only an authoritative answer may say that.
      return { kind: 'error', code: 'adapter_error', message: describeUnexpected(error) };
    }
  };

  const capabilities = postmarkCapabilities(account);
  return {
    kind: 'postmark',
    capabilities,
    submit,
    ...(capabilities.lookup ? { lookup } : {}),
    ...(settings.webhook === null ? {} : { callbacks: createPostmarkCallbackVerifier(settings.webhook) }),
    close: async () => {
      agent.destroy();
    },
  };
}
