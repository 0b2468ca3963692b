/**
 * Herald's adapter for Resend: one `POST /emails` per submission with
 * `Authorization: Bearer <key>` and `Idempotency-Key: <Herald's key>`, the same key and the
 * same body on every attempt of a delivery, classified by classify.ts. No look-up: Resend
 * finds a message by its own id only (`GET /emails/{id}`), and a lost answer never gave that
 * id; an `unknown` is settled by sending again with the same key, which Resend answers with
 * the original answer (the kind's default policy, `resend_same_key`). With callback secrets it
 * also verifies Resend's (Svix-signed) webhooks.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { resolveCallbackSecrets } from '../callback-secrets.js';
import { endpointUrl, parseBaseUrl } from '../outbound-http/endpoint.js';
import { keepAliveAgent } from '../outbound-http/exchange.js';
import { postAndClassify, unknownOnThrow } from '../outbound-http/submit-once.js';
import type { AdapterCapabilities, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { buildResendEmail } from './build-request.js';
import { createResendCallbackVerifier } from './callbacks.js';
import { classifyResendResponse } from './classify.js';
import { readResendSettings, RESEND_API_URL } from './settings.js';

// 64 sockets per account: far above Resend's default 2 requests/s, and a hard cap so a stalled
// endpoint cannot make Herald open sockets without bound.
const MAX_SOCKETS = 64;

/** What Resend can do, as the account declares it: no look-up; dedupe by key unless turned off. */
export function resendCapabilities(account: ProviderAccountConfig): AdapterCapabilities {
  return { lookup: false, dedupesByKey: account.capabilities?.dedupes_by_key ?? true };
}

/** The endpoint: `base_url`, or Resend's own. */
export function resendBase(account: ProviderAccountConfig): URL {
  return parseBaseUrl(account.id, account.base_url ?? RESEND_API_URL);
}

/** Creates the adapter; throws for a configuration error (unreadable key, bad base_url) no retry can fix. */
export function createResendAdapter(account: ProviderAccountConfig): ProviderAdapter {
  const settings = readResendSettings(account);
  const base = resendBase(account);
  const agent = keepAliveAgent(base, MAX_SOCKETS);
  const url = endpointUrl(base, '/emails');

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    if (request.channel !== 'email') {
      // A routing bug in the caller, not a provider failure: nothing was sent.
      throw new Error(`provider account ${account.id} sends email, not ${request.channel}`);
    }
    return unknownOnThrow(async () => {
      return postAndClassify(
        {
          url,
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            authorization: `Bearer ${settings.apiKey}`,
            'idempotency-key': request.idempotencyKey,
            'user-agent': 'herald-resend-adapter',
          },
          body: buildResendEmail(request, settings),
          timeoutMs: account.timeout_ms,
          signal,
          agent,
          notAfter: request.sendBy,
        },
        classifyResendResponse,
      );
    });
  };

  const secrets = resolveCallbackSecrets(account);
  return {
    kind: 'resend',
    capabilities: resendCapabilities(account),
    submit,
    ...(secrets === null ? {} : { callbacks: createResendCallbackVerifier(secrets) }),
    close: async () => {
      agent.destroy();
    },
  };
}
