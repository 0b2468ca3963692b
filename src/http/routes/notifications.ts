/** POST /v1/notifications (idempotent intake), POST /v1/notifications/batch (notification-batch.ts) and GET /v1/notifications/:id. */
import type { FastifyInstance } from 'fastify';
import { HeraldError } from '../../errors.js';
import type { IntakeService } from '../../intake/intake-service.js';
import { isId } from '../../ids.js';
import { notificationRequestSchema, type NotificationRequest } from '../../intake/notification-request.js';
import type { Store } from '../../store/store.js';
import { parseIdempotencyKey } from '../idempotency-header.js';
import { notificationJson } from '../views.js';
import { answer } from '../response-schemas.js';
import { notificationBatchRoute } from './notification-batch.js';
import { reportJson } from './reports.js';
import { actionJson } from '../audit-trail.js';

const problemRef = { $ref: 'problem#' };

/** Registers the notification routes on an authenticated scope. */
export function notificationRoutes(app: FastifyInstance, deps: { store: Store; intake: IntakeService }): void {
  app.post<{ Body: NotificationRequest }>(
    '/v1/notifications',
    {
      schema: {
        summary: 'Accept a notification',
        description:
          'Validates, then commits the notification, one `ready` delivery per channel and an outbox event in one transaction before answering 202. ' +
          'Send `Idempotency-Key` to make retries safe: the same key and body replay the first answer; a different body is 422; a concurrent duplicate is 409.',
        tags: ['notifications'],
        headers: {
          type: 'object',
          properties: { 'idempotency-key': { type: 'string', description: 'RFC 8941 sf-string or bare token, 1-255 chars' } },
        },
        body: notificationRequestSchema,
        response: { 202: answer.notificationAccepted, 400: problemRef, 401: problemRef, 409: problemRef, 413: problemRef, 415: problemRef, 422: problemRef },
      },
    },
    async (request, reply) => {
      const key = parseIdempotencyKey(request.raw.rawHeaders);
      const result = await deps.intake.submit(request.tenantId, request.body, key);
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      const type = result.statusCode >= 400 ? 'application/problem+json' : 'application/json';
      return reply.code(result.statusCode).type(type).send(result.body);
    },
  );

  notificationBatchRoute(app, deps);

  app.get<{ Params: { id: string } }>(
    '/v1/notifications/:id',
    {
      schema: {
        summary: 'A notification with its deliveries and every attempt',
        tags: ['notifications'],
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: { 200: answer.notificationDetail, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const n = isId('ntf', request.params.id) ? await deps.store.getNotification(request.tenantId, request.params.id) : null;
      if (!n) throw new HeraldError('not_found', `no notification ${request.params.id}`);
      // What people reported about it, beside the evidence (POST /v1/notifications/:id/reports).
      const reports = await deps.store.reports.listReports(request.tenantId, n.id);
      // Who retried, resent or cancelled what (the audit trail), oldest first; each item names its delivery.
      const actions = await deps.store.audit.listForNotification(request.tenantId, n.id);
      return { ...notificationJson(n), reports: reports.map(reportJson), actions: actions.map(actionJson) };
    },
  );
}
