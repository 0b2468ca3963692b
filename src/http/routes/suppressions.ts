/**
 * The tenant's suppression list: GET /v1/suppressions, POST /v1/suppressions (an operator's
 * manual entry) and DELETE /v1/suppressions (lift an entry, whatever its reason). Hard
 * bounces and complaints are added by provider callbacks. Addresses travel in bodies, never
 * in URLs, so request logs and proxies never see them.
 */
import { recordAction } from '../audit-trail.js';
import { showDestination } from '../masking.js';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { CHANNELS, type Channel } from '../../domain/index.js';
import { fieldError, HeraldError } from '../../errors.js';
import type { Suppression } from '../../store/preference-store.js';
import type { Store } from '../../store/store.js';
import { INVALID_PHONE_MESSAGE, readPhoneNumber } from '../../intake/phone-number.js';

const problemRef = { $ref: 'problem#' };

const addressBody = {
  type: 'object',
  additionalProperties: false,
  required: ['channel', 'destination'],
  properties: {
    channel: { type: 'string', enum: [...CHANNELS] },
    destination: { type: 'string', minLength: 1, maxLength: 4096, description: 'E-mail address, E.164 number or push token, exactly as sent' },
  },
} as const;

const suppressionSchema = {
  type: 'object',
  properties: {
    channel: { type: 'string' },
    destination: { type: 'string' },
    reason: { type: 'string', enum: ['bounced', 'complained', 'manual'] },
    source_delivery_id: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

interface AddressBody {
  channel: Channel;
  destination: string;
}

// The same address rules as POST /v1/notifications (src/intake/notification-request.ts, and its
// phone numbers' src/intake/phone-number.ts): entries are matched against deliveries'
// destinations exactly as intake stored them.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function checkDestination(b: AddressBody): void {
  const d = b.destination;
  if (b.channel === 'email' && (d.length > 254 || !EMAIL.test(d)))
    throw fieldError('destination', 'must be an e-mail address with a domain, e.g. ada@example.com');
  if (b.channel === 'sms' && readPhoneNumber(d) === null) throw fieldError('destination', INVALID_PHONE_MESSAGE);
  if (b.channel === 'push' && /\s/.test(d)) throw fieldError('destination', 'must be a push token without whitespace');
}

/** A suppression entry as the API shows it. */
export function suppressionJson(s: Suppression) {
  return {
    channel: s.channel,
    destination: s.destination,
    reason: s.reason,
    source_delivery_id: s.sourceDeliveryId,
    created_at: new Date(s.createdAt).toISOString(),
  };
}

/** Registers the suppression list routes on an authenticated scope. */
export function suppressionRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock }): void {
  const clock = deps.clock;

  app.get<{ Querystring: { limit?: string } }>(
    '/v1/suppressions',
    {
      schema: {
        summary: "The tenant's suppression list, newest first",
        description:
          'Addresses Herald does not send to on a channel: hard bounces and manual entries stop every purpose, complaints stop marketing and conversational messages.',
        tags: ['suppressions'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { limit: { type: 'string', pattern: '^(?:[1-9][0-9]{0,2}|1000)$', description: '1-1000, default 100' } },
        },
        response: { 200: { type: 'object', properties: { items: { type: 'array', items: suppressionSchema } } }, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => ({
      items: (await deps.store.preferences.listSuppressions(request.tenantId, request.query.limit === undefined ? 100 : Number(request.query.limit))).map(
        suppressionJson,
      ),
    }),
  );

  app.post<{ Body: AddressBody }>(
    '/v1/suppressions',
    {
      schema: {
        summary: 'Suppress an address on a channel (manual entry)',
        description:
          'Nothing is sent to the address on the channel any more, whatever the purpose, from the next attempt on. 201 when added; ' +
          '200 with the existing entry when the address was already suppressed (a bounce or complaint stays as it was).',
        tags: ['suppressions'],
        body: addressBody,
        response: { 200: suppressionSchema, 201: suppressionSchema, 400: problemRef, 401: problemRef },
      },
    },
    async (request, reply) => {
      const b = request.body;
      checkDestination(b);
      const added = await deps.store.preferences.addSuppression({
        tenantId: request.tenantId,
        channel: b.channel,
        destination: b.destination,
        now: clock.now(),
      });
      const entry = await deps.store.preferences.getSuppression(request.tenantId, b.channel, b.destination);
      if (!entry) throw new HeraldError('internal_error', 'the suppression was not found right after it was written');
      // The trail keeps the address masked, as a viewer sees it: enough to recognise, not to reuse.
      if (added)
        await recordAction(
          { store: deps.store, clock },
          request,
          'suppression_add',
          {},
          { channel: b.channel, destination: showDestination(b.channel, b.destination, 'masked') },
        );
      return reply.code(added ? 201 : 200).send(suppressionJson(entry));
    },
  );

  app.delete<{ Body: AddressBody }>(
    '/v1/suppressions',
    {
      schema: {
        summary: 'Lift the suppression of an address on a channel',
        description:
          'Removes the entry whatever its reason (bounce, complaint, manual): the next attempt to the address may be sent. The address goes in the JSON body.',
        tags: ['suppressions'],
        body: addressBody,
        response: { 200: { type: 'object', properties: { removed: { type: 'boolean' } } }, 400: problemRef, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const b = request.body;
      const removed = await deps.store.preferences.removeSuppression({ tenantId: request.tenantId, channel: b.channel, destination: b.destination });
      if (!removed) throw new HeraldError('not_found', `that address is not suppressed on ${b.channel}`);
      await recordAction(
        { store: deps.store, clock },
        request,
        'suppression_remove',
        {},
        { channel: b.channel, destination: showDestination(b.channel, b.destination, 'masked') },
      );
      return { removed: true };
    },
  );
}
