/**
 * A recipient's opt-outs: PUT /v1/recipients/:id/preferences (replace the whole set) and
 * GET /v1/recipients/:id/preferences. Tenant-scoped by the API key. Recipients need not be
 * stored anywhere else: an opt-out can be recorded before the first message.
 */
import { recordAction } from '../audit-trail.js';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { CHANNELS, isOptionalPurpose, OPTIONAL_PURPOSES, PURPOSES, type Channel, type OptOut, type Purpose } from '../../domain/index.js';
import { HeraldError } from '../../errors.js';
import type { StoredOptOut } from '../../store/preference-store.js';
import type { Store } from '../../store/store.js';

const problemRef = { $ref: 'problem#' };

/** The same bounds as `recipient.id` in POST /v1/notifications. */
const recipientParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
  required: ['id'],
} as const;

const optOutJsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    channel: { type: ['string', 'null'], enum: [...CHANNELS, null], description: 'The channel; null or absent: every channel.' },
    purpose: {
      type: ['string', 'null'],
      enum: [...PURPOSES, null],
      description: `The purpose (${OPTIONAL_PURPOSES.join(' or ')}); null or absent: both. Codes, receipts and alerts cannot be opted out of.`,
    },
  },
} as const;

const preferencesResponse = {
  type: 'object',
  properties: {
    recipient_id: { type: 'string' },
    opt_outs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          channel: { type: ['string', 'null'] },
          purpose: { type: ['string', 'null'] },
          source: { type: 'string', enum: ['api', 'one_click'] },
          opted_out_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
} as const;

interface PutBody {
  opt_outs: Array<{ channel?: Channel | null; purpose?: Purpose | null }>;
}

/** The preferences document the API returns. */
export function preferencesJson(recipientId: string, optOuts: StoredOptOut[]) {
  return {
    recipient_id: recipientId,
    opt_outs: optOuts.map((o) => ({ channel: o.channel, purpose: o.purpose, source: o.source, opted_out_at: new Date(o.optedOutAt).toISOString() })),
  };
}

/** The requested opt-outs, refusing the purposes nobody may opt out of with `purpose_not_optional`. */
function toOptOuts(body: PutBody): OptOut[] {
  return body.opt_outs.map((o, i) => {
    const purpose = o.purpose ?? null;
    if (purpose !== null && !isOptionalPurpose(purpose)) {
      throw new HeraldError('purpose_not_optional', `opt_outs[${i}].purpose ${purpose} cannot be opted out of: codes, receipts and alerts always go`, [
        { field: `opt_outs[${i}].purpose`, message: `must be one of ${OPTIONAL_PURPOSES.join(', ')}, or null for both` },
      ]);
    }
    return { channel: o.channel ?? null, purpose };
  });
}

/** Registers the preference routes on an authenticated scope. */
export function preferenceRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock }): void {
  const clock = deps.clock;

  app.put<{ Params: { id: string }; Body: PutBody }>(
    '/v1/recipients/:id/preferences',
    {
      schema: {
        summary: "Replace a recipient's opt-outs",
        description:
          'The body is the whole set: opt-outs not listed are removed; ones already recorded keep their time and source (a one-click ' +
          'unsubscribe stays `one_click`). Checked before every attempt: a marketing or conversational delivery still queued for this ' +
          'recipient ends `terminal/unsubscribed` instead of being sent. `otp`, `transactional` and `alert` are never stopped by an opt-out.',
        tags: ['preferences'],
        params: recipientParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['opt_outs'],
          properties: { opt_outs: { type: 'array', maxItems: 32, items: optOutJsonSchema } },
        },
        response: { 200: preferencesResponse, 400: problemRef, 401: problemRef, 422: problemRef },
      },
    },
    async (request) => {
      const optOuts = toOptOuts(request.body);
      const stored = await deps.store.preferences.replaceOptOuts({
        tenantId: request.tenantId,
        recipientId: request.params.id,
        optOuts,
        source: 'api',
        now: clock.now(),
      });
      await recordAction({ store: deps.store, clock }, request, 'preferences_edit', { subjectId: request.params.id }, { opt_outs: optOuts.length });
      return preferencesJson(request.params.id, stored);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/recipients/:id/preferences',
    {
      schema: {
        summary: "A recipient's opt-outs",
        description: 'Empty for a recipient with none (or never seen).',
        tags: ['preferences'],
        params: recipientParams,
        response: { 200: preferencesResponse, 400: problemRef, 401: problemRef },
      },
    },
    async (request) => preferencesJson(request.params.id, await deps.store.preferences.listOptOuts(request.tenantId, request.params.id)),
  );
}
