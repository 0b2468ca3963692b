/**
 * `GET /v1/erasures`: what Herald erased of the tenant's data, newest first, cursor-paginated
 * (docs/retention.md, "What was erased"). One item per retention batch per tenant (one-time
 * codes after settlement, content past its window, destinations past theirs) and per
 * `DELETE /v1/recipients/:id`. Items name counts and recipient ids, never the erased data.
 */
import type { FastifyInstance } from 'fastify';
import { decodeNumberCursor, encodeNumberCursor, pageLimit, PAGE_ONLY_QUERYSTRING, pageOf } from '../list-cursor.js';
import type { ErasureRecord, Store } from '../../store/store.js';

const problemRef = { $ref: 'problem#' };

export interface ErasureRouteDeps {
  store: Store;
}

/** An erasure as the API shows it. */
function erasureJson(e: ErasureRecord) {
  return {
    id: String(e.id),
    cause: e.cause,
    what: e.kind,
    recipient_id: e.recipientId,
    count: e.count,
    details: e.details,
    created_at: new Date(e.createdAt).toISOString(),
  };
}

const erasureItem = {
  type: 'object',
  required: ['id', 'cause', 'what', 'recipient_id', 'count', 'details', 'created_at'],
  properties: {
    id: { type: 'string' },
    cause: { type: 'string', enum: ['retention', 'recipient_request'], description: 'The retention job, or DELETE /v1/recipients/{id}.' },
    what: {
      type: 'string',
      enum: ['otp_content', 'content', 'destinations', 'recipient'],
      description:
        '`otp_content`: one-time codes after settlement; `content`: other content past its window; `destinations`: addresses masked; `recipient`: one recipient erased.',
    },
    recipient_id: { type: ['string', 'null'], description: 'The erased recipient (recipient_request only).' },
    count: { type: 'integer', minimum: 0, description: 'Notifications erased (deliveries masked for `destinations`).' },
    details: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'Retention: `{purpose}` for `content`. A recipient: what else went (counts).',
    },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** Registers GET /v1/erasures on an authenticated scope. */
export function erasureRoutes(app: FastifyInstance, deps: ErasureRouteDeps): void {
  app.get<{ Querystring: { cursor?: string; limit?: string } }>(
    '/v1/erasures',
    {
      schema: {
        summary: 'What was erased of your data (retention and recipient erasures), newest first',
        tags: ['recipients'],
        querystring: PAGE_ONLY_QUERYSTRING,
        response: {
          200: pageOf(erasureItem),
          400: problemRef,
          401: problemRef,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const limit = pageLimit(q.limit);
      const rows = await deps.store.retention.listErasures(
        request.tenantId,
        q.cursor === undefined ? null : decodeNumberCursor('erasure', q.cursor),
        limit + 1,
      );
      const page = rows.slice(0, limit);
      return { items: page.map(erasureJson), next_cursor: rows.length > limit ? encodeNumberCursor('erasure', page[page.length - 1]!.id) : null };
    },
  );
}
