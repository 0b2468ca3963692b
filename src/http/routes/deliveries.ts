/** GET /v1/deliveries (filtered, cursor-paginated) and GET /v1/deliveries/:id. */
import type { FastifyInstance } from 'fastify';
import { CHANNELS, DELIVERY_STATES, PURPOSES, type Channel, type DeliveryState, type Purpose } from '../../domain/index.js';
import { HeraldError } from '../../errors.js';
import { isId } from '../../intake/ids.js';
import type { Store } from '../../store/store.js';
import { attemptJson, deliveryJson, templateJson } from '../views.js';

const problemRef = { $ref: 'problem#' };

/** The opaque cursor of a delivery list (also used by the review queue). */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isId('dlv', id))
    throw new HeraldError('invalid_cursor', 'cursor must be a next_cursor value returned by this endpoint', [
      { field: 'query.cursor', message: 'is not a cursor this API issued' },
    ]);
  return id;
}

/** Registers the delivery routes on an authenticated scope. */
export function deliveryRoutes(app: FastifyInstance, deps: { store: Store }): void {
  app.get<{ Querystring: { state?: DeliveryState; channel?: Channel; purpose?: Purpose; cursor?: string; limit?: string } }>(
    '/v1/deliveries',
    {
      schema: {
        summary: 'List deliveries, newest first',
        tags: ['deliveries'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: [...DELIVERY_STATES] },
            channel: { type: 'string', enum: [...CHANNELS] },
            purpose: { type: 'string', enum: [...PURPOSES] },
            cursor: { type: 'string', maxLength: 200 },
            limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$', description: '1-200, default 50' },
          },
        },
        response: { 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await deps.store.listDeliveries(
        request.tenantId,
        { state: q.state, channel: q.channel, purpose: q.purpose },
        q.cursor === undefined ? null : decodeCursor(q.cursor),
        q.limit === undefined ? 50 : Number(q.limit),
      );
      return { items: page.items.map(deliveryJson), next_cursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/deliveries/:id',
    {
      schema: {
        summary: 'One delivery',
        tags: ['deliveries'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: { 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const d = isId('dlv', request.params.id) ? await deps.store.getDelivery(request.params.id) : null;
      if (!d || d.tenantId !== request.tenantId) throw new HeraldError('not_found', `no delivery ${request.params.id}`);
      // Its attempt timeline (with each attempt's rollout decisions), as the notification shows it.
      const n = await deps.store.getNotification(request.tenantId, d.notificationId);
      const attempts = n?.deliveries.find((x) => x.id === d.id)?.attempts ?? [];
      return { ...deliveryJson(d), template: templateJson(n?.content), attempts: attempts.map(attemptJson) };
    },
  );
}
