/** GET /v1/deliveries (filtered, cursor-paginated, the dashboard's message list) and GET /v1/deliveries/:id. */
import type { FastifyInstance } from 'fastify';
import {
  CHANNELS,
  DELIVERY_STATES,
  DOWNSTREAM_STATUSES,
  PURPOSES,
  TERMINAL_REASONS,
  type Channel,
  type DeliveryState,
  type DownstreamStatus,
  type Purpose,
  type TerminalReason,
} from '../../domain/index.js';
import { HeraldError } from '../../errors.js';
import { isId } from '../../ids.js';
import type { DeliveryFilter, Store } from '../../store/store.js';
import { attemptJson, deliveryJson, deliveryListItemJson, duplicateAcrossAccountsJson, evidenceJson, templateJson } from '../views.js';
import { actionJson, recordAction } from '../audit-trail.js';
import type { Clock } from '../../clock.js';
import { DeliveryCanceller } from '../../delivery/delivery-canceller.js';
import { decodeCursor, encodeCursor, PAGE_QUERY, pageLimit } from '../list-cursor.js';
import { answer } from '../response-schemas.js';
import { bulkCancelRoute } from './bulk-cancel.js';

const problemRef = { $ref: 'problem#' };

interface ListQuery {
  state?: DeliveryState;
  channel?: Channel;
  purpose?: Purpose;
  terminal_reason?: TerminalReason;
  downstream_status?: DownstreamStatus;
  provider_account?: string;
  device?: string;
  campaign?: string;
  since?: string;
  until?: string;
  q?: string;
  failed?: 'true' | 'false';
  cursor?: string;
  limit?: string;
}

/** An ISO 8601 time of the query as epoch ms, or a validation error naming the parameter. */
function timeParam(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  // Date.parse accepts more than ISO 8601 ("Tuesday"): insist on a date first.
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(t))
    throw new HeraldError('validation_failed', `query.${name} must be an ISO 8601 time, e.g. 2026-12-01T21:00:00Z`, [
      { field: `query.${name}`, message: 'must be an ISO 8601 time' },
    ]);
  return t;
}

/**
 * Callbacks and look-ups shown per delivery, each: a delivery gets a handful of callbacks
 * (accepted, sent, delivered) and, while unknown, a look-up every 15 s for at most its evidence
 * window; the latest 100 cover the story without an unbounded answer.
 */
const EVIDENCE_LIMIT = 100;

