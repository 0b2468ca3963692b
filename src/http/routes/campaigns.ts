/**
 * Campaigns: POST /v1/campaigns (plan first; nothing is sent before a start), GET /v1/campaigns
 * (the tenant's, newest first, with progress), GET /v1/campaigns/:id (progress and projected
 * finish), and POST /v1/campaigns/:id/start, /pause, /resume and /cancel. Audiences are
 * uploaded at POST /v1/audiences (audiences.ts).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { Route } from '../../domain/index.js';
import { CampaignService } from '../../campaigns/campaign-service.js';
import { campaignRequestSchema, type CampaignRequest } from '../../campaigns/campaign-request.js';
import type { IntakeService } from '../../intake/intake-service.js';
import type { ProviderAccountConfig } from '../../providers/provider.js';
import type { Store } from '../../store/store.js';
import { actionJson, recordAction } from '../audit-trail.js';
import { parseIdempotencyKey } from '../idempotency-header.js';
import { answer } from '../response-schemas.js';
import { decodeCursor, decodeNumberCursor, encodeCursor, encodeNumberCursor, pageLimit, PAGE_ONLY_QUERYSTRING, pageOf } from '../list-cursor.js';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../../domain/campaign-status.js';
import type { SchedulingPolicies } from '../../delivery/scheduling-policies.js';

const problemRef = { $ref: 'problem#' };
const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;
const noFields = { type: 'object', additionalProperties: false, properties: {} } as const;

export interface CampaignRouteDeps {
  store: Store;
  /** Intake's rules and template renderer (a template campaign renders its first recipient at creation). */
  intake: IntakeService;
  accounts?: ProviderAccountConfig[];
  clock: Clock;
  /** Called when a campaign starts, resumes or is cancelled (wakes an in-process campaign runner). */
  onCampaignRunnable?: () => void;
  /** The process's scheduling policies, which the campaign's waves are planned with. */
  scheduling?: SchedulingPolicies;
  /** The configured routes: a campaign is planned over its route's healthy accounts together. */
  routes?: readonly Route[];
}

/** The opaque cursor of a refusal page: the last audience position of the previous page. */
const refusalItem = {
  type: 'object',
  required: ['position', 'line', 'recipient_id', 'code', 'reason', 'locale', 'at'],
  properties: {
    position: { type: 'integer', description: "The recipient's place in the audience." },
    line: { type: 'integer', description: 'The upload line (or inline list index + 1) it came from.' },
    recipient_id: { type: 'string' },
    code: { type: 'string', description: 'The problem code POST /v1/notifications would have answered, e.g. `template_render_failed`.' },
    reason: { type: 'string', description: 'What was wrong: for a template, the template, version, locale and part.' },
    locale: { type: ['string', 'null'], description: 'The locale the template resolved to; null for a refusal that was not a template’s.' },
    at: { type: 'string', format: 'date-time' },
  },
} as const;

/** A body-less POST is an empty object. */
async function emptyBodyIsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

const ACTIONS = {
  start: {
    summary: 'Start a draft campaign (the caller’s confirmation)',
    description: 'Plans again for starting now (the stored `plan` is replaced) and starts fan-out whether or not the deadline can still be met.',
  },
  pause: {
    summary: 'Pause a running campaign',
    description:
      'Fan-out stops and every queued delivery is held; calls already in flight finish. A delivery that fails while paused is retried after ' +
      '`resume`, never skipped; one that expires while paused is counted as `expired`.',
  },
  resume: {
    summary: 'Resume a paused campaign',
    description: 'Held deliveries are due again (a retry keeps its own time if that is later) and fan-out continues from where it stopped.',
  },
  cancel: {
    summary: 'Cancel a campaign',
    description: 'Nothing more is fanned out and every queued delivery ends `terminal/cancelled`; calls in flight finish.',
  },
} as const;

