/**
 * Operator alerts, read-only: GET /v1/alerts (the history of sent alerts, newest first, cursor
 * pagination) and GET /v1/alerts/active (what is firing now). Alerts are about the whole
 * system, not a tenant: any key with the `read` scope reads them, whatever its tenant
 * (route-scopes.ts). The history holds masked targets and error classes only, never an address, a body or a code.
 */
import type { FastifyInstance } from 'fastify';
import { decodeNumberCursor, encodeNumberCursor, pageLimit, PAGE_ONLY_QUERYSTRING, pageOf } from '../list-cursor.js';
import type { AlertSentRecord } from '../../store/alert-store.js';
import type { Store } from '../../store/store.js';

const problemRef = { $ref: 'problem#' };
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A history row as the API shows it. */
export function alertSentJson(r: AlertSentRecord) {
  return {
    id: r.id,
    sent_at: iso(r.sentAt),
    rule: r.rule,
    subject: r.subject,
    kind: r.kind,
    target_kind: r.targetKind,
    target: r.target,
    provider_account: r.providerAccount,
    outcome: r.outcome,
    error_class: r.errorClass,
  };
}

const nullableString = { type: ['string', 'null'] } as const;

const historySchema = pageOf({
  type: 'object',
  properties: {
    id: { type: 'integer' },
    sent_at: { type: 'string', format: 'date-time' },
    rule: nullableString,
    subject: nullableString,
    kind: { type: 'string', enum: ['firing', 'resolved', 'test'] },
    target_kind: { type: 'string', enum: ['email', 'sms', 'webhook'] },
    target: { type: 'string', description: 'masked: o***@example.com, +4915*******89, https://hooks.example.com/…' },
    provider_account: nullableString,
    outcome: { type: 'string', enum: ['sent', 'failed'] },
    error_class: nullableString,
  },
});

const activeItem = {
  type: 'object',
  properties: {
    rule: { type: 'string' },
    subject: { type: 'string' },
    since: { type: 'string', format: 'date-time' },
    line: { type: 'string' },
    value: { type: 'number' },
    announced: { type: 'boolean', description: 'whether a message about it has gone out (false inside the minimum gap)' },
    announced_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

const activeSchema = { type: 'object', properties: { items: { type: 'array', items: activeItem } } } as const;

/** Registers the alert routes on an authenticated scope. */
export function alertRoutes(app: FastifyInstance, deps: { store: Store }): void {
  app.get<{ Querystring: { cursor?: string; limit?: string } }>(
    '/v1/alerts',
    {
      schema: {
        summary: 'Operator alerts sent, newest first (every target and try; system-wide)',
        tags: ['alerts'],
        querystring: PAGE_ONLY_QUERYSTRING,
        response: { 200: historySchema, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await deps.store.alerts.listHistory(q.cursor === undefined ? null : decodeNumberCursor('alert', q.cursor), pageLimit(q.limit));
      return { items: page.items.map(alertSentJson), next_cursor: page.nextBefore === null ? null : encodeNumberCursor('alert', page.nextBefore) };
    },
  );

  app.get(
    '/v1/alerts/active',
    {
      schema: {
        summary: 'Operator alerts firing now (system-wide)',
        tags: ['alerts'],
        response: { 200: activeSchema, 401: problemRef },
      },
    },
    async () => {
      const states = (await deps.store.alerts.listStates()).filter((s) => s.status === 'firing');
      return {
        items: states.map((s) => ({
          rule: s.rule,
          subject: s.subject,
          since: iso(s.since),
          line: s.line,
          value: s.value,
          announced: s.announced === 'firing',
          announced_at: s.announced === 'firing' ? iso(s.announcedAt) : null,
        })),
      };
    },
  );
}