/** Registers the delivery routes on an authenticated scope. */
export function deliveryRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock }): void {
  const clock = deps.clock;
  const canceller = new DeliveryCanceller({ store: deps.store, clock });
  bulkCancelRoute(app, { store: deps.store, clock });
  const word = { type: 'string', minLength: 1, maxLength: 200 } as const;
  app.get<{ Querystring: ListQuery }>(
    '/v1/deliveries',
    {
      schema: {
        summary: 'List deliveries, newest first, filtered',
        description:
          'Every filter given must hold. `q` is an exact notification id, delivery id, recipient id or operation id (the group key); ' +
          '`since`/`until` bound the creation time (ISO 8601; since inclusive, until exclusive). `failed=true` keeps only failed messages, by the one ' +
          'definition the overview, `GET /v1/stats`, `/metrics` and the alerts count (docs/operations.md, "What counts as a failed message"): terminal ' +
          '`rejected`, `exhausted` or `unresolved`, `expired` without ever being accepted, or `retryable` after a definite refusal; an offer to a phone ' +
          'is not a failure. Each filter walks its own index, so a page ' +
          'costs the same at any depth (docs/benchmarks.md). Sessions below admin see `destination` masked.',
        tags: ['deliveries'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: [...DELIVERY_STATES] },
            channel: { type: 'string', enum: [...CHANNELS] },
            purpose: { type: 'string', enum: [...PURPOSES] },
            terminal_reason: { type: 'string', enum: [...TERMINAL_REASONS] },
            downstream_status: { type: 'string', enum: [...DOWNSTREAM_STATUSES] },
            provider_account: word,
            device: word,
            campaign: word,
            since: { type: 'string', maxLength: 40, description: 'ISO 8601; created at or after' },
            until: { type: 'string', maxLength: 40, description: 'ISO 8601; created before' },
            q: { ...word, description: 'an exact notification id, delivery id, recipient id or operation id' },
            failed: { type: 'string', enum: ['true', 'false'], description: 'true: only failed messages (docs/operations.md); false: no such filter' },
            ...PAGE_QUERY,
          },
        },
        response: { 200: answer.deliveryPage, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const q = request.query;
      const filter: DeliveryFilter = {
        ...(q.state !== undefined ? { state: q.state } : {}),
        ...(q.channel !== undefined ? { channel: q.channel } : {}),
        ...(q.purpose !== undefined ? { purpose: q.purpose } : {}),
        ...(q.terminal_reason !== undefined ? { terminalReason: q.terminal_reason } : {}),
        ...(q.downstream_status !== undefined ? { downstreamStatus: q.downstream_status } : {}),
        ...(q.provider_account !== undefined ? { providerAccount: q.provider_account } : {}),
        ...(q.device !== undefined ? { deviceId: q.device } : {}),
        ...(q.campaign !== undefined ? { campaignId: q.campaign } : {}),
        ...(q.since !== undefined ? { since: timeParam('since', q.since)! } : {}),
        ...(q.until !== undefined ? { until: timeParam('until', q.until)! } : {}),
        ...(q.q !== undefined ? { q: q.q } : {}),
        ...(q.failed === 'true' ? { failed: true } : {}),
      };
      const page = await deps.store.listDeliveries(request.tenantId, filter, q.cursor === undefined ? null : decodeCursor(q.cursor), pageLimit(q.limit));
      return {
        items: page.items.map((d) => deliveryListItemJson(d, request.destinationView)),
        next_cursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor),
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/deliveries/:id',
    {
      schema: {
        summary: 'One delivery, with its attempt timeline, its evidence and the operator actions taken on it',
        description:
          '`evidence` is what happened downstream, ordered by time: each provider callback (`kind: callback`: its status, when Herald received it, ' +
          "the provider's own time when given, and its `effect`: `applied` moved the state or downstream status, `no_change` was late or repeated, " +
          '`pending` is parked until the delivery settles) and each reconciliation look-up (`kind: lookup`: what it found and what that led to). ' +
          `The latest ${EVIDENCE_LIMIT} of each kind are shown. A repeated callback with the same event id is recorded once.`,
        tags: ['deliveries'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: { 200: answer.deliveryDetail, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const d = isId('dlv', request.params.id) ? await deps.store.getDelivery(request.params.id) : null;
      if (!d || d.tenantId !== request.tenantId) throw new HeraldError('not_found', `no delivery ${request.params.id}`);
      // Its attempt timeline (with each attempt's rollout decisions), as the notification shows it.
      const n = await deps.store.getNotification(request.tenantId, d.notificationId);
      const attempts = n?.deliveries.find((x) => x.id === d.id)?.attempts ?? [];
      const [actions, evidence] = await Promise.all([
        deps.store.audit.listForDelivery(request.tenantId, d.id),
        deps.store.evidence.deliveryEvidence(d.id, EVIDENCE_LIMIT),
      ]);
      return {
        ...deliveryJson(d),
        template: templateJson(n?.content),
        attempts: attempts.map(attemptJson),
        evidence: evidenceJson(evidence),
        // A delivery that moved along its route and that both accounts reported delivered (docs/routing.md).
        duplicate_across_accounts: duplicateAcrossAccountsJson(evidence),
        actions: actions.map(actionJson),
      };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/deliveries/:id/cancel',
    {
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
      schema: {
        summary: 'Cancel a delivery that has nothing in flight',
        description:
          'A `ready` or `retryable` delivery ends `terminal/cancelled`; anything else is 409 `not_cancellable` (an `unknown` one too: its submission ' +
          'may have arrived, and a cancelled delivery can be replayed without accepting that risk). Recorded in the audit trail.',
        tags: ['deliveries'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: answer.delivery, 400: problemRef, 401: problemRef, 404: problemRef, 409: problemRef },
      },
    },
    async (request) => {
      const id = request.params.id;
      if (!isId('dlv', id)) throw new HeraldError('not_found', `no delivery ${id}`);
      const from = await deps.store.getDelivery(id);
      const d = await canceller.cancel(request.tenantId, id);
      await recordAction(
        { store: deps.store, clock },
        request,
        'cancel',
        { deliveryId: d.id, notificationId: d.notificationId },
        { from_state: from?.state ?? null },
      );
      return deliveryJson(d);
    },
  );
}
