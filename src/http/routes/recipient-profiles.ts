/**
 * Stored recipient profiles: PUT /v1/recipients/:id and GET /v1/recipients/:id. A campaign's
 * audience may then name recipients by id alone. (Preferences live under
 * /v1/recipients/:id/preferences, in their own route file.)
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { fieldError, HeraldError } from '../../errors.js';
import { checkTimeZone, notificationRequestSchema, recipientAddressError } from '../../intake/notification-request.js';
import type { RecipientProfile } from '../../store/campaign-store.js';
import type { Store } from '../../store/store.js';
import { showDestination, type DestinationView } from '../masking.js';

const problemRef = { $ref: 'problem#' };
const recipientProps = notificationRequestSchema.properties.recipient.properties;

export interface RecipientProfileRouteDeps {
  store: Store;
  clock: Clock;
}

interface ProfileBody {
  email?: string;
  phone?: string;
  push_token?: string;
  locale?: string;
  time_zone?: string;
}

/** A recipient profile as the API shows it; a dashboard session below admin sees its addresses masked (masking.ts). */
export function recipientProfileJson(p: RecipientProfile, view: DestinationView = 'full') {
  return {
    id: p.id,
    email: showDestination('email', p.email, view),
    phone: showDestination('sms', p.phone, view),
    push_token: showDestination('push', p.push_token, view),
    locale: p.locale,
    time_zone: p.time_zone,
    created_at: new Date(p.createdAt).toISOString(),
    updated_at: new Date(p.updatedAt).toISOString(),
  };
}

const idParams = { type: 'object', properties: { id: recipientProps.id }, required: ['id'] } as const;

/** Registers the recipient profile routes on an authenticated scope. */
export function recipientProfileRoutes(app: FastifyInstance, deps: RecipientProfileRouteDeps): void {
  const clock = deps.clock;

  app.put<{ Params: { id: string }; Body: ProfileBody }>(
    '/v1/recipients/:id',
    {
      schema: {
        summary: 'Store a recipient’s addresses, locale and time zone',
        description:
          'Creates (`201`) or replaces (`200`) the profile: a field left out is cleared. Addresses are checked as POST /v1/notifications checks them. ' +
          'A campaign audience may then list the recipient by id alone.',
        tags: ['recipients'],
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            email: recipientProps.email,
            phone: recipientProps.phone,
            push_token: recipientProps.push_token,
            locale: recipientProps.locale,
            time_zone: recipientProps.time_zone,
          },
        },
        response: { 400: problemRef, 401: problemRef },
      },
    },
    async (request, reply) => {
      const recipient = { id: request.params.id, ...request.body };
      const bad = recipientAddressError(recipient);
      if (bad) throw fieldError(bad.field, bad.message);
      checkTimeZone(recipient.time_zone, 'time_zone');
      const { created, profile } = await deps.store.campaigns.putRecipient({ tenantId: request.tenantId, recipient, now: clock.now() });
      return reply.code(created ? 201 : 200).send(recipientProfileJson(profile, request.destinationView));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/recipients/:id',
    {
      schema: { summary: 'A stored recipient profile', tags: ['recipients'], params: idParams, response: { 401: problemRef, 404: problemRef } },
    },
    async (request) => {
      const [p] = await deps.store.campaigns.getRecipients(request.tenantId, [request.params.id]);
      if (!p) throw new HeraldError('not_found', `no recipient ${request.params.id}`);
      return recipientProfileJson(p, request.destinationView);
    },
  );
}
