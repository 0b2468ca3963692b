/**
 * `DELETE /v1/recipients/:id`: erase one recipient's data on request (docs/retention.md,
 * "Erasing one recipient"). Pending deliveries are cancelled (terminal/cancelled) so nothing is
 * sent after the answer; content and destinations of past deliveries, the stored profile,
 * opt-outs, push subscriptions and audience addresses go; the erasure is recorded. A delivery in
 * flight (submitting, unknown) keeps its notification's content until it settles: the answer
 * counts those, and the same request again erases them then. Idempotent.
 */
import { recordAction } from '../audit-trail.js';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { RetentionService } from '../../delivery/retention-service.js';
import type { Store } from '../../store/store.js';

const problemRef = { $ref: 'problem#' };

export interface RecipientErasureRouteDeps {
  store: Store;
  clock: Clock;
  /** The process's retention service (it keeps the destination-hash secret). Default: one over `store`. */
  retention?: RetentionService;
}

const count = { type: 'integer', minimum: 0 } as const;

/** Registers DELETE /v1/recipients/:id on an authenticated scope. */
export function recipientErasureRoutes(app: FastifyInstance, deps: RecipientErasureRouteDeps): void {
  const retention =
    deps.retention ??
    new RetentionService({
      store: deps.store,
      clock: deps.clock,
      // Erasing one recipient reads no policy; the job's own service is built from the config.
      policy: { contentDays: { otp: 30, transactional: 30, conversational: 30, marketing: 30, alert: 30 }, destinationDays: 90, otpEraseAfterSettled: true },
    });
  app.delete<{ Params: { id: string } }>(
    '/v1/recipients/:id',
    {
      schema: {
        summary: "Erase one recipient's data (content, destinations, profile, preferences, push subscriptions)",
        tags: ['recipients'],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 200 } } },
        response: {
          200: {
            type: 'object',
            properties: {
              recipient_id: { type: 'string' },
              deliveries_cancelled: count,
              notifications_erased: count,
              notifications_in_flight: count,
              destinations_masked: count,
              profile_deleted: { type: 'boolean' },
              preferences_deleted: count,
              push_subscriptions_deleted: count,
              audience_rows_cleared: count,
            },
          },
          401: problemRef,
        },
      },
    },
    async (request) => {
      const r = await retention.eraseRecipient(request.tenantId, request.params.id);
      await recordAction(
        { store: deps.store, clock: deps.clock },
        request,
        'recipient_erase',
        { subjectId: request.params.id },
        {
          notifications_erased: r.notificationsErased,
          deliveries_cancelled: r.deliveriesCancelled,
        },
      );
      return {
        recipient_id: request.params.id,
        deliveries_cancelled: r.deliveriesCancelled,
        notifications_erased: r.notificationsErased,
        notifications_in_flight: r.notificationsInFlight,
        destinations_masked: r.destinationsMasked,
        profile_deleted: r.profileDeleted,
        preferences_deleted: r.preferencesDeleted,
        push_subscriptions_deleted: r.pushSubscriptionsDeleted,
        audience_rows_cleared: r.audienceRowsCleared,
      };
    },
  );
}
