/**
 * The operator's routes for Android gateway phones (behind API keys, the tenant's devices only):
 * each device's health, its messages by state, its heartbeat sweeps, and the two retries.
 */
import type { FastifyInstance } from 'fastify';
import type { DeviceOperator } from '../../devices/device-operator.js';
import { OFFER_STATES, PHONE_STATES, type OfferState, type PhoneState } from '../../domain/index.js';
import { HeraldError } from '../../errors.js';
import type { Clock } from '../../clock.js';
import type { DeviceMessageView, Store, SweepRecord } from '../../store/store.js';
import { actionJson, recordAction } from '../audit-trail.js';
import { PAGE_QUERY, pageLimit } from '../list-cursor.js';
import { answer } from '../response-schemas.js';

const problemRef = { $ref: 'problem#' };
const errors = { 400: problemRef, 401: problemRef, 404: problemRef };
const idParams = { type: 'object', properties: { id: { type: 'string', maxLength: 64 } }, required: ['id'] } as const;
const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** A device message (one offer) as the API shows it. */
export function deviceMessageJson(m: DeviceMessageView): Record<string, unknown> {
  return {
    message_id: m.messageId,
    delivery_id: m.deliveryId,
    device_id: m.deviceId,
    seq: m.seq,
    attempt: m.attemptNumber,
    current: m.current,
    state: m.state,
    phone_state: m.phoneState,
    phone_error: m.phoneError,
    sent: m.sent,
    sim_number: m.simNumber,
    priority: m.priority,
    valid_until: iso(m.validUntil),
    offered_at: iso(m.offeredAt),
    pulled_at: iso(m.pulledAt),
    pull_count: m.pullCount,
    reoffered_at: iso(m.reofferedAt),
    reoffer_count: m.reofferCount,
    reported_at: iso(m.reportedAt),
    provider_account: m.providerAccount,
    delivery_state: m.deliveryState,
    terminal_reason: m.terminalReason,
    downstream_status: m.downstreamStatus,
    purpose: m.purpose,
  };
}

export function sweepJson(s: SweepRecord): Record<string, unknown> {
  return {
    id: s.id,
    device_id: s.deviceId,
    cause: s.cause,
    away_since: iso(s.awaySince),
    returned_at: iso(s.returnedAt),
    swept_at: iso(s.sweptAt),
    retried: s.retried,
    reoffered: s.reoffered,
    skipped_expired: s.skippedExpired,
  };
}

const cursorOf = (id: number): string => Buffer.from(String(id), 'utf8').toString('base64url');
function decodeCursor(cursor: string): number {
  const n = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!Number.isSafeInteger(n) || n < 1)
    throw new HeraldError('invalid_cursor', 'cursor must be a next_cursor value returned by this endpoint', [
      { field: 'query.cursor', message: 'is not a cursor this API issued' },
    ]);
  return n;
}

