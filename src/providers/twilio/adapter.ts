/**
 * Herald's adapter for Twilio Programmable Messaging (SMS). One POST per submission through
 * the staged HTTP exchange (so a failure says whether the request was completely written),
 * classified by classify.ts. Twilio takes no idempotency key and has no look-up by Herald's
 * reference, so an `unknown` is settled by evidence: the StatusCallback URL carries the
 * delivery's key as `ref`, signed by Twilio with the rest of the URL (docs/providers/twilio.md).
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { endpointUrl, parseBaseUrl } from '../outbound-http/endpoint.js';
import { keepAliveAgent } from '../outbound-http/exchange.js';
import { postAndClassify, unknownOnThrow } from '../outbound-http/submit-once.js';
import type { AdapterContext } from '../kinds.js';
import type { AdapterCapabilities, InboundReceiver, SyncCallbackVerifier, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { buildTwilioMessage, statusCallbackUrl, validityPeriodSeconds } from './build-request.js';
import { createTwilioCallbackVerifier } from './callbacks.js';
import { classifyTwilioResponse } from './classify.js';
import { createTwilioInboundReceiver } from './inbound.js';
import { readTwilioSettings, TWILIO_API_URL, type TwilioSettings } from './settings.js';

// 16 sockets: Twilio's default REST concurrency is limited per account (20429 beyond it), and
// one account's sends at its documented throughput need far fewer.
const MAX_SOCKETS = 16;

/**
 * What Twilio can do: no look-up by Herald's reference, no dedupe by key. Facts of the
 * provider, not settings: `check` refuses an account that declares otherwise.
 */
export const TWILIO_CAPABILITIES: AdapterCapabilities = { lookup: false, dedupesByKey: false };

/** The Auth Tokens that verify an account's callbacks: its Auth Token, then any listed in `callback_secrets` (a previous token while rotating). */
export function twilioCallbackTokens(account: ProviderAccountConfig, settings: Pick<TwilioSettings, 'authToken'>): string[] {
  const tokens = [settings.authToken, ...(account.callback_secrets ?? [])].filter((t): t is string => typeof t === 'string' && t !== '');
  return [...new Set(tokens)];
}

/** The account's callback verifier, or null without an Auth Token (API-key accounts may have none). */
export function twilioCallbackVerifier(account: ProviderAccountConfig, settings: Pick<TwilioSettings, 'authToken'>): SyncCallbackVerifier | null {
  const tokens = twilioCallbackTokens(account, settings);
  return tokens.length === 0 ? null : createTwilioCallbackVerifier(tokens);
}

/** The account's inbound-message receiver, verified with the same Auth Tokens as its callbacks; null without one. */
export function twilioInboundReceiver(account: ProviderAccountConfig, settings: Pick<TwilioSettings, 'authToken'>): InboundReceiver | null {
  const tokens = twilioCallbackTokens(account, settings);
  return tokens.length === 0 ? null : createTwilioInboundReceiver(tokens);
}

/**
 * Builds the adapter for one Twilio account; throws for a configuration error (an unreadable
 * credential, a base_url that is not http(s)) that `check` should have caught.
 */
export function createTwilioAdapter(account: ProviderAccountConfig, context: AdapterContext): ProviderAdapter {
  const settings = readTwilioSettings(account);
  const base = parseBaseUrl(account.id, account.base_url ?? TWILIO_API_URL);
  const agent = keepAliveAgent(base, MAX_SOCKETS);
  const authorization = `Basic ${Buffer.from(`${settings.username}:${settings.password}`).toString('base64')}`;
  const callbacks = twilioCallbackVerifier(account, settings);
  // A StatusCallback only where Herald can verify what comes back: an unverifiable callback would be refused anyway.
  const callbackUrl = callbacks === null ? null : context.callbackUrl;

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    if (request.channel !== 'sms') throw new Error(`provider account ${account.id} sends sms, not ${request.channel}`);
    return unknownOnThrow(async () => {
      const validityPeriod = validityPeriodSeconds(request.expiresAt, Date.now(), account.timeout_ms);
      if (validityPeriod === null) {
        // Twilio's shortest ValidityPeriod (1 s) could still outlive the message: send nothing.
        return {
          kind: 'retryable',
          code: 'expires_too_soon',
          message: 'less than 1 s of validity would remain when Twilio receives the message; not sent',
          retryAfterMs: null,
        };
      }
      const message = buildTwilioMessage({
        settings,
        request,
        validityPeriod,
        statusCallback: callbackUrl === null ? null : statusCallbackUrl(callbackUrl, request.idempotencyKey),
      });
      const url = endpointUrl(base, message.path);
      return postAndClassify(
        {
          url,
          headers: {
            accept: 'application/json',
            authorization,
            'content-type': 'application/x-www-form-urlencoded',
            'user-agent': 'herald-twilio-adapter',
          },
          body: message.body,
          timeoutMs: account.timeout_ms,
          signal,
          agent,
          notAfter: request.sendBy,
        },
        classifyTwilioResponse,
      );
    });
  };

  return {
    kind: 'twilio',
    capabilities: TWILIO_CAPABILITIES,
    submit,
    ...(callbacks === null ? {} : { callbacks }),
    close: async () => {
      agent.destroy();
    },
  };
}
