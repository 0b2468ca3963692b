/**
 * GET /v1/audit: the tenant's trail of operator actions, newest first, cursor-paginated (the
 * `admin` scope). Read-only by design: there is no route, and no store statement, that edits or
 * deletes an entry.
 */
import type { FastifyInstance } from 'fastify';
import { HeraldError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { Store } from '../../store/store.js';
import { auditEntryJson } from '../audit-trail.js';

const problemRef = { $ref: 'problem#' };

/** Registers GET /v1/audit on an authenticated scope. */
export function auditRoutes(app: FastifyInstance, deps: { store: Store }): void {
  app.get<{ Querystring: { cursor?: string; limit?: string } }>(
    '/v1/audit',
    {
      schema: {
        summary: "The tenant's audit trail of operator actions, newest first",
        description:
          'Who (an API key or a dashboard user), when, what, on what and from which address: replays, resends, cancels, key and tenant changes, ' +
          'provider account assignments, preference and suppression edits, recipient erasures. Follow `next_cursor` for older entries.',
        tags: ['audit'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            cursor: { type: 'string', maxLength: 64 },
            limit: { type: 'string', pattern: '^[0-9]{1,3}$', description: '1 to 200, default 50' },
          },
        },
        response: { 400: problemRef, 401: problemRef, 403: problemRef },
      },
    },
    async (request) => {
      const cursor = request.query.cursor ?? null;
      if (cursor !== null && !isId('act', cursor))
        throw new HeraldError('invalid_cursor', 'cursor must be a next_cursor value returned by this endpoint', [{ field: 'cursor', message: 'not a cursor' }]);
      const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
      if (limit < 1 || limit > 200) throw new HeraldError('validation_failed', 'limit must be 1 to 200', [{ field: 'limit', message: 'must be 1 to 200' }]);
      const page = await deps.store.audit.list(request.tenantId, cursor, limit);
      return { items: page.items.map(auditEntryJson), next_cursor: page.next };
    },
  );
}
