/**
 * Herald's adapter for Amazon SES (API v2). Each submission is one SigV4-signed SendEmail; SES
 * has no idempotency key and no look-up, so a lost answer stays `unknown` until an SNS event
 * (matched by the MessageId, or by the `herald_reference` tag) settles it. How far the request
 * got decides a transport failure, exactly as for every HTTP provider: unwritten is retryable,
 * written is unknown (providers/sandbox/http-exchange.ts tracks the stage).
 */
import type { SubmitOutcome } from '../../domain/index.js';
import { CredentialError } from '../credentials.js';
import type { CallbackVerifier, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { classifyTransportFailure, describeUnexpected } from '../outbound-http/transport-failure.js';
import { unknownOnThrow } from '../outbound-http/submit-once.js';
import { endpointUrl } from '../outbound-http/endpoint.js';
import { postOnce, keepAliveAgent } from '../outbound-http/exchange.js';
import { buildSendEmailBody, SEND_EMAIL_PATH } from './build-request.js';
import { classifySesResponse } from './classify.js';
import { readSesCredentials, readSesSettings } from './settings.js';
import { signSesRequest } from './sign.js';

// 64 sockets per account, as for the sandbox: above what one worker's batch needs at SES's
// per-account rates, and a cap so a stalled endpoint cannot make Herald open sockets without bound.
const MAX_SOCKETS = 64;

export interface SesAdapterOptions {
  /** The verifier of the account's SNS notifications, when it lists topics. */
  callbacks?: CallbackVerifier | null;
  env?: NodeJS.ProcessEnv;
}

/** Creates the adapter for one SES account; throws at once for a configuration error no retry can fix. */
export function createSesAdapter(account: ProviderAccountConfig, options: SesAdapterOptions = {}): ProviderAdapter {
  const settings = readSesSettings(account);
  const { endpoint } = settings;
  const agent = keepAliveAgent(endpoint, MAX_SOCKETS);
  const env = options.env ?? process.env;

  const submit = async (request: SubmitRequest, signal?: AbortSignal): Promise<SubmitOutcome> => {
    if (request.channel !== 'email' || account.channel !== 'email') {
      // A routing bug in the caller, not a provider failure: nothing was sent.
      throw new Error(`provider account ${account.id} (ses) sends email, not ${request.channel}`);
    }
    return unknownOnThrow(async () => {
      let credentials;
      try {
        credentials = readSesCredentials(account, env);
      } catch (error) {
        // A rotated credential file mid-swap, an unset variable: nothing was sent, and an operator can fix it.
        if (error instanceof CredentialError) return { kind: 'retryable', code: 'credentials_unavailable', message: `${error.field} cannot be read` };
        throw error;
      }
      let body: Buffer;
      try {
        body = await buildSendEmailBody(request, settings);
      } catch (error) {
        // Nothing was sent, and the same content will not compose next time either.
        return {
          kind: 'permanent',
          reason: 'content_rejected',
          code: 'unrepresentable_message',
          message: `the message cannot be composed (${describeUnexpected(error)})`,
        };
      }
      const url = endpointUrl(endpoint, SEND_EMAIL_PATH);
      const headers = signSesRequest({ method: 'POST', url, body, headers: { 'content-type': 'application/json' } }, settings.region, credentials);
      const result = await postOnce({
        url,
        headers: { ...headers, accept: 'application/json', 'user-agent': 'herald-ses-adapter' },
        body,
        timeoutMs: account.timeout_ms,
        signal,
        agent,
        notAfter: request.sendBy,
      });
      if (result.kind === 'failure') return classifyTransportFailure(result.failure);
      const errorType = result.headers?.['x-amzn-errortype'];
      return classifySesResponse(
        { status: result.status, retryAfter: result.retryAfter, errorType: typeof errorType === 'string' ? errorType : null, body: result.body },
        Date.now(),
      );
    });
  };

  return {
    kind: 'ses',
    // SES documents neither: no SendEmail idempotency key, no query by reference.
    capabilities: { lookup: false, dedupesByKey: false },
    submit,
    ...(options.callbacks ? { callbacks: options.callbacks } : {}),
    close: async () => {
      agent.destroy();
    },
  };
}
