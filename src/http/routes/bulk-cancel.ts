/**
 * POST /v1/deliveries/cancel: cancel every pending delivery a filter selects, after a preview
 * (docs/scheduling.md "Bulk cancel"), as POST /v1/deliveries/retry replays. In-flight deliveries
 * (`submitting`, `unknown`) are counted and never touched: a provider may already have them.
 */
import type { FastifyInstance } from 'fastify';
import { PURPOSES, type Purpose } from '../../domain/index.js';
import { cancelMany, type CancelFilter } from '../../delivery/delivery-canceller.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../../clock.js';
import { auditEachDelivery, bulkActionBody, type CreatedWindowBody } from '../bulk-delivery-action.js';

const problemRef = { $ref: 'problem#' };

interface BulkCancelBody {
  filter: CreatedWindowBody & {
    campaign_id?: string;
    purpose?: Purpose;
    recipient_id?: string;
    provider_account?: string;
    state?: 'ready' | 'retryable';
  };
  dry_run?: boolean;
  note?: string;
}

const word = { type: 'string', minLength: 1, maxLength: 200 } as const;
const body = bulkActionBody(
  {
    campaign_id: word,
    purpose: { type: 'string', enum: [...PURPOSES] },
    recipient_id: word,
    provider_account: word,
    state: { type: 'string', enum: ['ready', 'retryable'], description: 'Only pending deliveries can be cancelled.' },
  },
  { note: { type: 'string', minLength: 1, maxLength: 1000, description: 'Why; kept with each audit row.' } },
  'cancelling every delivery at once is refused',
);

/** Registers POST /v1/deliveries/cancel on an authenticated scope. */
export function bulkCancelRoute(app: FastifyInstance, deps: { store: Store; clock: Clock }): void {
  app.post<{ Body: BulkCancelBody }>(
    '/v1/deliveries/cancel',
    {
      schema: {
        summary: 'Cancel every pending delivery matching a filter',
        description:
          'Walks the deliveries matching `filter` (at least one field) and cancels each `ready` or `retryable` one through the same guarded ' +
          'transition as the single cancel, 500 at a time, with one audit row each. `submitting` and `unknown` deliveries are never cancelled ' +
          '(a provider may already have them): they are counted as `in_flight`. With `"dry_run": true` nothing changes and the answer is the preview.',
        tags: ['deliveries'],
        body: body.schema,
        response: { 400: problemRef, 401: problemRef, 403: problemRef },
      },
    },
    async (request) => {
      const f = request.body.filter;
      const filter: CancelFilter = {
        campaignId: f.campaign_id,
        purpose: f.purpose,
        recipientId: f.recipient_id,
        providerAccount: f.provider_account,
        state: f.state,
        ...body.window(f),
      };
      const dryRun = request.body.dry_run ?? false;
      const r = await cancelMany(deps, request.tenantId, filter, { dryRun });
      if (dryRun) return { dry_run: true, matched: r.matched, would_cancel: r.cancelled, in_flight: r.inFlight, ended: r.ended };
      // Each row's action is `cancel`, marked bulk.
      await auditEachDelivery(deps, request, 'cancel', r.cancelledDeliveries, { bulk: true, filter: f, note: request.body.note ?? null });
      return { matched: r.matched, cancelled: r.cancelled, in_flight: r.inFlight, ended: r.ended, changed: r.changed };
    },
  );
}
