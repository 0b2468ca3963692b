/**
 * The review queue and what a person does with it: GET /v1/review, replaying one delivery
 * (POST /v1/deliveries/:id/retry) or many (POST /v1/deliveries/retry), and resending a
 * notification as a new generation of its challenge (POST /v1/notifications/:id/resend).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CHANNELS, DELIVERY_STATES, type Channel, type DeliveryState } from '../../domain/index.js';
import type { ReplayService } from '../../delivery/replay-service.js';
import { HeraldError } from '../../errors.js';
import { requestFingerprint } from '../../intake/fingerprint.js';
import type { IntakeService } from '../../intake/intake-service.js';
import { isId } from '../../ids.js';
import { MAX_TTL_SECONDS, type NotificationRequest } from '../../intake/notification-request.js';
import type { DeliveryCounters } from '../../metrics/counters.js';
import { REVIEW_REASONS } from '../../store/review-store.js';
import type { ReplayFilter, ReviewReason, Store } from '../../store/store.js';
import type { Clock } from '../../clock.js';
import { recordAction } from '../audit-trail.js';
import { auditEachDelivery, bulkActionBody, type CreatedWindowBody } from '../bulk-delivery-action.js';
import { parseIdempotencyKey } from '../idempotency-header.js';
import { deliveryJson } from '../views.js';
import { answer } from '../response-schemas.js';
import { isErasedContent } from '../../store/retention-store.js';
import { decodeCursor, encodeCursor, PAGE_QUERY, pageLimit } from '../list-cursor.js';

const problemRef = { $ref: 'problem#' };

/** An `unknown` delivery reconciliation has not settled for this long goes to the review queue. */
export const DEFAULT_REVIEW_UNKNOWN_AFTER_MS = 15 * 60_000;

export interface ReviewRouteDeps {
  store: Store;
  clock: Clock;
  intake: IntakeService;
  replay: ReplayService;
  reviewUnknownAfterMs?: number;
  counters?: DeliveryCounters;
}

interface RetryBody {
  accept_duplicate_risk?: boolean;
  note?: string;
}

interface BulkRetryBody extends RetryBody {
  dry_run?: boolean;
  filter: CreatedWindowBody & { state?: DeliveryState; channel?: Channel; provider_account?: string };
}

interface ResendBody {
  ttl_seconds?: number;
  expires_at?: string;
}

const replayFields = {
  accept_duplicate_risk: {
    type: 'boolean',
    description: 'Replay `unknown` and `unresolved` deliveries too, although the first submission may have arrived (a possible duplicate). Default false.',
  },
  note: { type: 'string', minLength: 1, maxLength: 1000, description: 'Why; kept with the replay record.' },
} as const;

/** A body-less POST is an empty object, so every field of these bodies may be left out. */
async function emptyBodyIsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

const bulkRetryBody = bulkActionBody(
  {
    state: { type: 'string', enum: [...DELIVERY_STATES] },
    channel: { type: 'string', enum: [...CHANNELS] },
    provider_account: { type: 'string', minLength: 1, maxLength: 200 },
  },
  replayFields,
  'replaying every delivery at once is refused',
);

