/**
 * Herald's adapter for Telnyx Messaging (SMS). One POST per submission through the staged
 * HTTP exchange (a failure says whether the request was completely written), carrying the
 * delivery's Idempotency-Key, classified by classify.ts. Where Telnyx honours the key it replays
 * a completed request's answer for 24 h; that the messages endpoint does is not documented, so
 * the default settles an `unknown` by waiting for evidence (docs/providers/telnyx.md).
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { endpointUrl, parseBaseUrl } from '../outbound-http/endpoint.js';
import { keepAliveAgent } from '../outbound-http/exchange.js';
import { postAndClassify, unknownOnThrow } from '../outbound-http/submit-once.js';
import type { AdapterContext } from '../kinds.js';
import type { AdapterCapabilities, SyncCallbackVerifier, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { buildTelnyxMessage, MESSAGES_PATH, telnyxIdempotencyKey } from './build-request.js';
import { createTelnyxCallbackVerifier } from './callbacks.js';
import { classifyTelnyxResponse } from './classify.js';
import { readTelnyxSettings, TELNYX_API_URL, type TelnyxSettings } from './settings.js';

// 16 sockets: far more than one account's sends at Telnyx's documented rates need.
const MAX_SOCKETS = 16;

/**
 * What Telnyx can do: no look-up by Herald's reference; dedupe by key only where the account
 * declares it (the messages endpoint's reference does not declare Idempotency-Key).
 */
export function telnyxCapabilities(account: ProviderAccountConfig): AdapterCapabilities {
  return { lookup: false, dedupesByKey: account.capabilities?.dedupes_by_key ?? false };
}

/** The account's webhook verifier, or null without a public key. */
export function telnyxCallbackVerifier(settings: Pick<TelnyxSettings, 'publicKeys'>): SyncCallbackVerifier | null {
  return settings.publicKeys.length === 0 ? null : createTelnyxCallbackVerifier(settings.publicKeys);
}

/** Builds the adapter for one Telnyx account; throws for a configuration error `check` should have caught. */
export function createTelnyxAdapter(account: ProviderAccountConfig, context: AdapterContext): ProviderAdapter {
  const settings = readTelnyxSettings(account);
  const base = parseBaseUrl(account.id, account.base_url ?? TELNYX_API_URL);
  const agent = keepAliveAgent(base, MAX_SOCKETS);
  const callbacks = telnyxCallbackVerifier(settings);
  // Herald's URL only where it can verify what comes back; else the profile's webhooks apply.
  const webhookUrl = callbacks === null ? null : context.callbackUrl;

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    if (request.channel !== 'sms') throw new Error(`provider account ${account.id} sends sms, not ${request.channel}`);
    return unknownOnThrow(async () => {
      const url = endpointUrl(base, MESSAGES_PATH);
      return postAndClassify(
        {
          url,
          headers: {
            accept: 'application/json',
            authorization: `Bearer ${settings.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': telnyxIdempotencyKey(request.idempotencyKey),
            'user-agent': 'herald-telnyx-adapter',
          },
          body: buildTelnyxMessage({ settings, request, webhookUrl }),
          timeoutMs: account.timeout_ms,
          signal,
          agent,
          notAfter: request.sendBy,
        },
        classifyTelnyxResponse,
      );
    });
  };

  return {
    kind: 'telnyx',
    capabilities: telnyxCapabilities(account),
    submit,
    ...(callbacks === null ? {} : { callbacks }),
    close: async () => {
      agent.destroy();
    },
  };
}
