/**
 * Customer webhook endpoints: POST/GET /v1/webhooks, GET/DELETE /v1/webhooks/:id,
 * POST /v1/webhooks/:id/rotate-secret and POST /v1/webhooks/:id/enable. Tenant-scoped by the
 * API key; the signing secret is shown by create and rotate only.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/store.js';
import type { WebhookEndpointView } from '../../store/webhook-store.js';
import { AddressPolicy } from '../../webhooks/address-policy.js';
import { WebhookEndpoints } from '../../webhooks/endpoint-service.js';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/event-types.js';

const problemRef = { $ref: 'problem#' };
const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const noFields = { type: 'object', additionalProperties: false, properties: {} } as const;

export interface WebhookRouteDeps {
  store: Store;
  clock: Clock;
  /** Which URLs may be registered. Default: public addresses only, system DNS. */
  webhookPolicy?: AddressPolicy;
}

interface CreateBody {
  url: string;
  event_types: string[];
  description?: string;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** An endpoint as the API shows it (never its secret). */
export function webhookEndpointJson(e: WebhookEndpointView) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes,
    status: e.status,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    previous_secret_expires_at: iso(e.previousSecretUntil),
    failures: {
      consecutive: e.failureCount,
      failing_since: iso(e.failingSince),
      next_attempt_at: iso(e.nextAttemptAt),
      last: e.lastFailure === null ? null : { at: iso(e.lastFailure.at), status: e.lastFailure.status, error: e.lastFailure.error },
    },
    last_success_at: iso(e.lastSuccessAt),
    messages: { pending: e.pending, delivered: e.delivered },
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
  };
}

/** A body-less POST is an empty object. */
async function emptyBodyIsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** Registers the webhook endpoint routes on an authenticated scope. */
export function webhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  const endpoints = new WebhookEndpoints({
    store: deps.store,
    clock: deps.clock,
    policy: deps.webhookPolicy ?? new AddressPolicy(),
  });

  app.post<{ Body: CreateBody }>(
    '/v1/webhooks',
    {
      schema: {
        summary: 'Register a webhook endpoint',
        description:
          'Herald POSTs every event of the listed types to `url`, signed with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, ' +
          '`webhook-signature`), at least once and in order per notification. The answer carries the signing `secret` (`whsec_…`), shown only here ' +
          'and by rotate-secret. URLs that are or resolve to non-public addresses are refused with `webhook_url_refused`.',
        tags: ['webhooks'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'event_types'],
          properties: {
            url: { type: 'string', minLength: 1, maxLength: 2048, description: 'http or https URL of a public host' },
            event_types: {
              type: 'array',
              minItems: 1,
              maxItems: WEBHOOK_EVENT_TYPES.length,
              uniqueItems: true,
              items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
              description: 'Event types to receive; `*` for all, including types added later.',
            },
            description: { type: 'string', maxLength: 500 },
          },
        },
        response: { 400: problemRef, 401: problemRef, 422: problemRef },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const r = await endpoints.create(request.tenantId, { url: b.url, eventTypes: b.event_types, description: b.description ?? null });
      return reply.code(201).send({ ...webhookEndpointJson(r.endpoint), secret: r.secret });
    },
  );

  app.get(
    '/v1/webhooks',
    { schema: { summary: "The tenant's webhook endpoints, oldest first", tags: ['webhooks'], response: { 401: problemRef } } },
    async (request) => ({
      items: (await endpoints.list(request.tenantId)).map(webhookEndpointJson),
    }),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/webhooks/:id',
    {
      schema: {
        summary: 'One webhook endpoint',
        description: 'Status (and why it is disabled), failures and backoff, and how many messages are pending and delivered. Never the secret.',
        tags: ['webhooks'],
        params: idParams,
        response: { 401: problemRef, 404: problemRef },
      },
    },
    async (request) => webhookEndpointJson(await endpoints.mustGet(request.tenantId, request.params.id)),
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/webhooks/:id',
    {
      schema: {
        summary: 'Delete a webhook endpoint and its undelivered messages',
        tags: ['webhooks'],
        params: idParams,
        response: { 401: problemRef, 404: problemRef },
      },
    },
    async (request, reply) => {
      await endpoints.delete(request.tenantId, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/webhooks/:id/rotate-secret',
    {
      preValidation: emptyBodyIsObject,
      schema: {
        summary: 'Replace the signing secret',
        description:
          'Returns the endpoint with its new `secret`. For 24 hours the previous secret keeps signing beside the new one (two `v1,` entries in ' +
          '`webhook-signature`), so a receiver can switch secrets without rejecting a message.',
        tags: ['webhooks'],
        params: idParams,
        body: noFields,
        response: { 400: problemRef, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const r = await endpoints.rotate(request.tenantId, request.params.id);
      return { ...webhookEndpointJson(r.endpoint), secret: r.secret };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/webhooks/:id/enable',
    {
      preValidation: emptyBodyIsObject,
      schema: {
        summary: 'Re-enable a webhook endpoint',
        description:
          'Re-activates an endpoint that was disabled (it answered 410, or kept failing) or is backing off; its undelivered messages are sent now, ' +
          'in order. Events published while it was disabled were not queued for it.',
        tags: ['webhooks'],
        params: idParams,
        body: noFields,
        response: { 400: problemRef, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => webhookEndpointJson(await endpoints.enable(request.tenantId, request.params.id)),
  );
}