/** Registers the review and replay routes on an authenticated scope. */
export function reviewRoutes(app: FastifyInstance, deps: ReviewRouteDeps): void {
  const audit = { store: deps.store, clock: deps.clock };
  const unknownAfterMs = deps.reviewUnknownAfterMs ?? DEFAULT_REVIEW_UNKNOWN_AFTER_MS;

  app.get<{ Querystring: { cursor?: string; limit?: string; reason?: ReviewReason } }>(
    '/v1/review',
    {
      schema: {
        summary: 'Deliveries a person should look at, newest first',
        description:
          'Terminal deliveries that ended `exhausted`, `rejected` or `unresolved`, and `unknown` deliveries that reconciliation has not settled ' +
          `within ${unknownAfterMs / 60_000} minutes; and what a provider account's rollout stage held for a person (\`held\`: ` +
          'a definite answer ended `terminal/held`, or an `unknown` listed at once). Each item is a delivery with its `review_reason`; `reason` keeps one.',
        tags: ['review'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...PAGE_QUERY,
            reason: { type: 'string', enum: [...REVIEW_REASONS], description: 'Only the items with this review_reason.' },
          },
        },
        response: { 200: answer.reviewPage, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await deps.replay.review(
        request.tenantId,
        unknownAfterMs,
        q.cursor === undefined ? null : decodeCursor(q.cursor),
        pageLimit(q.limit),
        q.reason,
      );
      return {
        items: page.items.map((d) => ({ ...deliveryJson(d), review_reason: d.reviewReason })),
        next_cursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor),
      };
    },
  );

  app.post<{ Params: { id: string }; Body: RetryBody }>(
    '/v1/deliveries/:id/retry',
    {
      preValidation: emptyBodyIsObject,
      schema: {
        summary: 'Replay one delivery now, with the same idempotency key',
        description:
          'Moves a `retryable`, `unknown` or `terminal` (exhausted, rejected, cancelled, held, unresolved) delivery back to `ready` before its expiry. ' +
          '`unknown` and `unresolved` need `accept_duplicate_risk: true`. The API key that asked is recorded.',
        tags: ['review'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        body: { type: 'object', additionalProperties: false, properties: replayFields },
        response: { 202: answer.delivery, 400: problemRef, 401: problemRef, 404: problemRef, 409: problemRef },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      if (!isId('dlv', id)) throw new HeraldError('not_found', `no delivery ${id}`);
      const acceptDuplicateRisk = request.body.accept_duplicate_risk ?? false;
      const note = request.body.note ?? null;
      const d = await deps.replay.replayOne(request.tenantId, id, { acceptDuplicateRisk, note, requestedBy: request.apiKeyId });
      await recordAction(audit, request, 'retry', { deliveryId: d.id, notificationId: d.notificationId }, { accept_duplicate_risk: acceptDuplicateRisk, note });
      return reply.code(202).send(deliveryJson(d));
    },
  );

  app.post<{ Body: BulkRetryBody }>(
    '/v1/deliveries/retry',
    {
      schema: {
        summary: 'Replay every delivery matching a filter',
        description:
          'Walks the deliveries matching `filter` that are `unknown`, `retryable` or `terminal`, oldest first, and replays each one the single ' +
          'replay would. At least one filter field is required. Answers with how many matched, how many were scheduled and why the others were refused. ' +
          'With `"dry_run": true` nothing changes: the answer says how many would be retried and, by reason, how many would be refused.',
        tags: ['review'],
        body: bulkRetryBody.schema,
        response: { 200: answer.bulkRetry, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const f = request.body.filter;
      const filter: ReplayFilter = { state: f.state, channel: f.channel, providerAccount: f.provider_account, ...bulkRetryBody.window(f) };
      const acceptDuplicateRisk = request.body.accept_duplicate_risk ?? false;
      const note = request.body.note ?? null;
      const dryRun = request.body.dry_run ?? false;
      const r = await deps.replay.replayMany(request.tenantId, filter, { acceptDuplicateRisk, note, requestedBy: request.apiKeyId }, { dryRun });
      const refusedList = Object.entries(r.refused).map(([reason, count]) => ({ reason, count }));
      if (dryRun) return { dry_run: true, matched: r.matched, would_retry: r.scheduled, refused: refusedList };
      await auditEachDelivery(audit, request, 'bulk_retry', r.scheduledDeliveries, { accept_duplicate_risk: acceptDuplicateRisk, note, filter: f });
      return { matched: r.matched, scheduled: r.scheduled, refused: r.refused };
    },
  );

  app.post<{ Params: { id: string }; Body: ResendBody }>(
    '/v1/notifications/:id/resend',
    {
      preValidation: emptyBodyIsObject,
      schema: {
        summary: 'Send a notification again as the next generation of its challenge',
        description:
          'A new notification with the same recipient, content, channels, purpose and metadata, in the same challenge group with generation = latest + 1 ' +
          '(new delivery keys), and a new expiry: `ttl_seconds` or `expires_at`, else the original lifetime. Takes `Idempotency-Key` like POST /v1/notifications.',
        tags: ['notifications'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        headers: {
          type: 'object',
          properties: { 'idempotency-key': { type: 'string', description: 'RFC 8941 sf-string or bare token, 1-255 chars' } },
        },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ttl_seconds: { type: 'integer', minimum: 1, maximum: MAX_TTL_SECONDS },
            expires_at: { type: 'string', format: 'date-time' },
          },
        },
        response: { 202: answer.notificationResent, 400: problemRef, 401: problemRef, 404: problemRef, 409: problemRef, 422: problemRef },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      const key = parseIdempotencyKey(request.raw.rawHeaders);
      const src = isId('ntf', id) ? await deps.store.review.getNotificationSource(request.tenantId, id) : null;
      if (!src) throw new HeraldError('not_found', `no notification ${id}`);
      // Erased content (docs/retention.md) cannot become a new generation: the marker is not the message.
      if (isErasedContent(src.content)) throw new HeraldError('not_replayable', `notification ${id} cannot be resent: its content was erased`);
      const nextGeneration = async (after: number) => Math.max(after, (await deps.store.latestGeneration(src.tenantId, src.groupKey)) ?? 0) + 1;
      const expiry: Pick<NotificationRequest, 'ttl_seconds' | 'expires_at'> =
        request.body.ttl_seconds !== undefined || request.body.expires_at !== undefined
          ? { ...request.body }
          : { ttl_seconds: Math.max(1, Math.round((src.expiresAt - src.createdAt) / 1000)) };
      // The new generation goes through the accounts the old one used (a pinned account stays pinned).
      const sent = await deps.store.getNotification(request.tenantId, id);
      const accounts = Object.fromEntries((sent?.deliveries ?? []).map((d) => [d.channel, d.providerAccount]));
      const body: NotificationRequest = {
        recipient: src.recipient,
        purpose: src.purpose,
        channels: src.channels,
        content: src.content,
        ...(Object.keys(accounts).length > 0 ? { provider_accounts: accounts } : {}),
        group: { key: src.groupKey, generation: await nextGeneration(src.generation) },
        ...(src.metadata !== null ? { metadata: src.metadata } : {}),
        ...expiry,
      };
      const result = await deps.intake.submit(request.tenantId, body, key, {
        // The key names this request (which notification, which expiry), not the derived body,
        // whose generation depends on when it runs.
        idempotency: {
          fingerprint: requestFingerprint('POST', 'POST /v1/notifications/:id/resend', { notification_id: id, ...request.body }),
          instance: `/v1/notifications/${id}/resend`,
        },
        extra: { resend_of: id },
        // Another resend took this generation meanwhile: take the next one, once.
        onDuplicateChallenge: async (tried) => ({ ...tried, group: { key: src.groupKey, generation: await nextGeneration(tried.group!.generation) } }),
      });
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      // A new generation was accepted (not a stored answer replayed): one user resend per channel.
      else if (result.statusCode === 202) {
        for (const channel of src.channels) deps.counters?.inc('user_resends', { channel, purpose: src.purpose });
        const created = (result.body as { id?: unknown }).id;
        await recordAction(audit, request, 'resend', { notificationId: id }, { new_notification_id: typeof created === 'string' ? created : null });
      }
      const type = result.statusCode >= 400 ? 'application/problem+json' : 'application/json';
      return reply.code(result.statusCode).type(type).send(result.body);
    },
  );
}
