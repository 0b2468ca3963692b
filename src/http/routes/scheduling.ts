/**
 * The tenant's time-aware sending policy (docs/scheduling.md "The tenant's policy"):
 * GET /v1/scheduling shows the policy in force (the tenant's choices over the install's
 * defaults, every purpose present), PUT /v1/scheduling replaces the tenant's choices. The
 * send-time check reads what PUT stored (store.scheduling.getPolicy, via SchedulingPolicies), so
 * a change applies to messages already queued.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { SchedulingPolicies } from '../../delivery/scheduling-policies.js';
import { PURPOSES, policyJson, policyProblems, resolvePolicy, type PolicyProblem, type SchedulingPolicyJson } from '../../domain/index.js';
import { HeraldError, type ErrorCode } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { recordAction } from '../audit-trail.js';

const problemRef = { $ref: 'problem#' };
const policyResponse = { $ref: 'SchedulingPolicy#' };

export interface SchedulingRouteDeps {
  store: Store;
  clock: Clock;
  /** The process's cache of policies (forgotten for the tenant on PUT) with the install's defaults. Default: one over the defaults. */
  scheduling?: SchedulingPolicies;
}

const windowSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['start', 'end'],
  properties: {
    start: { type: 'string', maxLength: 5, description: 'local time the window begins, HH:MM (24-hour)' },
    end: { type: 'string', maxLength: 5, description: 'local time it ends, HH:MM; before start means it wraps midnight' },
  },
} as const;

const capsSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['caps', 'action'],
  properties: {
    caps: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['max', 'period_seconds'],
        properties: { max: { type: 'integer' }, period_seconds: { type: 'integer' } },
      },
    },
    action: { type: 'string', maxLength: 20, description: 'over the cap: defer (until the cap allows, before expiry) or suppress' },
  },
} as const;

const perPurpose = (schema: object, description: string) => ({
  type: 'object',
  additionalProperties: false,
  description,
  properties: Object.fromEntries(PURPOSES.map((p) => [p, schema])),
});

/** The body PUT takes: what the tenant chooses; a purpose left out takes the install's default, null turns it off. */
const policyBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    time_zone: { type: ['string', 'null'], maxLength: 100, description: "IANA zone for recipients without one of their own; null: the install's" },
    quiet_hours: perPurpose(windowSchema, 'Per purpose, the daily window in which nothing is sent (only marketing and conversational may have one).'),
    frequency_caps: perPurpose(capsSchema, 'Per purpose, at most `max` deliveries per recipient and channel in any rolling `period_seconds`.'),
  },
} as const;

/** The answer: the policy in force, every purpose present (registered once by response-schemas.ts, so GET and PUT share one component). */
export const schedulingPolicySchema = {
  $id: 'SchedulingPolicy',
  type: 'object',
  additionalProperties: false,
  required: ['time_zone', 'quiet_hours', 'frequency_caps', 'updated_at'],
  properties: {
    time_zone: { type: 'string' },
    quiet_hours: { ...perPurpose(windowSchema, 'Per purpose; null: never held.'), required: [...PURPOSES] },
    frequency_caps: { ...perPurpose(capsSchema, 'Per purpose; null: uncapped.'), required: [...PURPOSES] },
    updated_at: { type: ['string', 'null'], format: 'date-time', description: "when the tenant last set its policy; null: the install's defaults apply" },
  },
} as const;

/** The stable code of a problem, by the part of the policy it is in. */
function codeOf(p: PolicyProblem): ErrorCode {
  if (p.field === 'time_zone') return 'invalid_time_zone';
  return p.field.startsWith('quiet_hours.') ? 'invalid_quiet_hours' : 'invalid_frequency_cap';
}

/** Registers GET and PUT /v1/scheduling on an authenticated scope. */
export function schedulingRoutes(app: FastifyInstance, deps: SchedulingRouteDeps): void {
  const policies = deps.scheduling ?? new SchedulingPolicies(deps.store, deps.clock);
  const show = (stored: SchedulingPolicyJson | null, updatedAt: number | null) => ({
    ...policyJson(resolvePolicy(stored, policies.defaults)),
    updated_at: updatedAt === null ? null : new Date(updatedAt).toISOString(),
  });

  app.get(
    '/v1/scheduling',
    {
      schema: {
        summary: "The tenant's time-aware sending policy in force",
        description: "Time zone, quiet hours and frequency caps per purpose: the tenant's choices over the install's defaults (`scheduling:` in the config).",
        tags: ['scheduling'],
        response: { 200: policyResponse, 401: problemRef, 403: problemRef },
      },
    },
    async (request) => {
      const stored = await deps.store.scheduling.getPolicy(request.tenantId);
      return show(stored?.policy ?? null, stored?.updatedAt ?? null);
    },
  );

  app.put<{ Body: SchedulingPolicyJson }>(
    '/v1/scheduling',
    {
      schema: {
        summary: "Replace the tenant's time-aware sending policy",
        description:
          "Replaces the tenant's choices (a purpose left out takes the install's default; null turns its quiet hours or caps off). " +
          'Read at send time, so it applies to messages already queued, within seconds. Answers the policy now in force.',
        tags: ['scheduling'],
        body: policyBody,
        response: { 200: policyResponse, 400: problemRef, 401: problemRef, 403: problemRef, 422: problemRef },
      },
    },
    async (request) => {
      const body = request.body;
      const problems = policyProblems(body);
      if (problems.length > 0) {
        const code = codeOf(problems[0]!);
        const same = problems.filter((p) => codeOf(p) === code);
        throw new HeraldError(code, same.map((p) => `${p.field} ${p.message}`).join('; '), same);
      }
      const now = deps.clock.now();
      await deps.store.scheduling.putPolicy(request.tenantId, body, now);
      policies.forget(request.tenantId);
      await recordAction(deps, request, 'scheduling_edit', { subjectId: request.tenantId }, { policy: body });
      return show(body, now);
    },
  );
}
