/**
 * Herald's adapter for the sandbox provider. It sends each submission once, with Herald's
 * idempotency key, and reports a classified outcome. What the provider behind the account
 * can do comes from the account's `capabilities` (a sandbox account imitates a provider):
 * look-up by reference (default on: the sandbox answers `GET /v1/messages`) and dedupe by key
 * (default off, as the sandbox's default; only then may an `unknown` be resent with the same
 * key). With callback secrets configured it also verifies the sandbox's delivery callbacks.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import type { AdapterCapabilities, LookupRequest, LookupResult, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { buildWireRequest } from './build-request.js';
import { createSandboxCallbackVerifier, resolveCallbackSecrets } from './callbacks.js';
import { classifyResponse } from './classify.js';
import { endpointUrl, parseBaseUrl } from '../outbound-http/endpoint.js';
import { exchangeOnce, keepAliveAgent } from '../outbound-http/exchange.js';
import { postAndClassify, unknownOnThrow } from '../outbound-http/submit-once.js';
import { classifyLookup, LOOKUP_PATH } from './lookup.js';
import { describeUnexpected } from '../outbound-http/transport-failure.js';

// 64 sockets per account: well above what one worker's batch needs against one provider,
// and a hard cap so a stalled provider cannot make Herald open sockets without bound.
const MAX_SOCKETS = 64;

/** The sandbox account's API key: the literal `api_key`, else the variable `api_key_env` names; undefined when neither gives one. */
export function resolveApiKey(account: ProviderAccountConfig): string | undefined {
  if (account.api_key !== undefined && account.api_key !== '') return account.api_key;
  if (account.api_key_env === undefined) return undefined;
  const fromEnv = process.env[account.api_key_env];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** The account's declared capabilities, with the sandbox defaults: lookup true, dedupesByKey false. */
export function sandboxCapabilities(account: ProviderAccountConfig): AdapterCapabilities {
  return {
    lookup: account.capabilities?.lookup ?? true,
    dedupesByKey: account.capabilities?.dedupes_by_key ?? false,
  };
}

/**
 * Creates the adapter for one sandbox account; throws at once if `base_url` is not an
 * http(s) URL or a callback secret is empty, because those are configuration errors no
 * retry can fix.
 */
export function createSandboxAdapter(account: ProviderAccountConfig): ProviderAdapter {
  if (account.base_url === undefined) throw new Error(`provider account ${account.id}: a sandbox account needs base_url`);
  const base = parseBaseUrl(account.id, account.base_url);
  const agent = keepAliveAgent(base, MAX_SOCKETS);

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    if (request.channel !== account.channel) {
      // A routing bug in the caller, not a provider failure: nothing was sent.
      throw new Error(`provider account ${account.id} serves ${account.channel}, not ${request.channel}`);
    }
    return unknownOnThrow(async () => {
      const wire = buildWireRequest(request.channel, request);
      const url = endpointUrl(base, wire.path);
      const headers: Record<string, string> = {
        accept: 'application/json',
        'content-type': wire.contentType,
        'idempotency-key': request.idempotencyKey,
        'user-agent': 'herald-sandbox-adapter',
      };
      const apiKey = resolveApiKey(account);
      if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;

      return postAndClassify(
        {
          url,
          headers,
          body: wire.body,
          timeoutMs: account.timeout_ms,
          signal,
          agent,
          notAfter: request.sendBy,
        },
        classifyResponse,
      );
    });
  };

  const lookup = async (request: LookupRequest, signal?: AbortSignal): Promise<LookupResult> => {
    try {
      const url = endpointUrl(base, LOOKUP_PATH);
      url.searchParams.set('reference', request.idempotencyKey);
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': 'herald-sandbox-adapter',
      };
      const apiKey = resolveApiKey(account);
      if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
      const result = await exchangeOnce({
        method: 'GET',
        url,
        headers,
        body: Buffer.alloc(0),
        timeoutMs: account.timeout_ms,
        signal,
        agent,
      });
      return classifyLookup(result, request.idempotencyKey, request.channel);
    } catch (error) {
      // Never "not found" on a surprise: only an authoritative answer may say that.
      return { kind: 'error', code: 'adapter_error', message: describeUnexpected(error) };
    }
  };

  const capabilities = sandboxCapabilities(account);
  const secrets = resolveCallbackSecrets(account);
  const adapter: ProviderAdapter = {
    kind: 'sandbox',
    capabilities,
    submit,
    ...(capabilities.lookup ? { lookup } : {}),
    ...(secrets === null ? {} : { callbacks: createSandboxCallbackVerifier(secrets) }),
    close: async () => {
      agent.destroy();
    },
  };
  return adapter;
}
