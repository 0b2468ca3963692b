/**
 * POST /v1/callbacks/:providerAccountId/inbound: incoming messages from a provider (Twilio's
 * "A message comes in" URL), beside the same account's status callbacks and verified as they
 * are (the kind's InboundReceiver, over the raw bytes, against `public_url` + the path as
 * received). A verified message is recorded once per account and MessageSid, with its keyword's
 * effect and its `message.received` event, in one transaction (devices/inbound-recorder.ts, the
 * phones' path too); then 200 with the answer the provider expects (Twilio: TwiML). A newly
 * recorded HELP or STOP is answered with the account's reply (`keyword_replies`, a default
 * otherwise) as the answer's one message (Twilio: `<Message>`, sent from the same number), so
 * the reply goes out exactly when the message is first recorded; anything else, and any
 * duplicate, is answered with nothing to send. A bad signature is 401 and records nothing; a
 * fault on Herald's side is 503 so the provider retries.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { InboundRecorder } from '../../devices/inbound-recorder.js';
import { keywordReplyText } from '../../domain/index.js';
import { HeraldError } from '../../errors.js';
import type { InboundReceiver, ProviderAccountConfig } from '../../providers/provider.js';
import type { Store } from '../../store/store.js';
import { nulField } from '../nul-guard.js';
import { sendProblem } from '../problem-handler.js';
import { keepRawBodies } from './callbacks.js';

export interface InboundWebhookRouteDeps {
  store: Store;
  clock: Clock;
  /** The inbound receiver of every provider account whose kind takes incoming messages by webhook. */
  inboundReceivers?: ReadonlyMap<string, InboundReceiver>;
  /** The configured accounts: their `keyword_replies`. */
  accounts?: readonly ProviderAccountConfig[];
  /** Herald's public URL (config `public_url`): Twilio signs the URL it was given, which behind a proxy is not the request's own. */
  publicUrl?: string;
}

/** Registers the inbound-message route in its own scope, where bodies stay raw bytes. */
export async function inboundWebhookRoutes(app: FastifyInstance, deps: InboundWebhookRouteDeps): Promise<void> {
  const recorder = new InboundRecorder({ store: deps.store, clock: deps.clock, logger: app.log });
  await app.register(async (scope) => {
    keepRawBodies(scope);
    scope.post<{ Params: { providerAccountId: string } }>(
      '/v1/callbacks/:providerAccountId/inbound',
      {
        schema: {
          summary: 'Incoming messages from a provider (Twilio), verified by its signature scheme',
          description:
            'The URL to give the provider for incoming messages (Twilio: the number’s “A message comes in” webhook). Authenticated by the account’s ' +
            'signature, not by an API key. 200 means recorded (a duplicate included), answered as the provider expects (Twilio: TwiML); ' +
            'STOP suppresses the sender, START lifts it; a first HELP or STOP is answered with the account’s reply (docs/inbound.md). 401 a bad signature (nothing recorded); 503 a transient fault (retry).',
          tags: ['callbacks'],
          security: [],
          params: { type: 'object', properties: { providerAccountId: { type: 'string' } }, required: ['providerAccountId'] },
          response: {
            200: { description: 'The provider’s expected answer (Twilio: TwiML, text/xml)', type: 'string' },
            400: { $ref: 'problem#' },
            401: { $ref: 'problem#' },
            404: { $ref: 'problem#' },
            503: { $ref: 'problem#' },
          },
        },
      },
      async (request, reply) => {
        const account = request.params.providerAccountId;
        const receiver = deps.inboundReceivers?.get(account);
        if (!receiver) {
          return sendProblem(
            reply,
            request,
            new HeraldError('callbacks_not_configured', `provider account ${account} does not receive incoming messages here`),
          );
        }
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const now = deps.clock.now();
        // As for status callbacks: a proxy may strip a path prefix, never the route.
        const url = deps.publicUrl ? `${deps.publicUrl.replace(/\/+$/, '')}${request.url}` : `${request.protocol}://${request.host}${request.url}`;
        const parsed = receiver.verify({ rawBody, headers: request.headers, url }, now);
        if (!parsed.ok) return sendProblem(reply, request, new HeraldError(parsed.code, parsed.detail));
        const m = parsed.message;
        // Signed, but a NUL would fail PostgreSQL's insert and answer 503 for ever (the provider retries a poison message).
        const nul = nulField(m, 'message');
        if (nul !== null)
          return sendProblem(reply, request, new HeraldError('callback_malformed', `${nul.replace(/^message\.?/, '')} contains the NUL character`));
        let answerText: string | null;
        try {
          const tenantId = await recorder.tenantFor(account, m.from);
          const recorded = await recorder.record(
            {
              tenantId,
              providerAccount: account,
              source: receiver.source,
              externalId: m.externalId,
              deviceId: null,
              simNumber: null,
              kind: 'sms',
              sender: m.from,
              content: m.text,
              receivedAt: m.receivedAt,
            },
            { source: `account:${account}`, eventId: m.externalId },
            now,
          );
          // Only the first recording answers: the provider's retry of the same message gets nothing to send.
          const replies = deps.accounts?.find((a) => a.id === account)?.keyword_replies ?? null;
          answerText = recorded.result.recorded ? keywordReplyText(recorded.keyword, replies) : null;
        } catch (err) {
          request.log.error({ err, providerAccount: account }, 'cannot record an incoming message; answering 503 so the provider retries');
          return sendProblem(reply, request, new HeraldError('service_unavailable', 'the message could not be recorded; retry later', [], { cause: err }));
        }
        const answer = receiver.answer(answerText);
        return reply.code(200).type(answer.contentType).send(answer.body);
      },
    );
  });
}