/** Registers the campaign routes on an authenticated scope. */
export function campaignRoutes(app: FastifyInstance, deps: CampaignRouteDeps): void {
  const audit = { store: deps.store, clock: deps.clock };
  const campaigns = new CampaignService({
    store: deps.store,
    intake: deps.intake,
    accounts: deps.accounts ?? [],
    clock: deps.clock,
    logger: app.log,
    ...(deps.onCampaignRunnable ? { onRunnable: deps.onCampaignRunnable } : {}),
    ...(deps.scheduling ? { scheduling: deps.scheduling } : {}),
    ...(deps.routes ? { routes: deps.routes } : {}),
  });

  app.post<{ Body: CampaignRequest }>(
    '/v1/campaigns',
    {
      schema: {
        summary: 'Create a campaign and get its plan',
        description:
          'One message to an audience on one channel, by a deadline. The answer (`201`) holds the **plan**: audience size, the rate the deadline ' +
          'requires, the rate the lane gives (provider rate minus the other lanes’ reserved shares), the best-case drain time, whether the deadline is ' +
          'feasible and, when not, the options with their numbers. Nothing is sent until `POST /v1/campaigns/{id}/start`, or at once with ' +
          '`"start": "if_feasible"` when the plan is feasible. Send `Idempotency-Key` to make retries safe, as for POST /v1/notifications.',
        tags: ['campaigns'],
        headers: {
          type: 'object',
          properties: { 'idempotency-key': { type: 'string', description: 'RFC 8941 sf-string or bare token, 1-255 chars' } },
        },
        body: campaignRequestSchema,
        response: { 201: answer.campaign, 400: problemRef, 401: problemRef, 409: problemRef, 413: problemRef, 415: problemRef, 422: problemRef },
      },
    },
    async (request, reply) => {
      const r = await campaigns.createOnce(request.tenantId, request.body, parseIdempotencyKey(request.raw.rawHeaders));
      if (r.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(r.body);
    },
  );

  app.get<{ Querystring: { status?: CampaignStatus; cursor?: string; limit?: string } }>(
    '/v1/campaigns',
    {
      schema: {
        summary: "The tenant's campaigns, newest first, with status and progress",
        description:
          'Each item is what GET /v1/campaigns/{id} shows (without its actions): status, plan, deadline, progress counts and projected finish. ' +
          'The counts of a page come from one aggregate query over its campaigns’ deliveries. `status` filters; `cursor` is a `next_cursor` from a previous page.',
        tags: ['campaigns'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: [...CAMPAIGN_STATUSES] },
            cursor: { type: 'string', maxLength: 200 },
            limit: { type: 'string', pattern: '^(?:[1-9]|[1-9][0-9]|100)$', description: '1-100, default 20' },
          },
        },
        response: { 200: answer.campaignPage, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await campaigns.list(request.tenantId, {
        ...(q.status !== undefined ? { status: q.status } : {}),
        after: q.cursor === undefined ? null : decodeCursor(q.cursor, 'cmp'),
        limit: q.limit === undefined ? 20 : Number(q.limit),
      });
      return { items: page.items, next_cursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/campaigns/:id',
    {
      schema: {
        summary: 'A campaign with its progress and projected finish',
        description:
          'Progress counts come from one aggregate over the campaign’s deliveries: queued (held while paused), sending, unknown, accepted (and of ' +
          'those sent on, or bounced), failed, expired, suppressed, unsubscribed, cancelled; plus recipients not fanned out yet.',
        tags: ['campaigns'],
        params: idParams,
        response: { 200: answer.campaignDetail, 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const c = await campaigns.get(request.tenantId, request.params.id);
      // Who paused, resumed or cancelled it (the audit trail), oldest first.
      const actions = await deps.store.audit.listForCampaign(request.tenantId, request.params.id);
      return { ...c, actions: actions.map(actionJson) };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { cursor?: string; limit?: string } }>(
    '/v1/campaigns/:id/refusals',
    {
      schema: {
        summary: 'Recipients the campaign could not send to, with the reason',
        description:
          'Every recipient whose message fan-out could not build (a template variable their data lacks, a part over its channel’s limit, data ' +
          'intake refuses), in audience order. They are counted in `progress.skipped` and `progress.refused_by_code`; never sent, never retried.',
        tags: ['campaigns'],
        params: idParams,
        querystring: PAGE_ONLY_QUERYSTRING,
        response: {
          200: pageOf(refusalItem),
          400: problemRef,
          401: problemRef,
          404: problemRef,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const after = q.cursor === undefined ? 0 : decodeNumberCursor('refusal', q.cursor);
      const page = await campaigns.refusals(request.tenantId, request.params.id, after, pageLimit(q.limit));
      return { items: page.items, next_cursor: page.next_cursor === null ? null : encodeNumberCursor('refusal', page.next_cursor) };
    },
  );

  for (const action of ['start', 'pause', 'resume', 'cancel'] as const) {
    app.post<{ Params: { id: string } }>(
      `/v1/campaigns/:id/${action}`,
      {
        preValidation: emptyBodyIsObject,
        schema: {
          ...ACTIONS[action],
          tags: ['campaigns'],
          params: idParams,
          body: noFields,
          response: { 200: answer.campaign, 400: problemRef, 401: problemRef, 404: problemRef, 409: problemRef },
        },
      },
      async (request) => {
        const answer = await campaigns[action](request.tenantId, request.params.id);
        if (action !== 'start') await recordAction(audit, request, `campaign_${action}`, { campaignId: request.params.id });
        return answer;
      },
    );
  }
}
