/**
 * POST /v1/deliveries/cancel: cancel every pending delivery a filter selects, after a preview
 * (docs/scheduling.md "Bulk cancel"), as POST /v1/deliveries/retry replays. In-flight deliveries
 * (`submitting`, `unknown`) are counted and never touched: a provider may already have them.
 */
import type { FastifyInstance } from 'fastify';
import { PURPOSES, type Purpose } from '../../domain/index.js';
import { cancelMany, type CancelFilter } from '../../delivery/delivery-canceller.js';
import { fieldError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../../clock.js';
import { operatorAction } from '../audit-trail.js';

const problemRef = { $ref: 'problem#' };

interface BulkCancelBody {
  filter: {
    campaign_id?: string;
    purpose?: Purpose;
    recipient_id?: string;
    provider_account?: string;
    state?: 'ready' | 'retryable';
    created_after?: string;
    created_before?: string;
  };
  dry_run?: boolean;
  note?: string;
}

function timeField(field: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw fieldError(field, 'must be an RFC 3339 date-time');
  return t;
}

/** Audit rows are written this many per statement. */
const AUDIT_BATCH = 500;

/** Registers POST /v1/deliveries/cancel on an authenticated scope. */
export function bulkCancelRoute(app: FastifyInstance, deps: { store: Store; clock: Clock }): void {
  const word = { type: 'string', minLength: 1, maxLength: 200 } as const;
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
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['filter'],
          properties: {
            filter: {
              type: 'object',
              additionalProperties: false,
              properties: {
                campaign_id: word,
                purpose: { type: 'string', enum: [...PURPOSES] },
                recipient_id: word,
                provider_account: word,
                state: { type: 'string', enum: ['ready', 'retryable'], description: 'Only pending deliveries can be cancelled.' },
                created_after: { type: 'string', format: 'date-time', description: 'created at or after (RFC 3339)' },
                created_before: { type: 'string', format: 'date-time', description: 'created before (RFC 3339)' },
              },
            },
            dry_run: { type: 'boolean', description: 'Count what would happen, change nothing. Default false.' },
            note: { type: 'string', minLength: 1, maxLength: 1000, description: 'Why; kept with each audit row.' },
          },
        },
        response: { 400: problemRef, 401: problemRef, 403: problemRef },
      },
    },
    async (request) => {
      const f = request.body.filter;
      if (Object.keys(f).length === 0) {
        throw fieldError(
          'filter',
          'must name at least one of campaign_id, purpose, recipient_id, provider_account, state, created_after, created_before: cancelling every delivery at once is refused',
        );
      }
      const from = timeField('filter.created_after', f.created_after);
      const to = timeField('filter.created_before', f.created_before);
      if (from !== undefined && to !== undefined && from >= to) throw fieldError('filter.created_before', 'must be later than filter.created_after');
      const filter: CancelFilter = {
        ...(f.campaign_id !== undefined ? { campaignId: f.campaign_id } : {}),
        ...(f.purpose !== undefined ? { purpose: f.purpose } : {}),
        ...(f.recipient_id !== undefined ? { recipientId: f.recipient_id } : {}),
        ...(f.provider_account !== undefined ? { providerAccount: f.provider_account } : {}),
        ...(f.state !== undefined ? { state: f.state } : {}),
        ...(from !== undefined ? { createdFrom: from } : {}),
        ...(to !== undefined ? { createdTo: to } : {}),
      };
      const dryRun = request.body.dry_run ?? false;
      const r = await cancelMany(deps, request.tenantId, filter, { dryRun });
      if (dryRun) return { dry_run: true, matched: r.matched, would_cancel: r.cancelled, in_flight: r.inFlight, ended: r.ended };
      // One audit row per cancelled delivery (action `cancel`, marked bulk), so each delivery's page shows who did it.
      const now = deps.clock.now();
      const detail = { bulk: true, filter: f, note: request.body.note ?? null };
      const rows = r.cancelledDeliveries.map((d) => operatorAction(request, now, 'cancel', { deliveryId: d.id, notificationId: d.notificationId }, detail));
      for (let i = 0; i < rows.length; i += AUDIT_BATCH) await deps.store.audit.record(rows.slice(i, i + AUDIT_BATCH));
      return { matched: r.matched, cancelled: r.cancelled, in_flight: r.inFlight, ended: r.ended, changed: r.changed };
    },
  );
}
