/**
 * What a person experienced, as a producer's support tooling reports it:
 * `POST /v1/notifications/:id/reports {"kind": "duplicate" | "not_received", "channel"?, "note"?}`.
 * Stored as said and never edited, counted per channel and purpose, and listed on the
 * notification beside its evidence, where an operator compares the two (docs/operations.md:
 * a duplicate reported where the ledger shows one submission points outside Herald).
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { CHANNELS, type Channel } from '../../domain/index.js';
import { fieldError, HeraldError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { DeliveryCounters } from '../../metrics/counters.js';
import { REPORT_KINDS, type ReportKind, type ReportRecord } from '../../store/report-store.js';
import type { Store } from '../../store/store.js';

const problemRef = { $ref: 'problem#' };

/** A report as the API shows it. */
export function reportJson(r: ReportRecord) {
  return { id: r.id, kind: r.kind, channel: r.channel, note: r.note, reported_by: r.reportedBy, created_at: new Date(r.createdAt).toISOString() };
}

const reportSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: [...REPORT_KINDS] },
    channel: { type: ['string', 'null'] },
    note: { type: ['string', 'null'] },
    reported_by: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** Registers the report routes on an authenticated scope. */
export function reportRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock; counters?: DeliveryCounters }): void {
  const clock = deps.clock;
  app.post<{ Params: { id: string }; Body: { kind: ReportKind; channel?: Channel; note?: string } }>(
    '/v1/notifications/:id/reports',
    {
      schema: {
        summary: 'Report what a person experienced: a duplicate, or nothing received',
        tags: ['reports'],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } },
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['kind'],
          properties: {
            kind: { type: 'string', enum: [...REPORT_KINDS] },
            channel: { type: 'string', enum: [...CHANNELS], description: 'The channel the report is about, when known.' },
            note: { type: 'string', minLength: 1, maxLength: 2000, description: 'What support was told; keep personal data out of it.' },
          },
        },
        response: { 201: reportSchema, 400: problemRef, 401: problemRef, 404: problemRef },
      },
    },
    async (request, reply) => {
      const n = await deps.store.getNotification(request.tenantId, request.params.id);
      if (!n) throw new HeraldError('not_found', `no notification ${request.params.id}`);
      const { kind, channel, note } = request.body;
      if (channel !== undefined && !n.channels.includes(channel)) throw fieldError('channel', `the notification was not sent on ${channel}`);
      const now = clock.now();
      const id = newId('rpt', now);
      const stored = await deps.store.reports.addReport({
        id,
        tenantId: request.tenantId,
        notificationId: n.id,
        kind,
        channel: channel ?? null,
        note: note ?? null,
        reportedBy: request.apiKeyId,
        now,
      });
      if (!stored) throw new HeraldError('not_found', `no notification ${request.params.id}`);
      deps.counters?.inc(kind === 'duplicate' ? 'user_reported_duplicates' : 'user_reported_not_received', {
        channel: channel ?? n.channels[0]!,
        purpose: n.purpose,
      });
      return reply
        .code(201)
        .send(reportJson({ id, notificationId: n.id, kind, channel: channel ?? null, note: note ?? null, reportedBy: request.apiKeyId, createdAt: now }));
    },
  );
}
