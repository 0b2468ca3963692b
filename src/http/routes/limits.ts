/**
 * GET /v1/limits: the limits on the way in as this Herald enforces them (docs/abuse-limits.md),
 * and where the calling key stands against its request quota. No key, destination or count of
 * anyone else's is shown.
 */
import type { FastifyInstance } from 'fastify';
import { VELOCITY_SUBJECTS, type IntakeLimitsPolicy } from '../../domain/index.js';
import { REQUEST_POLICY_ID } from '../request-limits.js';

const problemRef = { $ref: 'problem#' };
const int = { type: 'integer', minimum: 0 } as const;

const responseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['requests', 'velocity', 'sms'],
  properties: {
    requests: {
      description: "The calling key's request quota (its own override or the default), or null when requests are not limited.",
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['policy', 'limit', 'window_s', 'remaining', 'reset_s', 'shared'],
      properties: {
        policy: { type: 'string', description: 'The policy name in the RateLimit and RateLimit-Policy headers.' },
        limit: int,
        window_s: int,
        remaining: { ...int, description: 'Requests left in the current window, this one counted.' },
        reset_s: { ...int, description: 'Seconds until the window resets.' },
        shared: { type: 'boolean', description: 'Always true: the count is kept in the database, so every API process spends one quota.' },
      },
    },
    velocity: {
      type: 'array',
      description: 'Per purpose, the most notifications per destination or recipient in a sliding window.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['purpose', 'limit', 'max', 'window_s'],
        properties: {
          purpose: { type: 'string' },
          limit: { type: 'string', enum: ['destination_velocity', 'recipient_velocity'] },
          max: int,
          window_s: int,
        },
      },
    },
    sms: {
      type: 'object',
      additionalProperties: false,
      required: ['countries', 'refuse_number_types'],
      properties: {
        countries: {
          description: 'ISO 3166-1 alpha-2 codes SMS may go to (001: non-geographic); null: every country (limits.sms.countries not set).',
          type: ['array', 'null'],
          items: { type: 'string' },
        },
        refuse_number_types: { type: 'array', items: { type: 'string' } },
      },
    },
  },
} as const;

export interface LimitsRouteDeps {
  limits: IntakeLimitsPolicy;
}

/** Registers GET /v1/limits on the authenticated app. */
export function limitsRoutes(app: FastifyInstance, deps: LimitsRouteDeps): void {
  const p = deps.limits;
  const velocity = Object.entries(p.velocity).flatMap(([purpose, rules]) =>
    [...(rules ?? [])]
      .sort((a, b) => VELOCITY_SUBJECTS.indexOf(a.subject) - VELOCITY_SUBJECTS.indexOf(b.subject))
      .map((r) => ({ purpose, limit: `${r.subject}_velocity`, max: r.max, window_s: r.windowMs / 1000 })),
  );
  const sms = { countries: p.smsCountries === null ? null : [...p.smsCountries], refuse_number_types: [...p.smsRefusedNumberTypes] };
  app.get(
    '/v1/limits',
    {
      schema: {
        tags: ['limits'],
        summary: 'The limits on the way in: request quota, velocity rules, SMS countries',
        response: { 200: responseSchema, 401: problemRef, 429: problemRef },
      },
    },
    async (request) => {
      const q = request.requestQuota;
      return {
        requests:
          q === null ? null : { policy: REQUEST_POLICY_ID, limit: q.limit, window_s: q.windowS, remaining: q.remaining, reset_s: q.resetS, shared: true },
        velocity,
        sms,
      };
    },
  );
}