/** Registers the device routes on an authenticated scope. */
export function deviceRoutes(app: FastifyInstance, deps: { operator: DeviceOperator; store: Store; clock: Clock }): void {
  const { operator } = deps;
  const audit = { store: deps.store, clock: deps.clock };
  app.get(
    '/v1/devices',
    { schema: { summary: "The tenant's Android gateway devices with their health", tags: ['devices'], response: { 200: answer.deviceList, 401: problemRef } } },
    async (request) => ({
      items: await operator.list(request.tenantId),
    }),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/devices/:id',
    { schema: { summary: "One device's health", tags: ['devices'], params: idParams, response: { 200: answer.deviceDetail, ...errors } } },
    async (request) => {
      const device = await operator.get(request.tenantId, request.params.id);
      // Who retried its messages (the audit trail), oldest first.
      const actions = await deps.store.audit.listForDevice(request.tenantId, request.params.id);
      return { ...device, actions: actions.map(actionJson) };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { state?: OfferState; phone_state?: PhoneState; current?: string; cursor?: string; limit?: string } }>(
    '/v1/devices/:id/messages',
    {
      schema: {
        summary: "A device's messages (one per offer), newest first, by Herald's offer state or the phone's state",
        tags: ['devices'],
        params: idParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: [...OFFER_STATES] },
            phone_state: { type: 'string', enum: [...PHONE_STATES] },
            current: { type: 'string', enum: ['true', 'false'], description: "true: only each message's current offer (one row per message)" },
            cursor: { type: 'string', maxLength: 64 },
            limit: PAGE_QUERY.limit,
          },
        },
        response: { 200: answer.deviceMessagePage, ...errors },
      },
    },
    async (request) => {
      const q = request.query;
      const limit = pageLimit(q.limit);
      const rows = await operator.messages(
        request.tenantId,
        request.params.id,
        { state: q.state, phoneState: q.phone_state, current: q.current === 'true' },
        q.cursor === undefined ? null : decodeCursor(q.cursor),
        limit + 1,
      );
      const items = rows.slice(0, limit);
      return { items: items.map(deviceMessageJson), next_cursor: rows.length > limit ? cursorOf(items[items.length - 1]!.id) : null };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/devices/:id/sweeps',
    {
      schema: {
        summary: "A device's heartbeat sweeps (and operator retries), newest first",
        tags: ['devices'],
        params: idParams,
        response: { 200: answer.sweepList, ...errors },
      },
    },
    async (request) => ({ items: (await operator.sweeps(request.tenantId, request.params.id, 100)).map(sweepJson) }),
  );

  app.post<{ Params: { id: string } }>(
    '/v1/devices/:id/retry-failed',
    {
      schema: {
        summary: "Retry every failed message of a device from the sweep's look-back window that has not expired, now",
        description:
          'Failed = the phone reported Failed before sending, or no device could take it. Recorded as a sweep (cause operator) and as a replay per delivery.',
        tags: ['devices'],
        params: idParams,
        response: { 200: answer.sweep, ...errors },
      },
    },
    async (request) => {
      const sweep = await operator.retryFailed(request.tenantId, request.params.id, request.apiKeyId);
      await recordAction(audit, request, 'device_retry_failed', { deviceId: request.params.id }, { sweep_id: sweep.id, retried: sweep.retried });
      return sweepJson(sweep);
    },
  );

  app.post<{ Params: { id: string; messageId: string } }>(
    '/v1/devices/:id/messages/:messageId/retry',
    {
      schema: {
        summary:
          'Retry one message: a failed one gets a new offer; an unknown one is re-offered under its same id (the phone re-reports instead of sending again)',
        tags: ['devices'],
        params: {
          type: 'object',
          properties: { id: { type: 'string', maxLength: 64 }, messageId: { type: 'string', maxLength: 36 } },
          required: ['id', 'messageId'],
        },
        response: { 202: answer.deviceRetry, ...errors, 409: problemRef },
      },
    },
    async (request, reply) => {
      const r = await operator.retryMessage(request.tenantId, request.params.id, request.params.messageId, request.apiKeyId);
      await recordAction(
        audit,
        request,
        'device_retry',
        { deviceId: request.params.id, deliveryId: r.message.deliveryId },
        { message_id: request.params.messageId, result: r.action },
      );
      return reply.code(202).send({ action: r.action, message: deviceMessageJson(r.message) });
    },
  );

  app.get<{ Params: { id: string; messageId: string } }>(
    '/v1/devices/:id/messages/:messageId',
    {
      schema: {
        summary: 'One device message by its message id',
        tags: ['devices'],
        params: { type: 'object', properties: { id: { type: 'string' }, messageId: { type: 'string', maxLength: 36 } }, required: ['id', 'messageId'] },
        response: { 200: answer.deviceMessage, ...errors },
      },
    },
    async (request) => deviceMessageJson(await operator.message(request.tenantId, request.params.id, request.params.messageId)),
  );
}
