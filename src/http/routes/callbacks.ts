/**
 * POST /v1/callbacks/:providerAccountId: delivery events from providers. Not behind API keys:
 * the provider's own signature is the authentication, checked over the raw bytes before
 * anything is parsed (a bad or stale signature is 401 and records nothing). Verified events are
 * recorded, deduplicated by the provider's event id, in one transaction; only then does the
 * answer say 200 (a duplicate is a 200 too). A fault on Herald's side is 503 so the provider
 * retries: nothing that was accepted is lost. Merging into deliveries happens after the answer
 * (the evidence applier), because an event may arrive before the send call that it describes
 * has returned.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { HeraldError } from '../../errors.js';
import type { DeliveryCounters } from '../../metrics/counters.js';
import type { CallbackVerifier } from '../../providers/provider.js';
import type { Store } from '../../store/store.js';
import { nulField } from '../nul-guard.js';
import { sendProblem } from '../problem-handler.js';

export interface CallbackRouteDeps {
  store: Store;
  clock: Clock;
  /** The callback verifier of every provider account configured to receive callbacks. */
  callbackVerifiers?: ReadonlyMap<string, CallbackVerifier>;
  /** Asks the evidence applier for a pass soon (in-process); other processes poll. */
  onEvidence?: () => void;
  /**
   * Herald's public URL (config `public_url`): the origin and path prefix providers were told to
   * post to. Schemes that sign the URL (Twilio) must see the URL the provider requested, which
   * behind a proxy is not the request's own protocol and host. Without it, those are used.
   */
  publicUrl?: string;
  /** Counts events received and duplicated, and refused requests, per configured account. */
  counters?: DeliveryCounters;
}

/** 1 MiB: providers batch events (SendGrid up to ~1,000 per request). */
export const CALLBACK_BODY_LIMIT_BYTES = 1024 * 1024;

const problemResponses = {
  400: { $ref: 'problem#' },
  401: { $ref: 'problem#' },
  404: { $ref: 'problem#' },
  503: { $ref: 'problem#' },
};

/** Makes `scope` keep every body as its raw bytes (signatures are over the exact bytes: no parser may touch them first). */
export function keepRawBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT_BYTES }, (_req, body, done) => done(null, body));
}

/** Registers the callback route in its own scope, where bodies stay raw bytes. */
export async function callbackRoutes(app: FastifyInstance, deps: CallbackRouteDeps): Promise<void> {
  await app.register(async (scope) => {
    keepRawBodies(scope);
    scope.post<{ Params: { providerAccountId: string } }>(
      '/v1/callbacks/:providerAccountId',
      {
        schema: {
          summary: 'Delivery events from a provider, verified by its signature scheme',
          description:
            'Authenticated by the provider account’s callback signature (the sandbox: Standard Webhooks), not by an API key. ' +
            '200 means recorded (duplicates included); 401 a bad or stale signature (nothing recorded); 503 a transient fault, or a signature that cannot be checked yet (retry).',
          tags: ['callbacks'],
          security: [],
          params: { type: 'object', properties: { providerAccountId: { type: 'string' } }, required: ['providerAccountId'] },
          response: {
            200: {
              type: 'object',
              properties: { received: { type: 'integer' }, duplicates: { type: 'integer' } },
              required: ['received', 'duplicates'],
            },
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const account = request.params.providerAccountId;
        const verifier = deps.callbackVerifiers?.get(account);
        if (!verifier) {
          return sendProblem(reply, request, new HeraldError('callbacks_not_configured', `provider account ${account} does not receive callbacks here`));
        }
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const now = deps.clock.now();
        // The adapters told providers `<public_url>/v1/callbacks/<id>`; a proxy in front may
        // strip a path prefix, never the route, so public_url + the path as received is that URL.
        const url = deps.publicUrl ? `${deps.publicUrl.replace(/\/+$/, '')}${request.url}` : `${request.protocol}://${request.host}${request.url}`;
        const parsed = await verifier.verify({ rawBody, headers: request.headers, url }, now);
        const series = deps.counters?.series;
        if (!parsed.ok) {
          // Only accounts that receive callbacks reach here, so the label stays a configured id.
          if (parsed.code === 'callback_signature_invalid') series?.callbacksRefused.inc({ provider_account: account, reason: 'signature' });
          else if (parsed.code === 'callback_malformed') series?.callbacksRefused.inc({ provider_account: account, reason: 'malformed' });
          return sendProblem(reply, request, new HeraldError(parsed.code, parsed.detail));
        }
        // Signed, but a NUL in any field would fail PostgreSQL's insert and answer 503 for ever
        // (the provider retries a poison event): refuse it as malformed (found by the fuzz suite).
        const nul = nulField(parsed.events, 'events');
        if (nul !== null) {
          series?.callbacksRefused.inc({ provider_account: account, reason: 'malformed' });
          return sendProblem(
            reply,
            request,
            new HeraldError('callback_malformed', `${nul.replace(/^events\[\d+\]\.?/, '') || 'an event'} contains the NUL character`),
          );
        }
        let recorded: { inserted: number; duplicates: number };
        try {
          recorded = await deps.store.evidence.recordProviderEvents(parsed.events.map((e) => ({ ...e, providerAccount: account, receivedAt: now })));
        } catch (err) {
          request.log.error({ err, providerAccount: account }, 'cannot record provider events; answering 503 so the provider retries');
          return sendProblem(reply, request, new HeraldError('service_unavailable', 'the events could not be recorded; retry later', [], { cause: err }));
        }
        series?.callbacksReceived.inc({ provider_account: account }, recorded.inserted + recorded.duplicates);
        series?.callbacksDuplicated.inc({ provider_account: account }, recorded.duplicates);
        if (recorded.inserted > 0) deps.onEvidence?.();
        return reply.code(200).send({ received: recorded.inserted, duplicates: recorded.duplicates });
      },
    );
  });
}
